#include "ops/json_writer.hpp"

#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "domain/time_format.hpp"

namespace smemu::ops {

namespace {

// The escape of a byte that may not stand as it is in a JSON string, or nullptr for the others.
// Control characters without a short escape are \u00xx, in lower case as nlohmann writes them.
const char* EscapeOf(unsigned char byte, char (&spelt)[7]) {
  switch (byte) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      break;
  }
  if (byte >= 0x20) return nullptr;
  static constexpr char kHex[] = "0123456789abcdef";
  spelt[0] = '\\';
  spelt[1] = 'u';
  spelt[2] = '0';
  spelt[3] = '0';
  spelt[4] = kHex[byte >> 4];
  spelt[5] = kHex[byte & 0xf];
  spelt[6] = '\0';
  return spelt;
}

}  // namespace

void JsonWriter::Separate() {
  if (after_value_) text_ += ',';
}

void JsonWriter::Quoted(std::string_view text) {
  text_ += '"';
  // Runs of bytes that need no escape (nearly every string) are copied in one append.
  size_t run_start = 0;
  char spelt[7];
  for (size_t i = 0; i < text.size(); ++i) {
    const char* escape = EscapeOf(static_cast<unsigned char>(text[i]), spelt);
    if (escape == nullptr) continue;
    text_.append(text.data() + run_start, i - run_start);
    text_ += escape;
    run_start = i + 1;
  }
  text_.append(text.data() + run_start, text.size() - run_start);
  text_ += '"';
}

JsonWriter& JsonWriter::Key(std::string_view key) {
  Separate();
  Quoted(key);
  text_ += ':';
  after_value_ = false;
  return *this;
}

JsonWriter& JsonWriter::String(std::string_view value) {
  Separate();
  Quoted(value);
  after_value_ = true;
  return *this;
}

JsonWriter& JsonWriter::Scalar(std::string_view text) {
  Separate();
  text_ += text;
  after_value_ = true;
  return *this;
}

JsonWriter& JsonWriter::Int(int64_t value) {
  char digits[24];
  const auto written = std::to_chars(std::begin(digits), std::end(digits), value);
  return Scalar(std::string_view(digits, static_cast<size_t>(written.ptr - digits)));
}

JsonWriter& JsonWriter::Double(double value) {
  if (!std::isfinite(value)) throw std::logic_error("JsonWriter: a number that is not finite");
  return Scalar(nlohmann::json(value).dump());
}

JsonWriter& JsonWriter::Open(char bracket) {
  Separate();
  text_ += bracket;
  ++depth_;
  after_value_ = false;
  return *this;
}

JsonWriter& JsonWriter::Close(char bracket) {
  if (depth_ == 0) throw std::logic_error("JsonWriter: a close without an open");
  text_ += bracket;
  --depth_;
  after_value_ = true;
  return *this;
}

JsonWriter& JsonWriter::Timestamp(TimePoint time) {
  const auto millis = time.time_since_epoch().count();
  if (millis % 1000 == 0) return Int(millis / 1000);
  return Double(domain::ToEpochSeconds(time));
}

std::string JsonWriter::Text() const {
  if (depth_ != 0 || text_.empty()) {
    throw std::logic_error("JsonWriter: an object or array is open");
  }
  return text_;
}

}  // namespace smemu::ops
