// Writes an answer's JSON text as it goes, with no tree in between, plus the encodings awsJson1_1
// uses, such as timestamps as epoch seconds. For the answers whose trees cost more than the rest
// of their work: the List* summaries, the dashboard's state and the cost report.
//
// nlohmann/json, the one JSON library of src/, has no writer but its tree's serialiser, so strings
// are escaped here, as that serialiser escapes them (RFC 8259: the quote, the backslash and the
// control characters; every other byte as it is), and numbers other than integers are written by
// it, so both paths write the same text.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "smemu/clock.hpp"

namespace smemu::ops {

class JsonWriter {
 public:
  JsonWriter() = default;
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& BeginObject() { return Open('{'); }
  JsonWriter& EndObject() { return Close('}'); }
  JsonWriter& BeginArray() { return Open('['); }
  JsonWriter& EndArray() { return Close(']'); }
  JsonWriter& Key(std::string_view key);

  JsonWriter& String(std::string_view value);
  JsonWriter& Int(int64_t value);
  JsonWriter& Bool(bool value) { return Scalar(value ? "true" : "false"); }
  // Throws std::logic_error for a value that is not finite: JSON has none, so it is a defect in
  // the handler, not a bad request.
  JsonWriter& Double(double value);
  JsonWriter& Null() { return Scalar("null"); }
  // A value already written as JSON text (a request's member kept as it came), copied as it is.
  JsonWriter& Raw(std::string_view json_text) { return Scalar(json_text); }
  // Epoch seconds: whole seconds as an integer, as botocore's own serializer writes them, else
  // with their milliseconds (ops/wire_values.hpp's WriteTimestamp, for trees).
  JsonWriter& Timestamp(TimePoint time);

  // A member: its key, then its value.
  JsonWriter& Member(std::string_view key, std::string_view value) {
    return Key(key).String(value);
  }
  JsonWriter& Member(std::string_view key, const char* value) { return Key(key).String(value); }
  template <std::integral Integer>
  requires(!std::is_same_v<Integer, bool>) JsonWriter& Member(std::string_view key, Integer value) {
    return Key(key).Int(static_cast<int64_t>(value));
  }
  JsonWriter& TimestampMember(std::string_view key, TimePoint time) {
    return Key(key).Timestamp(time);
  }
  // Written only when present (the model's optional members).
  JsonWriter& OptionalMember(std::string_view key, const std::optional<std::string>& value) {
    return value ? Member(key, *value) : *this;
  }
  JsonWriter& OptionalTimestampMember(std::string_view key, const std::optional<TimePoint>& time) {
    return time ? TimestampMember(key, *time) : *this;
  }

  // The text written. Throws std::logic_error unless it is one whole value: every object and
  // array begun was ended.
  std::string Text() const;

 private:
  // Before a value or a key: the comma that parts it from the one before, if any.
  void Separate();
  JsonWriter& Scalar(std::string_view text);
  JsonWriter& Open(char bracket);
  JsonWriter& Close(char bracket);
  void Quoted(std::string_view text);

  std::string text_;
  int depth_ = 0;
  // A value or a closed object or array came last, so what comes next is parted by a comma.
  bool after_value_ = false;
};

}  // namespace smemu::ops
