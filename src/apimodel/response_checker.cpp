#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "apimodel/validator.hpp"
#include "apimodel/validator_rules.hpp"
#include "domain/time_format.hpp"

namespace smemu::apimodel {
namespace {

using nlohmann::json;
using Type = Shape::Type;

// How a value is quoted in a response violation: as the request messages quote it, shortened.
std::string Quote(const json& value) {
  const std::string shown = domain::Excerpt(Render(value));
  return value.is_string() ? "'" + shown + "'" : shown;
}

// Walks a response body along its shape, as a strict client would read it: every constraint of the
// model (required, unknown and null members, JSON types, enums, length, pattern, range, list and
// map sizes, timestamps as epoch-second numbers), recursively. Paths name members as the model
// does: 'TrainingPlanOfferings[0].DurationHours'.
class ResponseChecker {
 public:
  explicit ResponseChecker(std::vector<std::string>& violations) : violations_(violations) {}

  void Visit(const Shape& shape, const json& value, const std::string& path) {
    switch (shape.type) {
      case Type::kStructure:
        return VisitStructure(shape, value, path);
      case Type::kList:
        if (!value.is_array()) return WrongType(value, path, "be a List");
        CheckLength(shape, value, value.size(), path);
        for (size_t i = 0; i < value.size(); ++i) {
          const std::string item_path = path + "[" + std::to_string(i) + "]";
          if (value[i].is_null()) {
            Violation(value[i], item_path, "not be null");
          } else {
            Visit(*shape.member, value[i], item_path);
          }
        }
        return;
      case Type::kMap:
        if (!value.is_object()) return WrongType(value, path, "be a Map");
        CheckLength(shape, value, value.size(), path);
        for (const auto& [key, item] : value.items()) {
          const std::string item_path = Join(path, key);
          Visit(*shape.key, json(key), item_path + " (key)");
          if (item.is_null()) {
            Violation(item, item_path, "not be null");
          } else {
            Visit(*shape.value, item, item_path);
          }
        }
        return;
      case Type::kString:
        if (!value.is_string()) return WrongType(value, path, "be a String");
        return CheckString(shape, value, path);
      case Type::kBlob:
        if (!value.is_string()) return WrongType(value, path, "be a Blob (base64 text)");
        return;
      case Type::kBoolean:
        if (!value.is_boolean()) return WrongType(value, path, "be a Boolean");
        return;
      case Type::kTimestamp:
        if (!value.is_number() || !std::isfinite(value.get<double>()) ||
            value.get<double>() < domain::kEarliestEpochSeconds ||
            value.get<double>() > domain::kLatestEpochSeconds) {
          return WrongType(value, path, "be a Timestamp in epoch seconds (a JSON number)");
        }
        return;
      case Type::kInteger:
      case Type::kLong:
        if (!value.is_number_integer()) {
          return WrongType(value, path,
                           shape.type == Type::kInteger ? "be an Integer" : "be a Long");
        }
        if (shape.type == Type::kInteger &&
            (value.is_number_unsigned()
                 ? value.get<unsigned long long>() >
                       static_cast<unsigned long long>(std::numeric_limits<int>::max())
                 : value.get<long long>() > std::numeric_limits<int>::max() ||
                       value.get<long long>() < std::numeric_limits<int>::min())) {
          return WrongType(value, path, "fit in an Integer");
        }
        return CheckRange(shape, value, value.get<double>(), path);
      case Type::kFloat:
      case Type::kDouble:
        if (!value.is_number()) return WrongType(value, path, "be a Number");
        return CheckRange(shape, value, value.get<double>(), path);
    }
  }

  // The members of a structure, with `skip` naming keys that are not members (an error body's
  // `__type` and `message`).
  void VisitStructure(const Shape& shape, const json& value, const std::string& path,
                      const std::vector<std::string_view>& skip = {}) {
    if (!value.is_object()) return WrongType(value, path, "be a Structure");
    int members_set = 0;
    for (const Member& member : shape.members) {
      if (member.required && !value.contains(member.name)) {
        violations_.push_back("Value null at '" + Join(path, member.name) +
                              "' failed to satisfy constraint: Member must not be null");
      }
    }
    for (const auto& [key, item] : value.items()) {
      if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
      const std::string member_path = Join(path, key);
      const Member* member = shape.FindMember(key);
      if (member == nullptr) {
        violations_.push_back("Member '" + member_path + "' is not in the model's " + shape.name);
      } else if (item.is_null()) {
        Violation(item, member_path, "be left out rather than sent as null");
      } else {
        ++members_set;
        Visit(*member->shape, item, member_path);
      }
    }
    if (shape.is_union && members_set != 1) {
      violations_.push_back("Union '" + (path.empty() ? shape.name : path) + "' has " +
                            std::to_string(members_set) + " members set, not exactly one");
    }
  }

 private:
  static std::string Join(const std::string& path, const std::string& part) {
    return path.empty() ? part : path + "." + part;
  }

