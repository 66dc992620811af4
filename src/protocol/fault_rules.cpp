#include "protocol/fault_rules.hpp"

#include <cctype>
#include <nlohmann/json.hpp>

#include "apimodel/validator.hpp"

namespace smemu::protocol {
namespace {

// The operations a rule's `operation` glob matches among those served.
std::vector<const apimodel::Operation*> Matched(
    const domain::FaultScope& scope, const apimodel::ServiceModel& control_plane,
    const apimodel::ServiceModel& runtime,
    const std::function<bool(const std::string&)>& emulates) {
  std::vector<const apimodel::Operation*> matched;
  for (const auto& [name, operation] : control_plane.operations()) {
    if (emulates(name) && domain::GlobMatches(scope.operation, name)) {
      matched.push_back(&operation);
    }
  }
  // Every runtime operation the emulator serves: the model holds only those.
  for (const auto& [name, operation] : runtime.operations()) {
    if (domain::GlobMatches(scope.operation, name)) matched.push_back(&operation);
  }
  return matched;
}

// The status `code` must go with in `operation` (0: any 4xx); nullopt when it may not answer it.
std::optional<int> StatusIn(const apimodel::Operation& operation, std::string_view code) {
  for (const apimodel::Shape* error : operation.errors) {
    if (error->name == code) return error->error_status.value_or(400);
  }
  return apimodel::CommonErrorStatus(code);
}

std::string DefaultMessage(domain::ErrorCode code) {
  switch (code) {
    case domain::ErrorCode::kThrottlingException:
      return "Rate exceeded";  // AWS's text for request throttling
    case domain::ErrorCode::kInternalFailure:
      return "An internal error occurred.";
    case domain::ErrorCode::kServiceUnavailable:
      return "The service is unavailable. Please try again later.";
    default:
      break;
  }
  return std::string(domain::WireName(code)) + " injected by a fault rule.";
}

}  // namespace

std::string FaultResourceOf(std::string_view operation, const nlohmann::json& input) {
  std::size_t verb = 1;
  while (verb < operation.size() && !std::isupper(static_cast<unsigned char>(operation[verb]))) {
    ++verb;
  }
  const std::string_view noun = operation.substr(verb);
  constexpr std::string_view kSuffix = "Name";
  std::string_view best;
  std::string resource;
  for (const auto& [key, value] : input.items()) {
    if (!value.is_string() || key.size() <= kSuffix.size() ||
        key.compare(key.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
      continue;
    }
    const std::string_view member = std::string_view(key).substr(0, key.size() - kSuffix.size());
    if (noun.substr(0, member.size()) == member && member.size() > best.size()) {
      best = member;
      resource = value.get<std::string>();
    }
  }
  return resource;
}

domain::Status CompleteFaultRules(std::vector<domain::FaultRule>& rules,
                                  const apimodel::ServiceModel& control_plane,
                                  const apimodel::ServiceModel& runtime,
                                  const std::function<bool(const std::string&)>& emulates) {
  for (std::size_t i = 0; i < rules.size(); ++i) {
    domain::FaultRule& rule = rules[i];
    const std::string named =
        "Fault rule " + std::to_string(i + 1) +
        (rule.id.empty() ? std::string() : " (" + domain::Excerpt(rule.id) + ")");
    const auto operations = Matched(rule.scope, control_plane, runtime, emulates);
    if (operations.empty()) {
      return domain::ValidationException(named + ": operation '" +
                                         domain::Excerpt(rule.scope.operation) +
                                         "' matches no operation the emulator serves.");
    }
    auto* fault = std::get_if<domain::ErrorFault>(&rule.action);
    if (fault == nullptr) continue;
    domain::AwsError& error = fault->error;
    const std::string_view code = domain::WireName(error.code);
    int status = error.http_status;
    for (const apimodel::Operation* operation : operations) {
      const auto required = StatusIn(*operation, code);
      if (!required) {
        return domain::ValidationException(
            named + ": " + operation->name + " cannot answer " + std::string(code) +
            ": it is neither one of the operation's modelled errors nor a common AWS error.");
      }
      const int fixed = *required;
      if (fixed != 0 && status != 0 && status != fixed) {
        return domain::ValidationException(
            named + ": " + std::string(code) + " is sent with HTTP " + std::to_string(fixed) +
            " by " + operation->name + ", not " + std::to_string(status) + ".");
      }
      if (fixed == 0 && status != 0 && status > 499) {
        return domain::ValidationException(named + ": " + std::string(code) +
                                           " is a client error: its status is a 4xx, not " +
                                           std::to_string(status) + ".");
      }
      if (status == 0 && fixed != 0) status = fixed;
    }
    error.http_status = status == 0 ? 400 : status;
    if (error.message.empty()) error.message = DefaultMessage(error.code);
  }
  return domain::Ok();
}

}  // namespace smemu::protocol
