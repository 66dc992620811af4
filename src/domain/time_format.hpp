// Conversions between TimePoint and the two text forms the emulator speaks: ISO 8601 (admin API,
// command line) and epoch seconds (awsJson timestamps). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "smemu/clock.hpp"

namespace smemu::domain {

// Accepts `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` and a bare date `YYYY-MM-DD` (midnight UTC).
// A time without a zone is taken as UTC. Returns nullopt for anything else, including
// out-of-range fields such as month 13 or February 30.
std::optional<TimePoint> ParseIso8601(std::string_view text);

// `2026-01-31T08:00:00Z`, with `.mmm` before the Z only when the milliseconds are not zero.
std::string FormatIso8601(TimePoint time);

// Epoch seconds (with a millisecond fraction) as AWS JSON timestamps carry them.
double ToEpochSeconds(TimePoint time);
// REQUIRES: seconds is finite. Rounds to the nearest millisecond.
TimePoint FromEpochSeconds(double seconds);

}  // namespace smemu::domain
