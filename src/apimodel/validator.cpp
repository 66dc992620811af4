#include "apimodel/validator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "domain/time_format.hpp"

namespace smemu::apimodel {
namespace {

using nlohmann::json;
using Type = Shape::Type;

std::string JsonKind(const json& value) {
  switch (value.type()) {
    case json::value_t::string:
      return "STRING_VALUE";
    case json::value_t::boolean:
      return "BOOLEAN_VALUE";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float:
      return "NUMBER_VALUE";
    case json::value_t::object:
      return "Start of structure or map";
    case json::value_t::array:
      return "Start of list";
    default:
      return "NULL_VALUE";
  }
}

std::string TypeName(Type type) {
  switch (type) {
    case Type::kStructure:
      return "a Structure";
    case Type::kList:
      return "a List";
    case Type::kMap:
      return "a Map";
    case Type::kString:
      return "a String";
    case Type::kInteger:
      return "an Integer";
    case Type::kLong:
      return "a Long";
    case Type::kFloat:
      return "a Float";
    case Type::kDouble:
      return "a Double";
    case Type::kBoolean:
      return "a Boolean";
    case Type::kTimestamp:
      return "a Timestamp";
    case Type::kBlob:
      return "a Blob";
  }
  return "a value";
}

// Length as the service counts it: characters, not bytes.
size_t CodePoints(const std::string& text) {
  size_t count = 0;
  for (const char c : text) {
    // The byte's bits, whatever char's signedness: UTF-8 continuation bytes are 10xxxxxx.
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

std::string FormatNumber(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return json(value).dump();
}

// How a rejected value is quoted: strings as written, containers in Java's toString style.
std::string Render(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_array()) {
    std::string out = "[";
    for (size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ", ";
      out += Render(value[i]);
    }
    return out + "]";
  }
  if (value.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [k, v] : value.items()) {
      if (!first) out += ", ";
      first = false;
      out += k + "=" + Render(v);
    }
    return out + "}";
  }
  return value.dump();
}

// The constraints of a string, a collection's size and a number, worded as AWS words them
// ("have length less than or equal to 63"): `broken` is called with each rule the value breaks.
// The request validator and the response checker share them and differ only in how they report.
void CheckLengthRules(const Shape& shape, size_t length, const auto& broken) {
  const auto size = static_cast<double>(length);
  if (shape.max && size > *shape.max) {
    broken("have length less than or equal to " + FormatNumber(*shape.max));
  }
  if (shape.min && size < *shape.min) {
    broken("have length greater than or equal to " + FormatNumber(*shape.min));
  }
}

void CheckStringRules(const Shape& shape, const std::string& text, const auto& broken) {
  if (!shape.enum_values.empty() && std::find(shape.enum_values.begin(), shape.enum_values.end(),
                                              text) == shape.enum_values.end()) {
    std::string set;
    for (const auto& e : shape.enum_values) set += (set.empty() ? "" : ", ") + e;
    broken("satisfy enum value set: [" + set + "]");
  }
  if (shape.pattern && !shape.pattern->Matches(text)) {
    broken("satisfy regular expression pattern: " + shape.pattern->source());
  }
  CheckLengthRules(shape, CodePoints(text), broken);
}

void CheckRangeRules(const Shape& shape, double number, const auto& broken) {
  if (shape.max && number > *shape.max) {
    broken("have value less than or equal to " + FormatNumber(*shape.max));
  }
  if (shape.min && number < *shape.min) {
    broken("have value greater than or equal to " + FormatNumber(*shape.min));
  }
}

class RequestValidator {
 public:
  domain::Status Run(const Shape& shape, const json& input) {
    VisitStructureMembers(shape, input, "");
    if (serialization_error_) return *serialization_error_;
    if (violations_.empty()) return domain::Ok();
    std::string message = std::to_string(violations_.size()) +
                          (violations_.size() == 1 ? " validation error detected: "
                                                   : " validation errors detected: ");
    for (size_t i = 0; i < violations_.size(); ++i) {
      if (i > 0) message += "; ";
      message += violations_[i];
    }
    return domain::ValidationException(message);
  }

