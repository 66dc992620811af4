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
  // RapidJSON refuses a double that is not finite (JSON has none): a defect in the handler, not a
  // bad request. Text() refuses an object or array left open.
  if (!written) throw std::logic_error("JsonWriter: a number that is not finite");
  return *this;
}

}  // namespace smemu::ops
