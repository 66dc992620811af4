#include "ops/fault_document.hpp"

#include <cmath>
#include <optional>
#include <set>

#include "domain/time_format.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

const std::set<std::string, std::less<>> kRuleMembers = {
    "id",          "operation",    "account",     "region",      "resource",   "times",
    "every",       "seed",         "probability", "error",       "latency_ms", "payment",
    "description", "node_failure", "no_capacity", "job_failure", "model_error"};

class RuleReader {
 public:
  RuleReader(const json& doc, std::size_t index) : doc_(doc), index_(index) {}

  domain::Result<domain::FaultRule> Read() {
    if (!doc_.is_object()) return Fail("must be an object");
    for (const auto& [key, value] : doc_.items()) {
      if (kRuleMembers.count(key) == 0) return Fail("has an unknown member '" + Excerpt(key) + "'");
    }
    domain::FaultRule rule;
    for (auto [member, field] : {std::pair{"id", &rule.id},
                                 {"operation", &rule.scope.operation},
                                 {"account", &rule.scope.account},
                                 {"region", &rule.scope.region},
                                 {"resource", &rule.scope.resource}}) {
      if (!doc_.contains(member)) continue;
      const json& value = doc_.at(member);
      if (!value.is_string() || value.get_ref<const std::string&>().empty() ||
          value.get_ref<const std::string&>().size() > 256) {
        return Fail(std::string("'") + member + "' must be a string of 1 to 256 characters");
      }
      *field = value.get<std::string>();
    }
    if (doc_.contains("description")) {
      const json& value = doc_.at("description");
      if (!value.is_string() || value.get_ref<const std::string&>().size() > 1024) {
        return Fail("'description' must be a string of at most 1024 characters");
      }
      rule.description = value.get<std::string>();
    }
    if (auto firing = ReadFiring(); !firing) {
      return firing.error();
    } else {
      rule.firing = *firing;
    }
    auto action = ReadAction();
    if (!action) return action.error();
    rule.action = std::move(*action);
    return rule;
  }

 private:
  static std::string Excerpt(const std::string& text) { return domain::Excerpt(text); }

  domain::AwsError Fail(const std::string& what) const {
    const std::string name = doc_.is_object() && doc_.contains("id") && doc_["id"].is_string()
                                 ? " (" + Excerpt(doc_["id"].get<std::string>()) + ")"
                                 : "";
    return domain::ValidationException("Fault rule " + std::to_string(index_ + 1) + name + " " +
                                       what + ".");
  }

  domain::Result<domain::FaultFiring> ReadFiring() const {
    using Kind = domain::FaultFiring::Kind;
    domain::FaultFiring firing;
    int given = 0;
    for (auto [member, kind] : {std::pair{"times", Kind::kTimes}, {"every", Kind::kEvery}}) {
      if (!doc_.contains(member)) continue;
      ++given;
      const json& value = doc_.at(member);
      if (!value.is_number_integer() || value.get<long long>() < 1 ||
          value.get<long long>() > 1'000'000'000) {
        return Fail(std::string("'") + member + "' must be a whole number from 1 to 1000000000");
      }
      firing.kind = kind;
      firing.count = value.get<long long>();
    }
    if (doc_.contains("probability")) {
      ++given;
      const json& value = doc_.at("probability");
      if (!value.is_number() || !(value.get<double>() >= 0 && value.get<double>() <= 1)) {
        return Fail("'probability' must be a number from 0 to 1");
      }
      firing.kind = Kind::kProbability;
      firing.probability = value.get<double>();
    }
    if (given > 1) return Fail("gives more than one of 'times', 'every' and 'probability'");
    if (doc_.contains("seed")) {
      const json& value = doc_.at("seed");
      if (firing.kind != Kind::kProbability) return Fail("has a 'seed' without a 'probability'");
      if (!value.is_number_unsigned()) return Fail("'seed' must be a whole number >= 0");
      firing.seed = value.get<std::uint64_t>();
    }
    return firing;
  }

