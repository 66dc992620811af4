#include "domain/capacity_ledger.hpp"

#include <gtest/gtest.h>

#include <random>

#include "domain/training_plan.hpp"

namespace smemu::domain {
namespace {

using domain::kDay;
using domain::kHour;
const TimePoint kT0{Millis{1800835200000}};  // 2027-01-25T00:00:00Z, a whole day

Window Hours(int from, int to) { return {kT0 + from * kHour, kT0 + to * kHour}; }

const PoolKey kPool{"us-west-2", "us-west-2a", "ml.p5.48xlarge"};

CapacityLedger LedgerWith(int reservable) {
  CapacityLedger ledger;
  ledger.SetPool(kPool, reservable, 1);
  return ledger;
}

TEST(CommitmentTimeline, AddQueryAndReleaseBackToEmpty) {
  CommitmentTimeline timeline;
  timeline.Add(Hours(0, 10), 2);
  timeline.Add(Hours(5, 15), 1);
  EXPECT_EQ(timeline.CommittedAt(kT0 - kHour), 0);
  EXPECT_EQ(timeline.CommittedAt(kT0), 2);
  EXPECT_EQ(timeline.CommittedAt(kT0 + 5 * kHour), 3);
  EXPECT_EQ(timeline.CommittedAt(kT0 + 10 * kHour), 1);
  EXPECT_EQ(timeline.CommittedAt(kT0 + 15 * kHour), 0);
  EXPECT_EQ(timeline.MaxCommitted(Hours(0, 5)), 2);
  EXPECT_EQ(timeline.MaxCommitted(Hours(4, 6)), 3);
  EXPECT_EQ(timeline.MaxCommitted(Hours(10, 20)), 1);
  timeline.Add(Hours(5, 15), -1);
  timeline.Add(Hours(0, 10), -2);
  EXPECT_TRUE(timeline.empty());
}

TEST(CommitmentTimeline, AboveFindsTheBusyStretches) {
  CommitmentTimeline timeline;
  timeline.Add(Hours(2, 4), 2);
  timeline.Add(Hours(6, 8), 1);
  EXPECT_EQ(timeline.Above(Hours(0, 10), 1), (std::vector<Window>{Hours(2, 4)}));
  EXPECT_EQ(timeline.Above(Hours(0, 10), 0), (std::vector<Window>{Hours(2, 4), Hours(6, 8)}));
  EXPECT_EQ(timeline.Above(Hours(3, 7), 0), (std::vector<Window>{Hours(3, 4), Hours(6, 7)}));
}

// AddAll (rebuilding the ledger at start) must leave exactly what adding one by one leaves: the
// same breakpoints, none repeating the level before it, on top of what the timeline held.
TEST(CommitmentTimeline, AddAllBuildsWhatAddingOneByOneBuilds) {
  std::mt19937 random(11);
  for (int round = 0; round < 20; ++round) {
    CommitmentTimeline one_by_one;
    CommitmentTimeline at_once;
    for (int i = 0; i < 5; ++i) {  // what the timeline held before
      const int start = static_cast<int>(random() % 300);
      const Window held = Hours(start, start + 1 + static_cast<int>(random() % 50));
      one_by_one.Add(held, 2);
      at_once.Add(held, 2);
    }
    std::vector<Commitment> commitments;
    for (int i = 0; i < 200; ++i) {
      const int start = static_cast<int>(random() % 300);
      // Shared ends, windows that cancel out, an empty window and a zero count are all drawn.
      const int end = start + static_cast<int>(random() % 40);
      const int count = static_cast<int>(random() % 5) - 1;
      commitments.push_back({Hours(start, end), count});
      if (count != 0 && start < end) one_by_one.Add(Hours(start, end), count);
    }
    at_once.AddAll(commitments);
    EXPECT_EQ(at_once.Steps(Hours(-1, 400)), one_by_one.Steps(Hours(-1, 400))) << round;
  }
  CommitmentTimeline cancelled;
  cancelled.AddAll({{Hours(0, 10), 2}, {Hours(0, 10), -2}, {Hours(5, 5), 3}});
  EXPECT_TRUE(cancelled.empty());
}

TEST(CapacityLedger, BackToBackWindowsShareTheSameInstances) {
  CapacityLedger ledger = LedgerWith(2);
  ASSERT_TRUE(ledger.Reserve(kPool, Hours(0, 168), 2));
  EXPECT_TRUE(ledger.Reserve(kPool, Hours(168, 336), 2));  // starts exactly when the first ends
  EXPECT_FALSE(ledger.Reserve(kPool, Hours(167, 169), 1));
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(336, 400)), 2);
}

TEST(CapacityLedger, ExactFitAndOneInstanceShort) {
  CapacityLedger ledger = LedgerWith(8);
  ASSERT_TRUE(ledger.Reserve(kPool, Hours(0, 48), 5));
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(24, 72)), 3);
  EXPECT_FALSE(ledger.Reserve(kPool, Hours(24, 72), 4));  // one short: nothing is taken
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(24, 72)), 3);
  EXPECT_TRUE(ledger.Reserve(kPool, Hours(24, 72), 3));  // exact fit
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(0, 100)), 0);
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(72, 100)), 8);
}