 private:
  void Violation(const json* value, const std::string& path, const std::string& rule) {
    const std::string shown =
        value == nullptr ? "null" : "'" + domain::Excerpt(Render(*value)) + "'";
    violations_.push_back("Value " + shown + " at '" + path +
                          "' failed to satisfy constraint: Member must " + rule);
  }

  void WrongType(const json& value, Type expected, const std::string& path) {
    if (serialization_error_) return;
    std::string text = value.is_object() || value.is_array()
                           ? JsonKind(value) + " found where not expected"
                           : JsonKind(value) + " can not be converted to " + TypeName(expected);
    serialization_error_ = domain::SerializationException(text + " (at '" + path + "').");
  }

  static std::string Join(const std::string& path, const std::string& part) {
    return path.empty() ? part : path + "." + part;
  }

  void VisitStructureMembers(const Shape& shape, const json& value, const std::string& path) {
    if (!value.is_object()) {
      WrongType(value, Type::kStructure, path.empty() ? "body" : path);
      return;
    }
    int members_set = 0;
    for (const Member& member : shape.members) {
      const std::string member_path = Join(path, LowerCamel(member.name));
      auto it = value.find(member.name);
      if (it == value.end() || it->is_null()) {
        if (member.required) Violation(nullptr, member_path, "not be null");
        continue;
      }
      ++members_set;
      Visit(*member.shape, *it, member_path);
    }
    if (shape.is_union && members_set > 1) {
      Violation(&value, path, "have exactly one member set");
    }
  }

  void Visit(const Shape& shape, const json& value, const std::string& path) {
    switch (shape.type) {
      case Type::kStructure:
        VisitStructureMembers(shape, value, path);
        return;
      case Type::kList:
        VisitList(shape, value, path);
        return;
      case Type::kMap:
        VisitMap(shape, value, path);
        return;
      case Type::kString:
        if (!value.is_string()) return WrongType(value, shape.type, path);
        CheckString(shape, value, path);
        return;
      case Type::kBlob:
        if (!value.is_string()) return WrongType(value, shape.type, path);
        return;
      case Type::kBoolean:
        if (!value.is_boolean()) return WrongType(value, shape.type, path);
        return;
      case Type::kTimestamp:
        if (!IsEpochSeconds(value)) return WrongType(value, shape.type, path);
        return;
      case Type::kInteger:
      case Type::kLong:
        CheckInteger(shape, value, path);
        return;
      case Type::kFloat:
      case Type::kDouble:
        if (!value.is_number()) return WrongType(value, shape.type, path);
        CheckRange(shape, value, value.get<double>(), path);
        return;
    }
  }

  // Epoch seconds as a number or a numeric string, within the years 1 to 9999: beyond them a
  // time has no ISO 8601 form and would overflow the millisecond clock.
  static bool IsEpochSeconds(const json& value) {
    double seconds = 0;
    if (value.is_number()) {
      seconds = value.get<double>();
    } else if (value.is_string()) {
      const std::string& text = value.get_ref<const std::string&>();
      char* end = nullptr;
      seconds = std::strtod(text.c_str(), &end);
      if (text.empty() || end != text.c_str() + text.size()) return false;
    } else {
      return false;
    }
    return std::isfinite(seconds) && seconds >= domain::kEarliestEpochSeconds &&
           seconds <= domain::kLatestEpochSeconds;
  }

  void VisitList(const Shape& shape, const json& value, const std::string& path) {
    if (!value.is_array()) return WrongType(value, shape.type, path);
    CheckLength(shape, value, value.size(), path);
    for (size_t i = 0; i < value.size(); ++i) {
      const std::string item_path = path + "." + std::to_string(i + 1) + ".member";
      if (value[i].is_null()) {
        Violation(nullptr, item_path, "not be null");
        continue;
      }
      Visit(*shape.member, value[i], item_path);
    }
  }

