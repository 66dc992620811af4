#include "ops/containers.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "domain/resource_kinds.hpp"
#include "ops/arn.hpp"
#include "ops/model_record.hpp"

namespace smemu::ops {

using nlohmann::json;

namespace {

// The runtime model's Message shape (ModelError's Message and OriginalMessage) holds at most 2048
// characters; a container's error body can be any size.
constexpr size_t kMaxMessage = 2048;

constexpr const char* kTimeoutMessage =
    "Your invocation timed out while waiting for a response from container primary. Review the "
    "latency metrics for each container in Amazon CloudWatch, resolve the issue, and try again.";

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
  // Every invocation reads its model's environment, decoded once per stored version.
  return LoadModelEnvironment(ctx.store,
                              KeyOf(ctx.caller, domain::ResourceKind::kModel, model_name))
      .value_or(json::object());
}

domain::Status CheckEmulatorVariables(const json& container) {
  const json environment = container.value("Environment", json::object());
  const auto upstream = environment.find(kUpstreamVariable);
  if (upstream != environment.end() &&
      (!upstream->is_string() || !ParseContainerUrl(upstream->get<std::string>()))) {
    return domain::ValidationException(
        std::string(kUpstreamVariable) +
        " must be the URL of an inference container, http://host:port, not '" +
        domain::Excerpt(upstream->is_string() ? upstream->get<std::string>() : upstream->dump()) +
        "'.");
  }
  return domain::Ok();
}

std::optional<ContainerAddress> UpstreamOf(const Context& ctx, const std::string& model_name) {
  return UpstreamIn(ModelEnvironment(ctx, model_name));
}

std::optional<ContainerAddress> UpstreamIn(const json& environment) {
  const auto upstream = environment.find(kUpstreamVariable);
  if (upstream == environment.end() || !upstream->is_string()) return std::nullopt;
  return ParseContainerUrl(upstream->get<std::string>());
}

namespace {

std::string LogGroup(const ContainerAnswer& answer) {
  return "/aws/sagemaker/Endpoints/" + domain::Excerpt(answer.endpoint_name);
}

// Where the container's logs would be, as the service's ModelError messages end.
std::string LogsSentence(const ContainerAnswer& answer) {
  const std::string region = domain::Excerpt(answer.region);
  return " See https://" + region + ".console.aws.amazon.com/cloudwatch/home?region=" + region +
         "#logEventViewer:group=" + LogGroup(answer) + " in account " +
         domain::Excerpt(answer.account) + " for more information.";
}

// A ModelError whose message is `prefix`, `text` cut to fit and `suffix`, within the runtime
// model's 2,048 characters, with the details the service adds (`original`: the container's
// status and message).
domain::AwsError ModelErrorWithin(const std::string& prefix, const std::string& text,
                                  const std::string& suffix, int status,
                                  const std::string& original, const ContainerAnswer& answer) {
  // ASCII apart from `text`, so the byte sizes are character counts.
  const size_t room = kMaxMessage - std::min(kMaxMessage - 3, prefix.size() + suffix.size());
  return domain::ModelError(
      prefix + domain::Shortened(text, room) + suffix,
      {{"OriginalStatusCode", std::int64_t{status}},
       {"OriginalMessage", domain::Shortened(original, kMaxMessage)},
       {"LogStreamArn", "arn:aws:logs:" + answer.region + ":" + answer.account +
                            ":log-group:" + LogGroup(answer)}});
}

}  // namespace

domain::AwsError ContainerError(const ContainerAnswer& answer) {
  if (!answer.reached && !answer.timed_out) {
    return domain::ModelError("The model container for production variant " +
                              domain::Excerpt(answer.variant) + " at http://" +
                              domain::Excerpt(answer.address.host) + ":" +
                              domain::Excerpt(answer.address.port) + " did not answer (" +
                              domain::Excerpt(answer.failure) + ").");
  }
  // The service reports its own timeout as a server error with status 0 from the container.
  const int status = answer.timed_out ? 0 : answer.status;
  const std::string body = answer.timed_out ? std::string(kTimeoutMessage) : answer.body;
  // The service's wording: the container's status and body, and where its logs would be.
  const std::string prefix =
      std::string(status >= 500 || answer.timed_out ? "Received server error ("
                                                    : "Received client error (") +
      std::to_string(status) + ") from primary with message \"";
  return ModelErrorWithin(prefix, body, "\"." + LogsSentence(answer), status, body, answer);
}

domain::AwsError UnfitContainerAnswer(const ContainerAnswer& answer,
                                      const std::vector<std::string>& unfit) {
  std::string problems;
  for (const std::string& problem : unfit) problems += (problems.empty() ? "" : "; ") + problem;
  return ModelErrorWithin(
      "Received an answer from primary with headers an InvokeEndpoint response cannot carry: ",
      problems, "." + LogsSentence(answer), answer.status, answer.body, answer);
}

}  // namespace smemu::ops