  domain::Result<domain::FaultAction> ReadAction() const {
    const int given = static_cast<int>(doc_.contains("error")) +
                      static_cast<int>(doc_.contains("latency_ms")) +
                      static_cast<int>(doc_.contains("payment")) +
                      static_cast<int>(doc_.contains("node_failure")) +
                      static_cast<int>(doc_.contains("no_capacity")) +
                      static_cast<int>(doc_.contains("job_failure")) +
                      static_cast<int>(doc_.contains("model_error"));
    if (given != 1) {
      return Fail(
          "must do exactly one of 'error', 'latency_ms', 'payment', 'node_failure', "
          "'no_capacity', 'job_failure' and 'model_error'");
    }
    if (doc_.contains("model_error")) return ReadModelError(doc_.at("model_error"));
    if (doc_.contains("job_failure")) return ReadJobFailure(doc_.at("job_failure"));
    if (doc_.contains("no_capacity")) return ReadNoCapacity(doc_.at("no_capacity"));
    if (doc_.contains("node_failure")) return ReadNodeFailure(doc_.at("node_failure"));
    if (doc_.contains("latency_ms")) {
      const json& value = doc_.at("latency_ms");
      if (!value.is_number_integer() || value.get<long long>() < 0 ||
          value.get<long long>() > domain::kMaxFaultLatency.count()) {
        return Fail("'latency_ms' must be a whole number of milliseconds from 0 to " +
                    std::to_string(domain::kMaxFaultLatency.count()));
      }
      return domain::FaultAction{domain::LatencyFault{Millis{value.get<long long>()}}};
    }
    if (doc_.contains("payment")) {
      const json& value = doc_.at("payment");
      if (!value.is_object()) return Fail("'payment' must be an object");
      domain::PaymentFault fault{kPaymentFailedMessage};
      for (const auto& [key, item] : value.items()) {
        if (key != "status_message") {
          return Fail("has an unknown member 'payment." + Excerpt(key) + "'");
        }
        if (!item.is_string() || item.get_ref<const std::string&>().empty() ||
            item.get_ref<const std::string&>().size() > 1024) {
          return Fail("'payment.status_message' must be a string of 1 to 1024 characters");
        }
        fault.status_message = item.get<std::string>();
      }
      return domain::FaultAction{std::move(fault)};
    }
    return ReadError(doc_.at("error"));
  }

  domain::Result<domain::FaultAction> ReadModelError(const json& value) const {
    if (!value.is_object()) return Fail("'model_error' must be an object");
    domain::ModelFault fault;
    for (const auto& [key, item] : value.items()) {
      if (key == "status") {
        if (!item.is_number_integer() || item.get<int>() < 300 || item.get<int>() > 599) {
          return Fail("'model_error.status' must be the container's HTTP status, 300 to 599");
        }
        fault.status = item.get<int>();
      } else if (key == "body") {
        if (!item.is_string() || item.get_ref<const std::string&>().size() > 65536) {
          return Fail("'model_error.body' must be a string of at most 65536 characters");
        }
        fault.body = item.get<std::string>();
      } else if (key == "timeout") {
        if (!item.is_boolean()) return Fail("'model_error.timeout' must be true or false");
        fault.timeout = item.get<bool>();
      } else {
        return Fail("has an unknown member 'model_error." + Excerpt(key) + "'");
      }
    }
    return domain::FaultAction{std::move(fault)};
  }

  domain::Result<domain::FaultAction> ReadJobFailure(const json& value) const {
    if (!value.is_object()) return Fail("'job_failure' must be an object");
    domain::JobFault fault{Millis{0}, kJobFailedReason};
    for (const auto& [key, item] : value.items()) {
      if (key == "after_seconds") {
        if (!item.is_number() || !(item.get<double>() >= 0 && item.get<double>() <= 1e9)) {
          return Fail("'job_failure.after_seconds' must be a number of seconds from 0");
        }
        fault.after = Millis{std::llround(item.get<double>() * 1000)};
      } else if (key == "failure_reason") {
        if (!item.is_string() || item.get_ref<const std::string&>().empty() ||
            item.get_ref<const std::string&>().size() > 1024) {
          return Fail("'job_failure.failure_reason' must be a string of 1 to 1024 characters");
        }
        fault.failure_reason = item.get<std::string>();
      } else {
        return Fail("has an unknown member 'job_failure." + Excerpt(key) + "'");
      }
    }
    return domain::FaultAction{std::move(fault)};
  }

