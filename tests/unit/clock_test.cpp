#include "smemu/clock.hpp"

#include <gtest/gtest.h>

namespace smemu {
namespace {

const TimePoint kStart{Millis{1800835200000}};

TEST(VirtualClock, RunsWithTheBaseClockFromItsStart) {
  ManualClock base(TimePoint{Millis{1000}});
  VirtualClock clock(base, kStart, /*frozen=*/false);
  EXPECT_EQ(clock.Now(), kStart);
  base.Advance(Millis{1500});
  EXPECT_EQ(clock.Now(), kStart + Millis{1500});
}

TEST(VirtualClock, FrozenClockIgnoresTheBaseClock) {
  ManualClock base(TimePoint{Millis{1000}});
  VirtualClock clock(base, kStart, /*frozen=*/true);
  base.Advance(Millis{60000});
  EXPECT_EQ(clock.Now(), kStart);
  clock.Advance(Millis{3600000});
  EXPECT_EQ(clock.Now(), kStart + Millis{3600000});
  EXPECT_TRUE(clock.GetState().frozen);
}

TEST(VirtualClock, SetRefusesToGoBackwards) {
  ManualClock base(TimePoint{Millis{0}});
  VirtualClock clock(base, kStart, /*frozen=*/true);
  EXPECT_FALSE(clock.Set(kStart - Millis{1}));
  EXPECT_EQ(clock.Now(), kStart);
  EXPECT_TRUE(clock.Set(kStart + Millis{5}));
  EXPECT_EQ(clock.Now(), kStart + Millis{5});
}

TEST(VirtualClock, UnfreezingResumesFromTheFrozenInstant) {
  ManualClock base(TimePoint{Millis{0}});
  VirtualClock clock(base, kStart, /*frozen=*/true);
  base.Advance(Millis{10000});
  clock.SetFrozen(false);
  EXPECT_EQ(clock.Now(), kStart);
  base.Advance(Millis{250});
  EXPECT_EQ(clock.Now(), kStart + Millis{250});
  clock.SetFrozen(true);
  base.Advance(Millis{250});
  EXPECT_EQ(clock.Now(), kStart + Millis{250});
}

}  // namespace
}  // namespace smemu
