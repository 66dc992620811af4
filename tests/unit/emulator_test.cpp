#include "ops/emulator.hpp"

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace smemu::ops {
namespace {

const TimePoint kStart{Millis{1800835200000}};

TEST(Emulator, ARunningClockKeepsItsOffsetAcrossARestart) {
  testing::TempDbPath path;
  ManualClock base(TimePoint{Millis{1'000'000}});
  {
    store::StateStore store(path.str());
    Emulator emulator(store, base, ClockStart{kStart, /*frozen=*/false});
    ASSERT_TRUE(emulator.ChangeClock({std::nullopt, Millis{3600'000}, std::nullopt}).ok());
  }
  base.Advance(Millis{5000});  // the server was down for five seconds
  store::StateStore store(path.str());
  Emulator restarted(store, base, ClockStart{});
  EXPECT_EQ(restarted.GetClock().now, kStart + Millis{3600'000} + Millis{5000});
  EXPECT_FALSE(restarted.GetClock().frozen);
}

TEST(Emulator, AFrozenClockStaysWhereItWasAcrossARestart) {
  testing::TempDbPath path;
  ManualClock base(TimePoint{Millis{1'000'000}});
  {
    store::StateStore store(path.str());
    Emulator emulator(store, base, ClockStart{kStart, /*frozen=*/true});
  }
  base.Advance(Millis{60'000});
  store::StateStore store(path.str());
  Emulator restarted(store, base, ClockStart{});
  EXPECT_EQ(restarted.GetClock().now, kStart);
  EXPECT_TRUE(restarted.GetClock().frozen);
}

TEST(Emulator, AnExplicitClockStartWinsOverTheSavedClock) {
  testing::TempDbPath path;
  ManualClock base(TimePoint{Millis{0}});
  {
    store::StateStore store(path.str());
    Emulator emulator(store, base, ClockStart{kStart, true});
  }
  store::StateStore store(path.str());
  Emulator restarted(store, base, ClockStart{kStart + Millis{1}, true});
  EXPECT_EQ(restarted.GetClock().now, kStart + Millis{1});
}

TEST(Emulator, ChangeClockAppliesSetThenAdvanceThenFreeze) {
  store::StateStore store(":memory:");
  ManualClock base(TimePoint{Millis{0}});
  Emulator emulator(store, base, ClockStart{kStart, true});
  auto state = emulator.ChangeClock({kStart + Millis{1000}, Millis{500}, false});
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->now, kStart + Millis{1500});
  EXPECT_FALSE(state->frozen);
  // Backwards is refused only while resources exist (RouterTest.HealthAndClock); here none do.
  const auto back = emulator.ChangeClock({kStart, std::nullopt, std::nullopt});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->now, kStart);
  EXPECT_FALSE(back->frozen);
  EXPECT_FALSE(emulator.ChangeClock({std::nullopt, Millis{-1}, std::nullopt}).ok());
}

}  // namespace
}  // namespace smemu::ops
