#include "domain/time_format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>

namespace smemu::domain {
namespace {

TimePoint At(long long epoch_ms) { return TimePoint{Millis{epoch_ms}}; }

TEST(TimeFormat, ParsesUtcWithAndWithoutFraction) {
  EXPECT_EQ(ParseIso8601("2027-01-25T00:00:00Z"), At(1800835200000));
  EXPECT_EQ(ParseIso8601("2027-01-25T00:00:00.250Z"), At(1800835200250));
  EXPECT_EQ(ParseIso8601("2027-01-25T00:00:00"), At(1800835200000));
  EXPECT_EQ(ParseIso8601("2027-01-25"), At(1800835200000));
}

TEST(TimeFormat, AppliesZoneOffsets) {
  EXPECT_EQ(ParseIso8601("2027-01-25T02:00:00+02:00"), At(1800835200000));
  EXPECT_EQ(ParseIso8601("2027-01-24T19:00:00-0500"), At(1800835200000));
}

TEST(TimeFormat, RefusesMalformedAndOutOfRange) {
  for (const char* bad :
       {"", "2027", "2027-13-01", "2027-02-30", "2027-01-25T24:00:00Z", "2027-01-25T00:00:00Q",
        "2027-01-25T00:00", "next tuesday", "2027-01-25T00:00:00.Z", "2027-01-25T00:00:00Zjunk"}) {
    EXPECT_FALSE(ParseIso8601(bad).has_value()) << bad;
  }
}

TEST(TimeFormat, FormatsWithMillisecondsOnlyWhenPresent) {
  EXPECT_EQ(FormatIso8601(At(1800835200000)), "2027-01-25T00:00:00Z");
  EXPECT_EQ(FormatIso8601(At(1800835200007)), "2027-01-25T00:00:00.007Z");
}

// Checked against the C library's own calendar (gmtime_r, strftime) at times spread from 1970 to
// beyond 9999, with and without milliseconds, and parsed back.
TEST(TimeFormat, FormatsAsTheCLibrarysCalendarDoes) {
  std::mt19937_64 random(20261205);
  std::uniform_int_distribution<long long> seconds(0, 253402300799LL + 400LL * 86400 * 366);
  for (int i = 0; i < 20000; ++i) {
    const long long second = seconds(random);
    const long long millis = i % 3 == 0 ? 0 : static_cast<long long>(random() % 1000);
    const std::time_t as_time_t = static_cast<std::time_t>(second);
    std::tm parts{};
    ASSERT_NE(gmtime_r(&as_time_t, &parts), nullptr);
    char expected[64];
    std::strftime(expected, sizeof expected, "%Y-%m-%dT%H:%M:%S", &parts);
    std::string text = expected;
    if (parts.tm_year + 1900 < 10000) {  // strftime does not pad a five-digit year
      if (millis != 0) {
        char fraction[8];
        std::snprintf(fraction, sizeof fraction, ".%03lld", millis);
        text += fraction;
      }
      text += "Z";
      const TimePoint time = At(second * 1000 + millis);
      ASSERT_EQ(FormatIso8601(time), text) << second << " " << millis;
      EXPECT_EQ(ParseIso8601(text), time) << text;
    } else {
      EXPECT_EQ(FormatIso8601(At(second * 1000)).substr(0, 6), text.substr(0, 6)) << second;
    }
  }
}

TEST(TimeFormat, EpochSecondsRoundTrip) {
  EXPECT_DOUBLE_EQ(ToEpochSeconds(At(1767225600123)), 1767225600.123);
  EXPECT_EQ(FromEpochSeconds(1767225600.123), At(1767225600123));
  EXPECT_EQ(FromEpochSeconds(1767225600), At(1767225600000));
  // No input overflows the clock: out-of-range times are clamped, NaN is the epoch.
  EXPECT_EQ(FromEpochSeconds(1e300), FromEpochSeconds(kLatestEpochSeconds));
  EXPECT_EQ(FromEpochSeconds(-1e300), FromEpochSeconds(kEarliestEpochSeconds));
  EXPECT_EQ(FromEpochSeconds(std::nan("")), At(0));
}

}  // namespace
}  // namespace smemu::domain
