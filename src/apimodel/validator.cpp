#include "apimodel/validator.hpp"

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>

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
  for (unsigned char c : text) {
    if ((c & 0xC0) != 0x80) ++count;
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
    const std::string shown = value == nullptr ? "null" : "'" + Render(*value) + "'";
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
        Violation(nullptr, Join(path, key), "not be null");
        continue;
      }
      if (shape.value->type == Type::kStructure || shape.value->type == Type::kList ||
          shape.value->type == Type::kMap) {
        Visit(*shape.value, item, Join(path, key));
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
    violations_.push_back("Value '" + Render(map) + "' at '" + path +
                          "' failed to satisfy constraint: " + what +
                          " must satisfy constraint: [" + rules + "]");
  }

  void CheckString(const Shape& shape, const json& value, const std::string& path) {
    const std::string& text = value.get_ref<const std::string&>();
    if (!shape.enum_values.empty() && std::find(shape.enum_values.begin(), shape.enum_values.end(),
                                                text) == shape.enum_values.end()) {
      std::string set;
      for (const auto& e : shape.enum_values) set += (set.empty() ? "" : ", ") + e;
      Violation(&value, path, "satisfy enum value set: [" + set + "]");
    }
    if (shape.pattern && !shape.pattern->Matches(text)) {
      Violation(&value, path, "satisfy regular expression pattern: " + shape.pattern->source());
    }
    CheckLength(shape, value, CodePoints(text), path);
  }

  void CheckLength(const Shape& shape, const json& value, size_t length, const std::string& path) {
    const auto size = static_cast<double>(length);
    if (shape.max && size > *shape.max) {
      Violation(&value, path, "have length less than or equal to " + FormatNumber(*shape.max));
    }
    if (shape.min && size < *shape.min) {
      Violation(&value, path, "have length greater than or equal to " + FormatNumber(*shape.min));
    }
  }

  void CheckInteger(const Shape& shape, const json& value, const std::string& path) {
    if (!value.is_number_integer()) return WrongType(value, shape.type, path);
    const bool is_int = shape.type == Type::kInteger;
    if (value.is_number_unsigned() &&
        value.get<unsigned long long>() >
            static_cast<unsigned long long>(std::numeric_limits<long long>::max())) {
      if (!serialization_error_) {
        serialization_error_ =
            domain::SerializationException("Numeric value (" + value.dump() + ") out of range of " +
                                           (is_int ? "int" : "long") + " (at '" + path + "').");
      }
      return;
    }
    const long long number = value.get<long long>();
    if (is_int &&
        (number > std::numeric_limits<int>::max() || number < std::numeric_limits<int>::min())) {
      if (!serialization_error_) {
        serialization_error_ = domain::SerializationException(
            "Numeric value (" + value.dump() + ") out of range of int (at '" + path + "').");
      }
      return;
    }
    CheckRange(shape, value, static_cast<double>(number), path);
  }

  void CheckRange(const Shape& shape, const json& value, double number, const std::string& path) {
    if (shape.max && number > *shape.max) {
      Violation(&value, path, "have value less than or equal to " + FormatNumber(*shape.max));
    }
    if (shape.min && number < *shape.min) {
      Violation(&value, path, "have value greater than or equal to " + FormatNumber(*shape.min));
    }
  }

  std::vector<std::string> violations_;
  std::optional<domain::AwsError> serialization_error_;
};

void CheckResponseValue(const Shape& shape, const json& value, const std::string& path,
                        std::vector<std::string>& problems) {
  auto wrong = [&](const std::string& what) {
    problems.push_back(path + ": expected " + what + ", got " + value.dump());
  };
  switch (shape.type) {
    case Type::kStructure:
      if (!value.is_object()) return wrong("a structure");
      for (const Member& member : shape.members) {
        if (member.required && !value.contains(member.name)) {
          problems.push_back(path + "." + member.name + ": required member missing");
        }
      }
      for (const auto& [key, item] : value.items()) {
        const Member* member = shape.FindMember(key);
        if (member == nullptr) {
          problems.push_back(path + "." + key + ": not a member of " + shape.name);
        } else if (item.is_null()) {
          problems.push_back(path + "." + key + ": null (leave the member out instead)");
        } else {
          CheckResponseValue(*member->shape, item, path + "." + key, problems);
        }
      }
      return;
    case Type::kList:
      if (!value.is_array()) return wrong("a list");
      for (size_t i = 0; i < value.size(); ++i) {
        CheckResponseValue(*shape.member, value[i], path + "[" + std::to_string(i) + "]", problems);
      }
      return;
    case Type::kMap:
      if (!value.is_object()) return wrong("a map");
      for (const auto& [key, item] : value.items()) {
        CheckResponseValue(*shape.value, item, path + "." + key, problems);
      }
      return;
    case Type::kString:
      if (!value.is_string()) return wrong("a string");
      if (!shape.enum_values.empty() &&
          std::find(shape.enum_values.begin(), shape.enum_values.end(), value.get<std::string>()) ==
              shape.enum_values.end()) {
        problems.push_back(path + ": " + value.dump() + " is not in enum " + shape.name);
      }
      return;
    case Type::kBlob:
      if (!value.is_string()) return wrong("a base64 string");
      return;
    case Type::kBoolean:
      if (!value.is_boolean()) return wrong("a boolean");
      return;
    case Type::kTimestamp:
      if (!value.is_number()) return wrong("epoch seconds as a number");
      return;
    case Type::kInteger:
    case Type::kLong:
      if (!value.is_number_integer()) return wrong("an integer");
      return;
    case Type::kFloat:
    case Type::kDouble:
      if (!value.is_number()) return wrong("a number");
      return;
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
  std::vector<std::string> problems;
  CheckResponseValue(shape, output, shape.name, problems);
  return problems;
}

}  // namespace smemu::apimodel