  domain::Result<domain::FaultAction> ReadNoCapacity(const json& value) const {
    if (!value.is_object()) return Fail("'no_capacity' must be an object");
    domain::NoCapacityFault fault;
    for (const auto& [key, item] : value.items()) {
      if (key != "instance_type") {
        return Fail("has an unknown member 'no_capacity." + Excerpt(key) + "'");
      }
      if (!item.is_string() || item.get_ref<const std::string&>().empty() ||
          item.get_ref<const std::string&>().size() > 256) {
        return Fail("'no_capacity.instance_type' must be a string of 1 to 256 characters");
      }
      fault.instance_type = item.get<std::string>();
    }
    return domain::FaultAction{std::move(fault)};
  }

  domain::Result<domain::FaultAction> ReadNodeFailure(const json& value) const {
    if (doc_.contains("times") || doc_.contains("every") || doc_.contains("probability")) {
      return Fail(
          "fails one node of each cluster it matches, once: 'times', 'every' and "
          "'probability' do not apply to 'node_failure'");
    }
    if (!value.is_object()) return Fail("'node_failure' must be an object");
    domain::NodeFault fault;
    bool timed = false;
    for (const auto& [key, item] : value.items()) {
      if (key == "at") {
        std::optional<TimePoint> at;
        if (item.is_string()) at = domain::ParseIso8601(item.get<std::string>());
        if (item.is_number() && item.get<double>() >= 0 && item.get<double>() < 1e11) {
          at = domain::FromEpochSeconds(item.get<double>());
        }
        if (!at) {
          return Fail(
              "'node_failure.at' must be an ISO 8601 time such as "
              "2027-01-16T00:00:00Z, or epoch seconds");
        }
        fault.at = *at;
        timed = true;
      } else if (key == "instance_group") {
        if (!item.is_string() || item.get_ref<const std::string&>().empty() ||
            item.get_ref<const std::string&>().size() > 256) {
          return Fail("'node_failure.instance_group' must be a string of 1 to 256 characters");
        }
        fault.instance_group = item.get<std::string>();
      } else {
        return Fail("has an unknown member 'node_failure." + Excerpt(key) + "'");
      }
    }
    if (!timed) return Fail("'node_failure' must say when the node fails ('at')");
    return domain::FaultAction{std::move(fault)};
  }

  domain::Result<domain::FaultAction> ReadError(const json& value) const {
    domain::AwsError error;
    error.http_status = 0;  // the model's, unless given
    const json* code = &value;
    if (value.is_object()) {
      for (const auto& [key, item] : value.items()) {
        if (key != "code" && key != "status" && key != "message" && key != "original_status_code") {
          return Fail("has an unknown member 'error." + Excerpt(key) + "'");
        }
      }
      if (!value.contains("code")) return Fail("'error' must name its 'code'");
      code = &value.at("code");
      if (value.contains("status")) {
        const json& status = value.at("status");
        if (!status.is_number_integer() || status.get<int>() < 400 || status.get<int>() > 599) {
          return Fail("'error.status' must be an HTTP status from 400 to 599");
        }
        error.http_status = status.get<int>();
      }
      if (value.contains("message")) {
        const json& message = value.at("message");
        if (!message.is_string() || message.get_ref<const std::string&>().size() > 1024) {
          return Fail("'error.message' must be a string of at most 1024 characters");
        }
        error.message = message.get<std::string>();
      }
    }
    if (!code->is_string()) return Fail("'error' must be an error code or an object with 'code'");
    const auto known = domain::FaultErrorCode(code->get<std::string>());
    if (!known) {
      return Fail("names the error '" + Excerpt(code->get<std::string>()) +
                  "', which the emulator cannot send: use one of SageMaker's modelled errors "
                  "(ResourceNotFound, ResourceInUse, ResourceLimitExceeded, ConflictException; "
                  "on the runtime ModelError, ModelNotReadyException, "
                  "InternalDependencyException, ValidationError) or a common AWS error "
                  "(ThrottlingException, ServiceUnavailable, InternalFailure, "
                  "ValidationException, AccessDeniedException, UnrecognizedClientException)");
    }
    error.code = *known;
    if (value.is_object() && value.contains("original_status_code")) {
      // ModelError's OriginalStatusCode: the status the model container answered with.
      const json& original = value.at("original_status_code");
      if (error.code != domain::ErrorCode::kModelError) {
        return Fail("gives 'error.original_status_code', which only a ModelError has");
      }
      if (!original.is_number_integer() || original.get<int>() < 100 || original.get<int>() > 599) {
        return Fail("'error.original_status_code' must be an HTTP status from 100 to 599");
      }
      error.details.push_back({"OriginalStatusCode", original.get<std::int64_t>()});
    }
    return domain::FaultAction{domain::ErrorFault{std::move(error)}};
  }