  void VisitMap(const Shape& shape, const json& value, const std::string& path) {
    if (!value.is_object()) return WrongType(value, shape.type, path);
    CheckLength(shape, value, value.size(), path);
    for (const auto& [key, item] : value.items()) {
      RequestValidator key_check;
      key_check.Visit(*shape.key, json(key), path);
      AppendNested(key_check, value, path, "Map keys");
      if (item.is_null()) {
        Violation(nullptr, Join(path, domain::Excerpt(key)), "not be null");
        continue;
      }
      if (shape.value->type == Type::kStructure || shape.value->type == Type::kList ||
          shape.value->type == Type::kMap) {
        Visit(*shape.value, item, Join(path, domain::Excerpt(key)));
      } else {
        RequestValidator value_check;
        value_check.Visit(*shape.value, item, path);
        AppendNested(value_check, value, path, "Map value");
      }
    }
  }

  // Folds a map key's or scalar value's violations into one entry, as AWS reports them:
  // "... at 'tags' failed to satisfy constraint: Map keys must satisfy constraint: [Member must
  // ...]".
  void AppendNested(const RequestValidator& nested, const json& map, const std::string& path,
                    const std::string& what) {
    if (nested.serialization_error_ && !serialization_error_) {
      serialization_error_ = nested.serialization_error_;
    }
    if (nested.violations_.empty()) return;
    std::string rules;
    for (const std::string& v : nested.violations_) {
      const std::string marker = "failed to satisfy constraint: ";
      const auto pos = v.find(marker);
      if (!rules.empty()) rules += ", ";
      rules += pos == std::string::npos ? v : v.substr(pos + marker.size());
    }
    violations_.push_back("Value '" + domain::Excerpt(Render(map)) + "' at '" + path +
                          "' failed to satisfy constraint: " + what +
                          " must satisfy constraint: [" + rules + "]");
  }

  // Reports each rule `value` breaks at `path`.
  auto Reporter(const json& value, const std::string& path) {
    return [this, &value, &path](const std::string& rule) { Violation(&value, path, rule); };
  }

  void CheckString(const Shape& shape, const json& value, const std::string& path) {
    CheckStringRules(shape, value.get_ref<const std::string&>(), Reporter(value, path));
  }

  void CheckLength(const Shape& shape, const json& value, size_t length, const std::string& path) {
    CheckLengthRules(shape, length, Reporter(value, path));
  }

  void CheckInteger(const Shape& shape, const json& value, const std::string& path) {
    if (!value.is_number_integer()) return WrongType(value, shape.type, path);
    const bool is_int = shape.type == Type::kInteger;
    if (value.is_number_unsigned() &&
        value.get<unsigned long long>() >
            static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
      if (!serialization_error_) {
        serialization_error_ = domain::SerializationException(
            "Numeric value (" + domain::Excerpt(value.dump()) + ") out of range of " +
            (is_int ? "int" : "long") + " (at '" + path + "').");
      }
      return;
    }
    const long long number = value.get<long long>();
    if (is_int &&
        (number > std::numeric_limits<int>::max() || number < std::numeric_limits<int>::min())) {
      if (!serialization_error_) {
        serialization_error_ =
            domain::SerializationException("Numeric value (" + domain::Excerpt(value.dump()) +
                                           ") out of range of int (at '" + path + "').");
      }
      return;
    }
    CheckRange(shape, value, static_cast<double>(number), path);
  }

  void CheckRange(const Shape& shape, const json& value, double number, const std::string& path) {
    CheckRangeRules(shape, number, Reporter(value, path));
  }

