#include "ops/record_reader.hpp"

namespace smemu::ops::codec {

StoredDocument::StoredDocument(const store::ResourceRow& row) {
  document_.Parse(row.doc.data(), row.doc.size());
  if (document_.HasParseError()) {
    throw Unreadable(std::string("not JSON: ") +
                     rapidjson::GetParseError_En(document_.GetParseError()) + " at byte " +
                     std::to_string(document_.GetErrorOffset()));
  }
  if (!document_.IsObject()) throw Unreadable("the document is not a JSON object");
}

const ReadValue* OptionalMemberOf(const ReadValue& object, const char* name) {
  if (!object.IsObject()) throw Unreadable(std::string("not an object where '") + name + "' is");
  const auto member = object.FindMember(name);
  return member == object.MemberEnd() ? nullptr : &member->value;
}

const ReadValue& MemberOf(const ReadValue& object, const char* name) {
  const ReadValue* value = OptionalMemberOf(object, name);
  if (value == nullptr) throw Unreadable(std::string("member '") + name + "' is missing");
  return *value;
}

std::string TextOf(const ReadValue& value, const char* what) {
  if (!value.IsString()) throw Unreadable(std::string("'") + what + "' is not a string");
  return std::string(value.GetString(), value.GetStringLength());
}

int64_t IntegerOf(const ReadValue& value, const char* what) {
  if (!value.IsInt64()) throw Unreadable(std::string("'") + what + "' is not an integer");
  return value.GetInt64();
}

TimePoint TimeOf(const ReadValue& value, const char* what) {
  return TimePoint{Millis{IntegerOf(value, what)}};
}

ReadValue::ConstArray ArrayOf(const ReadValue& value, const char* what) {
  if (!value.IsArray()) throw Unreadable(std::string("'") + what + "' is not an array");
  return value.GetArray();
}

}  // namespace smemu::ops::codec
