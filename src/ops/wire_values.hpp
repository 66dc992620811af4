// Reading and writing the scalar encodings awsJson1_1 uses, for the handlers: timestamps are epoch
// seconds (numbers; numeric strings are tolerated), page tokens are base64.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "smemu/clock.hpp"

namespace smemu::ops {

// REQUIRES: `value` passed model validation as a timestamp (a number or a numeric string).
TimePoint ReadTimestamp(const nlohmann::json& value);
// The member `name` of `input` as a time, if present and not null.
std::optional<TimePoint> OptionalTimestamp(const nlohmann::json& input, const char* name);
nlohmann::json WriteTimestamp(TimePoint time);

std::string Base64Encode(const std::string& bytes);
// nullopt when `text` is not valid base64.
std::optional<std::string> Base64Decode(const std::string& text);

}  // namespace smemu::ops