  void Violation(const json& value, const std::string& path, const std::string& rule) {
    violations_.push_back("Value " + Quote(value) + " at '" + path +
                          "' failed to satisfy constraint: Member must " + rule);
  }

  void WrongType(const json& value, const std::string& path, const std::string& rule) {
    Violation(value, path.empty() ? "(body)" : path, rule);
  }

  // Reports each rule `value` breaks at `path`.
  auto Reporter(const json& value, const std::string& path) {
    return [this, &value, &path](const std::string& rule) { Violation(value, path, rule); };
  }

  void CheckString(const Shape& shape, const json& value, const std::string& path) {
    CheckStringRules(shape, value.get_ref<const std::string&>(), Reporter(value, path));
  }

  void CheckLength(const Shape& shape, const json& value, size_t length, const std::string& path) {
    CheckLengthRules(shape, length, Reporter(value, path));
  }

  void CheckRange(const Shape& shape, const json& value, double number, const std::string& path) {
    CheckRangeRules(shape, number, Reporter(value, path));
  }

  std::vector<std::string>& violations_;
};

// The code as SDKs read it: after the last '#', before the first ':'.
std::string_view CodeOfType(std::string_view type) {
  type = type.substr(0, type.find(':'));
  const auto hash = type.rfind('#');
  return hash == std::string_view::npos ? type : type.substr(hash + 1);
}

void CheckError(const Operation* operation, int http_status, const json& body,
                std::vector<std::string>& violations) {
  if (!body.is_object() || !body.contains("__type") || !body["__type"].is_string()) {
    violations.push_back("The error body has no __type naming the error: " + Quote(body));
    return;
  }
  const std::string_view code = CodeOfType(body["__type"].get_ref<const std::string&>());
  ResponseChecker checker(violations);
  if (operation != nullptr) {
    for (const Shape* error : operation->errors) {
      if (error->name != code) continue;
      const int status = error->error_status.value_or(400);
      if (http_status != status) {
        violations.push_back("Error " + error->name + " is sent with HTTP " +
                             std::to_string(http_status) + "; the model says " +
                             std::to_string(status));
      }
      checker.VisitStructure(*error, body, "", {"__type", "message"});
      return;
    }
  }
  const std::optional<int> common_status = CommonErrorStatus(code);
  if (!common_status) {
    std::string modelled;
    if (operation != nullptr) {
      for (const Shape* error : operation->errors) {
        modelled += (modelled.empty() ? "" : ", ") + error->name;
      }
    }
    violations.push_back("Error code '" + std::string(code) + "' is neither one of " +
                         (operation == nullptr ? std::string("the operation") : operation->name) +
                         "'s modelled errors [" + modelled + "] nor a common AWS error");
    return;
  }
  if (*common_status != 0 ? http_status != *common_status
                          : http_status < 400 || http_status > 499) {
    violations.push_back("Error " + std::string(code) + " is sent with HTTP " +
                         std::to_string(http_status) + "; it must be " +
                         (*common_status != 0 ? std::to_string(*common_status) : "a 4xx"));
  }
  for (const auto& [key, item] : body.items()) {
    if (key != "__type" && key != "message" && key != "Message") {
      violations.push_back("Member '" + key + "' is not in the common error " + std::string(code));
    } else if (!item.is_string()) {
      violations.push_back("Value " + Quote(item) + " at '" + key +
                           "' failed to satisfy constraint: Member must be a String");
    }
  }
}

}  // namespace

std::vector<std::string> CheckResponse(const Shape& shape, const json& output) {
  std::vector<std::string> violations;
  ResponseChecker(violations).Visit(shape, output, "");
  return violations;
}

std::vector<std::string> CheckResponse(const Operation* operation, int http_status,
                                       const json& body) {
  std::vector<std::string> violations;
  if (http_status >= 400) {
    CheckError(operation, http_status, body, violations);
  } else if (operation == nullptr) {
    violations.push_back("A success (HTTP " + std::to_string(http_status) +
                         ") to a request that names no operation");
  } else {
    if (http_status != operation->success_code) {
      violations.push_back(operation->name + " answers HTTP " +
                           std::to_string(operation->success_code) + ", not " +
                           std::to_string(http_status));
    }
    if (operation->output != nullptr) {
      ResponseChecker(violations).Visit(*operation->output, body, "");
    } else if (!body.is_null() && body != json::object()) {
      violations.push_back(operation->name + " has no output members, yet answered " + Quote(body));
    }
  }
  return violations;
}

std::string DescribeResponseViolations(std::string_view operation,
                                       const std::vector<std::string>& violations) {
  std::string message = "Response check failed for " + std::string(operation) + ": ";
  for (size_t i = 0; i < violations.size(); ++i) {
    if (i > 0) message += "; ";
    message += violations[i];
  }
  return message;
}

}  // namespace smemu::apimodel