  std::vector<std::string> violations_;
  std::optional<domain::AwsError> serialization_error_;
};

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

// The codes any operation may answer besides its modelled errors, with the HTTP status each must
// carry (0: any 4xx).
//
// Source: AWS's list of errors common to the API actions of all AWS services ("Common Errors",
// https://docs.aws.amazon.com/awsconsolehelpdocs/latest/gsg/common-errors.html, and the
// CommonErrors page of each service's API reference). The lists differ between editions in the
// status of AccessDeniedException, IncompleteSignature and NotAuthorized (400, 401 or 403), so
// those are held to "a 4xx" only. Older editions (AWS Query services) add InvalidAction,
// InvalidClientTokenId, InvalidParameter*, MissingAction, MissingParameter,
// MissingAuthenticationToken, which are kept for completeness.
//
// awsJson1_1 services (SageMaker, DynamoDB, Kinesis) also answer with their framework's codes:
// ValidationException (SageMaker's code for invalid input and missing resources,
// docs/api-facts.md section 1.2), SerializationException (a body that does not parse into the
// input shape), IncompleteSignatureException, InvalidSignatureException and
// MissingAuthenticationTokenException (SigV4 refusals). Last come the codes the emulator's own
// transport sends, which no AWS list names: MethodNotAllowedException (405, a method the route
// does not serve), BadRequestException (400, malformed HTTP) and
// RequestHeaderFieldsTooLargeException (431).
struct CommonError {
  std::string_view code;
  int status;
};
constexpr CommonError kCommonErrors[] = {
    {"AccessDeniedException", 0},
    {"ExpiredTokenException", 0},
    {"IncompleteSignature", 0},
    {"InternalFailure", 500},
    {"MalformedHttpRequestException", 400},
    {"NotAuthorized", 0},
    {"OptInRequired", 403},
    {"RequestAbortedException", 400},
    {"RequestEntityTooLargeException", 413},
    {"RequestExpired", 0},
    {"RequestTimeoutException", 408},
    {"ServiceUnavailable", 503},
    {"ThrottlingException", 0},
    {"UnrecognizedClientException", 0},
    {"UnknownOperationException", 0},
    {"ValidationError", 400},
    {"InvalidAction", 400},
    {"InvalidClientTokenId", 403},
    {"InvalidParameterCombination", 400},
    {"InvalidParameterValue", 400},
    {"InvalidQueryParameter", 400},
    {"MissingAction", 400},
    {"MissingParameter", 400},
    {"MissingAuthenticationToken", 403},
    // awsJson1_1 framework codes
    {"ValidationException", 400},
    {"SerializationException", 400},
    {"IncompleteSignatureException", 0},
    {"InvalidSignatureException", 0},
    {"MissingAuthenticationTokenException", 0},
    // the emulator's transport
    {"MethodNotAllowedException", 405},
    {"BadRequestException", 400},
    {"RequestHeaderFieldsTooLargeException", 431},
};

const CommonError* FindCommonError(std::string_view code) {
  for (const CommonError& common : kCommonErrors) {
    if (common.code == code) return &common;
  }
  return nullptr;
}

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
  const CommonError* common = FindCommonError(code);
  if (common == nullptr) {
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
  if (common->status != 0 ? http_status != common->status
                          : http_status < 400 || http_status > 499) {
    violations.push_back("Error " + std::string(code) + " is sent with HTTP " +
                         std::to_string(http_status) + "; it must be " +
                         (common->status != 0 ? std::to_string(common->status) : "a 4xx"));
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

std::string LowerCamel(const std::string& member_name) {
  std::string out = member_name;
  if (!out.empty()) out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
  return out;
}

domain::Status ValidateRequest(const Shape& shape, const json& input) {
  return RequestValidator().Run(shape, input);
}

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

bool IsCommonError(std::string_view code) { return FindCommonError(code) != nullptr; }

std::optional<int> CommonErrorStatus(std::string_view code) {
  const CommonError* common = FindCommonError(code);
  if (common == nullptr) return std::nullopt;
  return common->status;
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

void KeepModelledMembers(const Shape& shape, nlohmann::json& value) {
  switch (shape.type) {
    case Type::kStructure:
      if (!value.is_object()) return;
      for (auto it = value.begin(); it != value.end();) {
        const Member* member = shape.FindMember(it.key());
        if (member == nullptr || it->is_null()) {
          it = value.erase(it);
        } else {
          KeepModelledMembers(*member->shape, *it);
          ++it;
        }
      }
      return;
    case Type::kList:
      if (!value.is_array()) return;
      for (nlohmann::json& element : value) KeepModelledMembers(*shape.member, element);
      return;
    case Type::kMap:
      if (!value.is_object()) return;
      for (auto it = value.begin(); it != value.end();) {
        if (it->is_null()) {
          it = value.erase(it);
        } else {
          KeepModelledMembers(*shape.value, *it);
          ++it;
        }
      }
      return;
    default:
      return;
  }
}

}  // namespace smemu::apimodel
