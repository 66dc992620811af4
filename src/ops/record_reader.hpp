// Reading a stored document without building an nlohmann tree, for the records that are read by
// the thousand: every training plan, each time the dashboard's state and cost views are drawn.
// RapidJSON parses a plan's document several times faster than nlohmann builds its tree (a
// profile of the state view at 10,000 plans: 38% of its time was that tree). Every accessor
// checks the type it reads and throws codec::Unreadable naming the member otherwise, so a decoder
// built on them fails as the nlohmann ones do (codec::Decoding turns it into a StoreFailure).
#pragma once

#include <cstdint>
#include <string>

#include "ops/rapidjson.hpp"
#include "ops/record_codec.hpp"
#include "smemu/clock.hpp"
#include "store/state_store.hpp"

namespace smemu::ops::codec {

using ReadValue = rapidjson::Value;

// The row's document, parsed; Unreadable when it is not JSON or not an object.
class StoredDocument {
 public:
  explicit StoredDocument(const store::ResourceRow& row);
  const ReadValue& Root() const { return document_; }

 private:
  rapidjson::Document document_;
};

// The member `name` of `object`; Unreadable when it has none.
const ReadValue& MemberOf(const ReadValue& object, const char* name);
// The same, or nullptr when it has none.
const ReadValue* OptionalMemberOf(const ReadValue& object, const char* name);
// The value as a string, an integer, epoch milliseconds or an array; Unreadable when it is not.
std::string TextOf(const ReadValue& value, const char* what);
int64_t IntegerOf(const ReadValue& value, const char* what);
TimePoint TimeOf(const ReadValue& value, const char* what);
ReadValue::ConstArray ArrayOf(const ReadValue& value, const char* what);

// The member's value, read by one of the above.
inline std::string TextMember(const ReadValue& object, const char* name) {
  return TextOf(MemberOf(object, name), name);
}
inline int64_t IntegerMember(const ReadValue& object, const char* name) {
  return IntegerOf(MemberOf(object, name), name);
}
inline TimePoint TimeMember(const ReadValue& object, const char* name) {
  return TimeOf(MemberOf(object, name), name);
}
inline ReadValue::ConstArray ArrayMember(const ReadValue& object, const char* name) {
  return ArrayOf(MemberOf(object, name), name);
}

}  // namespace smemu::ops::codec
