// Writes an answer's JSON text as it goes, with no tree in between: RapidJSON's writer (string
// escaping, shortest round-trip doubles) plus the encodings awsJson1_1 uses, such as timestamps
// as epoch seconds. For the answers whose trees cost more than the rest of their work: the List*
// summaries.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "ops/rapidjson.hpp"
#include "smemu/clock.hpp"

namespace smemu::ops {

class JsonWriter {
 public:
  JsonWriter() : writer_(buffer_) {}
  JsonWriter(const JsonWriter&) = delete;
  JsonWriter& operator=(const JsonWriter&) = delete;

  JsonWriter& BeginObject() { return Did(writer_.StartObject()); }
  JsonWriter& EndObject() { return Did(writer_.EndObject()); }
  JsonWriter& BeginArray() { return Did(writer_.StartArray()); }
  JsonWriter& EndArray() { return Did(writer_.EndArray()); }
  JsonWriter& Key(std::string_view key) {
    return Did(writer_.Key(key.data(), static_cast<rapidjson::SizeType>(key.size())));
  }

  JsonWriter& String(std::string_view value) {
    return Did(writer_.String(value.data(), static_cast<rapidjson::SizeType>(value.size())));
  }
  JsonWriter& Int(int64_t value) { return Did(writer_.Int64(value)); }
  JsonWriter& Bool(bool value) { return Did(writer_.Bool(value)); }
  JsonWriter& Double(double value) { return Did(writer_.Double(value)); }
  JsonWriter& Null() { return Did(writer_.Null()); }
  // A value already written as JSON text (a request's member kept as it came), copied as it is.
  JsonWriter& Raw(std::string_view json_text) {
    return Did(writer_.RawValue(json_text.data(), json_text.size(), rapidjson::kObjectType));
  }
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

  // The text written. REQUIRES: every object and array begun was ended.
  std::string Text() const;

 private:
  JsonWriter& Did(bool written);

  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> writer_;
};

}  // namespace smemu::ops
