#include "domain/time_format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

namespace smemu::domain {

std::optional<int> ReadDigits(std::string_view text, size_t& pos, size_t width) {
  if (pos + width > text.size()) return std::nullopt;
  int value = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = text[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  pos += width;
  return value;
}

namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

bool Expect(std::string_view text, size_t& pos, char c) {
  if (pos < text.size() && text[pos] == c) {
    ++pos;
    return true;
  }
  return false;
}

// Writes `value` as `width` decimal digits, zero-padded, ending just before `end`.
void PutDigits(char* end, long long value, int width) {
  for (int i = 0; i < width; ++i) {
    *--end = static_cast<char>('0' + value % 10);
    value /= 10;
  }
}

}  // namespace

std::optional<TimePoint> ParseIso8601(std::string_view text) {
  size_t pos = 0;
  auto year = ReadDigits(text, pos, 4);
  if (!year || !Expect(text, pos, '-')) return std::nullopt;
  auto month = ReadDigits(text, pos, 2);
  if (!month || !Expect(text, pos, '-')) return std::nullopt;
  auto day = ReadDigits(text, pos, 2);
  if (!day) return std::nullopt;
  const std::chrono::year_month_day date{std::chrono::year{*year},
                                         std::chrono::month{static_cast<unsigned>(*month)},
                                         std::chrono::day{static_cast<unsigned>(*day)}};
  if (!date.ok()) return std::nullopt;
  TimePoint result = std::chrono::time_point_cast<Millis>(std::chrono::sys_days{date});
  if (pos == text.size()) return result;

  if (!Expect(text, pos, 'T') && !Expect(text, pos, 't') && !Expect(text, pos, ' ')) {
    return std::nullopt;
  }
  auto hour = ReadDigits(text, pos, 2);
  if (!hour || !Expect(text, pos, ':')) return std::nullopt;
  auto minute = ReadDigits(text, pos, 2);
  if (!minute || !Expect(text, pos, ':')) return std::nullopt;
  auto second = ReadDigits(text, pos, 2);
  if (!second || *hour > 23 || *minute > 59 || *second > 59) return std::nullopt;
  result += hours{*hour} + minutes{*minute} + seconds{*second};

  if (Expect(text, pos, '.')) {
    int millis = 0;
    size_t digits = 0;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (digits < 3) millis = millis * 10 + (text[pos] - '0');
      ++digits;
      ++pos;
    }
    if (digits == 0) return std::nullopt;
    for (size_t i = digits; i < 3; ++i) millis *= 10;
    result += Millis{millis};
  }

  if (pos == text.size() || Expect(text, pos, 'Z') || Expect(text, pos, 'z')) {
    return pos == text.size() ? std::optional(result) : std::nullopt;
  }
  const char sign = text[pos];
  if (sign != '+' && sign != '-') return std::nullopt;
  ++pos;
  auto offset_hours = ReadDigits(text, pos, 2);
  if (!offset_hours) return std::nullopt;
  Expect(text, pos, ':');
  auto offset_minutes = ReadDigits(text, pos, 2);
  if (!offset_minutes || pos != text.size() || *offset_hours > 23 || *offset_minutes > 59) {
    return std::nullopt;
  }
  const auto offset = hours{*offset_hours} + minutes{*offset_minutes};
  return sign == '+' ? result - offset : result + offset;
}

std::string FormatIso8601(TimePoint time) {
  const auto day_start = std::chrono::floor<std::chrono::days>(time);
  const std::chrono::year_month_day date{day_start};
  const std::chrono::hh_mm_ss<Millis> clock_time{time - day_start};
  const int year = static_cast<int>(date.year());
  const long long millis = clock_time.subseconds().count();
  if (year < 0 || year > 9999) {  // outside four digits: printf's widening, as before
    char buffer[48];
    std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02lld:%02lld:%02lld.%03lldZ", year,
                  static_cast<unsigned>(date.month()), static_cast<unsigned>(date.day()),
                  static_cast<long long>(clock_time.hours().count()),
                  static_cast<long long>(clock_time.minutes().count()),
                  static_cast<long long>(clock_time.seconds().count()), millis);
    std::string text = buffer;
    if (millis == 0) text.erase(text.size() - 5, 4);  // no ".000"
    return text;
  }
  // Written digit by digit: snprintf was a tenth of the dashboard's state view (10,000 plans).
  std::string text = millis == 0 ? "0000-00-00T00:00:00Z" : "0000-00-00T00:00:00.000Z";
  char* begin = text.data();
  PutDigits(begin + 4, year, 4);
  PutDigits(begin + 7, static_cast<unsigned>(date.month()), 2);
  PutDigits(begin + 10, static_cast<unsigned>(date.day()), 2);
  PutDigits(begin + 13, clock_time.hours().count(), 2);
  PutDigits(begin + 16, clock_time.minutes().count(), 2);
  PutDigits(begin + 19, clock_time.seconds().count(), 2);
  if (millis != 0) PutDigits(begin + 23, millis, 3);
  return text;
}

double ToEpochSeconds(TimePoint time) {
  return static_cast<double>(time.time_since_epoch().count()) / 1000.0;
}

TimePoint FromEpochSeconds(double seconds) {
  if (std::isnan(seconds)) seconds = 0;
  seconds = std::clamp(seconds, kEarliestEpochSeconds, kLatestEpochSeconds);
  return TimePoint{Millis{static_cast<long long>(std::llround(seconds * 1000.0))}};
}

}  // namespace smemu::domain
