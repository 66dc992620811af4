#include "ops/json_writer.hpp"

#include <stdexcept>

#include "domain/time_format.hpp"

namespace smemu::ops {

JsonWriter& JsonWriter::Timestamp(TimePoint time) {
  const auto millis = time.time_since_epoch().count();
  if (millis % 1000 == 0) return Int(millis / 1000);
  return Double(domain::ToEpochSeconds(time));
}

std::string JsonWriter::Text() const {
  if (!writer_.IsComplete()) throw std::logic_error("JsonWriter: an object or array is open");
  return std::string(buffer_.GetString(), buffer_.GetSize());
}

JsonWriter& JsonWriter::Did(bool written) {
  // RapidJSON refuses only what its caller got wrong (a value where a key belongs, a double
  // that is not finite): a defect here, not a bad request.
  if (!written) throw std::logic_error("JsonWriter: a value out of place or not finite");
  return *this;
}

}  // namespace smemu::ops
