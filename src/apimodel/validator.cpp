#include "apimodel/validator.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

#include "apimodel/validator_rules.hpp"
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

}  // namespace

std::string LowerCamel(const std::string& member_name) {
  std::string out = member_name;
  if (!out.empty()) out[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(out[0])));
  return out;
}

domain::Status ValidateRequest(const Shape& shape, const json& input) {
  return RequestValidator().Run(shape, input);
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
