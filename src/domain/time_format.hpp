// Conversions between TimePoint and the two text forms the emulator speaks: ISO 8601 (admin API,
// command line) and epoch seconds (awsJson timestamps). Pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "smemu/clock.hpp"

namespace smemu::domain {

// Reads exactly `width` decimal digits of `text` at `pos` and advances `pos` past them; nullopt
// (and `pos` unchanged) when there are fewer.
std::optional<int> ReadDigits(std::string_view text, size_t& pos, size_t width);

// Accepts `YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]` and a bare date `YYYY-MM-DD` (midnight UTC).
// A time without a zone is taken as UTC. Returns nullopt for anything else, including
// out-of-range fields such as month 13 or February 30.
std::optional<TimePoint> ParseIso8601(std::string_view text);

// `2026-01-31T08:00:00Z`, with `.mmm` before the Z only when the milliseconds are not zero.
std::string FormatIso8601(TimePoint time);

// Epoch seconds (with a millisecond fraction) as AWS JSON timestamps carry them.
double ToEpochSeconds(TimePoint time);
// REQUIRES: seconds is finite. Rounds to the nearest millisecond.
// The times the wire accepts: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
inline constexpr double kEarliestEpochSeconds = -62135596800.0;
inline constexpr double kLatestEpochSeconds = 253402300799.0;
// Clamped to the accepted range (and NaN to 0), so no input can overflow the clock.
TimePoint FromEpochSeconds(double seconds);

}  // namespace smemu::domain
