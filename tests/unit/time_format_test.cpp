#include "domain/time_format.hpp"

#include <gtest/gtest.h>

#include <cmath>

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
