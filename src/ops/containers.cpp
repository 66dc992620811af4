#include "ops/containers.hpp"

#include <algorithm>
#include <cctype>

#include "domain/resource_kinds.hpp"

namespace smemu::ops {

using nlohmann::json;

namespace {

bool IsPort(std::string_view text) {
  if (text.empty() || text.size() > 5) return false;
  if (!std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) {
    return false;
  }
  const int port = std::stoi(std::string(text));
  return port > 0 && port <= 65535;
}

bool IsHostName(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '.' || c == '-' || c == '_';
  });
}

}  // namespace

std::optional<ContainerAddress> ParseContainerUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.substr(0, kScheme.size()) != kScheme) return std::nullopt;
  std::string_view authority = url.substr(kScheme.size());
  if (!authority.empty() && authority.back() == '/') authority.remove_suffix(1);
  ContainerAddress address{"", "80"};
  if (!authority.empty() && authority.front() == '[') {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    address.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (address.host.empty() ||
        address.host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string::npos) {
      return std::nullopt;
    }
    if (authority.empty()) return address;
    if (authority.front() != ':') return std::nullopt;
    authority.remove_prefix(1);
    if (!IsPort(authority)) return std::nullopt;
    address.port = std::string(authority);
    return address;
  }
  const size_t colon = authority.find(':');
  const std::string_view host = authority.substr(0, colon);
  if (!IsHostName(host)) return std::nullopt;
  address.host = std::string(host);
  if (colon != std::string_view::npos) {
    const std::string_view port = authority.substr(colon + 1);
    if (!IsPort(port)) return std::nullopt;
    address.port = std::string(port);
  }
  return address;
}

json ModelEnvironment(const Context& ctx, const std::string& model_name) {
  const auto model =
      ctx.store.Get({ctx.caller.account, ctx.caller.region, domain::kModelKind, model_name});
  if (!model) return json::object();
  const json doc = json::parse(model->doc);
  if (doc.contains("PrimaryContainer")) {
    return doc["PrimaryContainer"].value("Environment", json::object());
  }
  if (doc.contains("Containers") && !doc["Containers"].empty()) {
    return doc["Containers"][0].value("Environment", json::object());
  }
  return json::object();
}

domain::Status CheckEmulatorVariables(const json& container) {
  const json environment = container.value("Environment", json::object());
  const auto upstream = environment.find(kUpstreamVariable);
  if (upstream != environment.end() &&
      (!upstream->is_string() || !ParseContainerUrl(upstream->get<std::string>()))) {
    return domain::ValidationException(
        std::string(kUpstreamVariable) +
        " must be the URL of an inference container, http://host:port, not '" +
        (upstream->is_string() ? upstream->get<std::string>() : upstream->dump()) + "'.");
  }
  return domain::Ok();
}

std::optional<ContainerAddress> UpstreamOf(const Context& ctx, const std::string& model_name) {
  const json environment = ModelEnvironment(ctx, model_name);
  const auto upstream = environment.find(kUpstreamVariable);
  if (upstream == environment.end() || !upstream->is_string()) return std::nullopt;
  return ParseContainerUrl(upstream->get<std::string>());
}

}  // namespace smemu::ops