  const json& doc_;
  std::size_t index_;
};

}  // namespace

domain::Result<std::vector<domain::FaultRule>> ReadFaultRules(const json& doc) {
  const json* rules = &doc;
  json single;
  if (!doc.is_object()) {
    return domain::ValidationException(
        "A fault document is a JSON object: one rule, or {\"rules\": [...]}.");
  }
  if (doc.contains("rules")) {
    for (const auto& [key, value] : doc.items()) {
      if (key != "rules" && key != "$schema") {
        return domain::ValidationException("Unknown member '" + domain::Excerpt(key) +
                                           "' beside 'rules'.");
      }
    }
    rules = &doc.at("rules");
    if (!rules->is_array()) return domain::ValidationException("'rules' must be an array.");
  } else {
    single = json::array({doc});
    rules = &single;
  }
  std::vector<domain::FaultRule> read;
  for (std::size_t i = 0; i < rules->size(); ++i) {
    auto rule = RuleReader(rules->at(i), i).Read();
    if (!rule) return rule.error();
    read.push_back(std::move(*rule));
  }
  return read;
}

json FaultRuleJson(const domain::FaultRule& rule) {
  json doc = {{"id", rule.id}, {"operation", rule.scope.operation}};
  if (!rule.scope.account.empty()) doc["account"] = rule.scope.account;
  if (!rule.scope.region.empty()) doc["region"] = rule.scope.region;
  if (!rule.scope.resource.empty()) doc["resource"] = rule.scope.resource;
  if (!rule.description.empty()) doc["description"] = rule.description;
  using Kind = domain::FaultFiring::Kind;
  switch (rule.firing.kind) {
    case Kind::kAlways:
      break;
    case Kind::kTimes:
      doc["times"] = rule.firing.count;
      break;
    case Kind::kEvery:
      doc["every"] = rule.firing.count;
      break;
    case Kind::kProbability:
      doc["probability"] = rule.firing.probability;
      doc["seed"] = rule.firing.seed;
      break;
  }
  if (const auto* error = std::get_if<domain::ErrorFault>(&rule.action)) {
    doc["error"] = {{"code", domain::WireName(error->error.code)},
                    {"status", error->error.http_status},
                    {"message", error->error.message}};
    for (const domain::ErrorDetail& detail : error->error.details) {
      if (detail.name == "OriginalStatusCode") {
        doc["error"]["original_status_code"] = std::get<std::int64_t>(detail.value);
      }
    }
  } else if (const auto* latency = std::get_if<domain::LatencyFault>(&rule.action)) {
    doc["latency_ms"] = latency->delay.count();
  } else if (const auto* model = std::get_if<domain::ModelFault>(&rule.action)) {
    doc["model_error"] = {
        {"status", model->status}, {"body", model->body}, {"timeout", model->timeout}};
  } else if (const auto* job = std::get_if<domain::JobFault>(&rule.action)) {
    doc["job_failure"] = {{"after_seconds", static_cast<double>(job->after.count()) / 1000},
                          {"failure_reason", job->failure_reason}};
  } else if (const auto* capacity = std::get_if<domain::NoCapacityFault>(&rule.action)) {
    doc["no_capacity"] = json::object();
    if (!capacity->instance_type.empty()) {
      doc["no_capacity"]["instance_type"] = capacity->instance_type;
    }
  } else if (const auto* node = std::get_if<domain::NodeFault>(&rule.action)) {
    doc["node_failure"] = {{"at", domain::FormatIso8601(node->at)}};
    if (!node->instance_group.empty()) doc["node_failure"]["instance_group"] = node->instance_group;
  } else {
    doc["payment"] = {
        {"status_message", std::get<domain::PaymentFault>(rule.action).status_message}};
  }
  return doc;
}

}  // namespace smemu::ops
