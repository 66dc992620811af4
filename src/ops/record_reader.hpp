// Strict accessors over a stored document, for the decoders that read members one by one (the
// training plans): every accessor checks the type it reads and throws codec::Unreadable naming
// the member otherwise, so a missing or misspelt member is a StoreFailure (through
// codec::Decoding), never a default.
#pragma once

#include <cstdint>
#include <string>

#include "ops/record_codec.hpp"
#include "smemu/clock.hpp"
#include "store/state_store.hpp"

namespace smemu::ops::codec {

using ReadValue = json;

// The row's document, parsed; Unreadable when it is not JSON or not an object.
class StoredDocument {
 public:
  explicit StoredDocument(const store::ResourceRow& row);
  const ReadValue& Root() const { return document_; }

 private:
  json document_;
};

// The member `name` of `object`; Unreadable when it has none.
const ReadValue& MemberOf(const ReadValue& object, const char* name);
// The same, or nullptr when it has none.
const ReadValue* OptionalMemberOf(const ReadValue& object, const char* name);
// The value as a string, an integer, epoch milliseconds or an array (iterated for its
// elements); Unreadable when it is not.
std::string TextOf(const ReadValue& value, const char* what);
int64_t IntegerOf(const ReadValue& value, const char* what);
TimePoint TimeOf(const ReadValue& value, const char* what);
const ReadValue& ArrayOf(const ReadValue& value, const char* what);

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
inline const ReadValue& ArrayMember(const ReadValue& object, const char* name) {
  return ArrayOf(MemberOf(object, name), name);
}

}  // namespace smemu::ops::codec