TEST(CapacityLedger, RefusesUnknownPoolsAndEmptyRequests) {
  CapacityLedger ledger = LedgerWith(2);
  const PoolKey other{"us-west-2", "us-west-2b", "ml.p5.48xlarge"};
  EXPECT_FALSE(ledger.Reserve(other, Hours(0, 1), 1));
  EXPECT_EQ(ledger.FreeReservable(other, Hours(0, 1)), 0);
  EXPECT_FALSE(ledger.Reserve(kPool, Hours(0, 1), 0));
  EXPECT_FALSE(ledger.Reserve(kPool, Hours(1, 1), 1));
}

TEST(CapacityLedger, ManyOverlappingPlansMatchABruteForceCount) {
  CapacityLedger ledger = LedgerWith(6);
  std::mt19937 random(7);
  std::vector<std::tuple<int, int, int>> sold;  // start hour, end hour, count
  for (int i = 0; i < 2000; ++i) {
    const int start = static_cast<int>(random() % 2000);
    const int end = start + 1 + static_cast<int>(random() % 200);
    const int count = 1 + static_cast<int>(random() % 3);
    if (ledger.Reserve(kPool, Hours(start, end), count)) sold.emplace_back(start, end, count);
  }
  ASSERT_GT(sold.size(), 50u);
  for (int hour = 0; hour < 2200; ++hour) {
    int committed = 0;
    for (const auto& [s, e, c] : sold) {
      if (s <= hour && hour < e) committed += c;
    }
    ASSERT_LE(committed, 6) << "oversold at hour " << hour;
    ASSERT_EQ(ledger.Find(kPool)->reserved.CommittedAt(kT0 + hour * kHour), committed);
  }
}

TEST(CapacityLedger, FreeStretchesAreTheGapsBetweenCommitmentsThatLeaveTooFew) {
  CapacityLedger ledger = LedgerWith(2);
  ASSERT_TRUE(ledger.Reserve(kPool, {kT0 + kDay, kT0 + 3 * kDay}, 1));
  ASSERT_TRUE(ledger.Reserve(kPool, {kT0 + 2 * kDay, kT0 + 4 * kDay}, 1));
  const Window range{kT0, kT0 + 10 * kDay};
  // One instance is free except where both are committed (days 2 to 3).
  EXPECT_EQ(ledger.FreeStretches(kPool, range, 1),
            (std::vector<Window>{{kT0, kT0 + 2 * kDay}, {kT0 + 3 * kDay, kT0 + 10 * kDay}}));
  // Two only where nothing is committed.
  EXPECT_EQ(ledger.FreeStretches(kPool, range, 2),
            (std::vector<Window>{{kT0, kT0 + kDay}, {kT0 + 4 * kDay, kT0 + 10 * kDay}}));
}

TEST(CapacityLedger, FreeStretchesAreNoneForAnUnknownPoolOrTooManyInstances) {
  CapacityLedger ledger = LedgerWith(2);
  EXPECT_TRUE(ledger.FreeStretches(kPool, {kT0, kT0 + 30 * kDay}, 3).empty());
  EXPECT_TRUE(ledger.FreeStretches(kPool, {kT0, kT0}, 1).empty());
  EXPECT_TRUE(
      ledger.FreeStretches({"us-west-2", "us-west-2z", "ml.p5.48xlarge"}, {kT0, kT0 + 30 * kDay}, 1)
          .empty());
  ASSERT_TRUE(ledger.Reserve(kPool, {kT0, kT0 + 30 * kDay}, 2));
  EXPECT_TRUE(ledger.FreeStretches(kPool, {kT0, kT0 + 30 * kDay}, 1).empty());
}

TEST(CapacityLedger, SettingCountsKeepsCommitments) {
  CapacityLedger ledger = LedgerWith(4);
  ASSERT_TRUE(ledger.Reserve(kPool, Hours(0, 10), 3));
  ledger.SetPool(kPool, 8, 0);
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(0, 10)), 5);
  EXPECT_EQ(ledger.Find(kPool)->on_demand, 0);
  ledger.Release(kPool, Hours(0, 10), 3);
  EXPECT_EQ(ledger.FreeReservable(kPool, Hours(0, 10)), 8);
}

TEST(CapacityLedger, PoolsOfListsZonesInOrder) {
  CapacityLedger ledger;
  ledger.SetPool({"us-west-2", "us-west-2c", "ml.p5.48xlarge"}, 1, 0);
  ledger.SetPool({"us-west-2", "us-west-2a", "ml.p5.48xlarge"}, 1, 0);
  ledger.SetPool({"us-west-2", "us-west-2b", "ml.trn1.32xlarge"}, 1, 0);
  ledger.SetPool({"us-east-1", "us-east-1a", "ml.p5.48xlarge"}, 1, 0);
  const auto zones = ledger.PoolsOf("us-west-2", "ml.p5.48xlarge");
  ASSERT_EQ(zones.size(), 2u);
  EXPECT_EQ(zones[0].availability_zone, "us-west-2a");
  EXPECT_EQ(zones[1].availability_zone, "us-west-2c");
}

}  // namespace
}  // namespace smemu::domain
