#include "ops/record_reader.hpp"

#include <cstdint>

namespace smemu::ops::codec {

StoredDocument::StoredDocument(const store::ResourceRow& row) {
  try {
    document_ = json::parse(row.doc);
  } catch (const json::parse_error& e) {
    throw Unreadable(std::string("not JSON: ") + e.what());
  }
  if (!document_.is_object()) throw Unreadable("the document is not a JSON object");
}

const ReadValue* OptionalMemberOf(const ReadValue& object, const char* name) {
  if (!object.is_object()) throw Unreadable(std::string("not an object where '") + name + "' is");
  const auto member = object.find(name);
  return member == object.end() ? nullptr : &*member;
}

const ReadValue& MemberOf(const ReadValue& object, const char* name) {
  const ReadValue* value = OptionalMemberOf(object, name);
  if (value == nullptr) throw Unreadable(std::string("member '") + name + "' is missing");
  return *value;
}

std::string TextOf(const ReadValue& value, const char* what) {
  if (!value.is_string()) throw Unreadable(std::string("'") + what + "' is not a string");
  return value.get_ref<const std::string&>();
}

int64_t IntegerOf(const ReadValue& value, const char* what) {
  // An unsigned value is one too large for int64_t: nlohmann keeps the others signed.
  const bool too_large = value.is_number_unsigned() && value.get<uint64_t>() > uint64_t{INT64_MAX};
  if (!value.is_number_integer() || too_large) {
    throw Unreadable(std::string("'") + what + "' is not an integer");
  }
  return value.get<int64_t>();
}

TimePoint TimeOf(const ReadValue& value, const char* what) {
  return TimePoint{Millis{IntegerOf(value, what)}};
}

const ReadValue& ArrayOf(const ReadValue& value, const char* what) {
  if (!value.is_array()) throw Unreadable(std::string("'") + what + "' is not an array");
  return value;
}

}  // namespace smemu::ops::codec
