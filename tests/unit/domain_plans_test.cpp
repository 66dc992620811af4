// Training-plan windows and purchases as pure functions: no store, no router. Each table gives the
// clock and the request, and the windows, statuses or refusals AWS's pages lead to:
// "Training Plans always end at 11:30 AM UTC on the final day of the reservation"; "You can
// reserve a training plan up to 8 weeks (56 days) in advance"; offerings "may be available to
// start within 30 minutes of reservation"; "the payment transaction must successfully complete at
// least 5 minutes before the desired start time" (Reserve training plans).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_ledger.hpp"
#include "domain/time_format.hpp"
#include "domain/training_plan.hpp"

namespace smemu {
namespace {

using domain::PlanStatus;
using domain::Window;

TimePoint At(const std::string& iso) {
  const auto parsed = domain::ParseIso8601(iso);
  EXPECT_TRUE(parsed.has_value()) << iso;
  return parsed.value_or(TimePoint{});
}

std::string Iso(TimePoint time) { return domain::FormatIso8601(time); }

TEST(PlanWindows, EveryPlanDayEndsAt1130Utc) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"2027-01-25T00:00:00Z", "2027-01-25T11:30:00Z"},
      {"2027-01-25T11:29:59Z", "2027-01-25T11:30:00Z"},
      {"2027-01-25T11:30:00Z", "2027-01-25T11:30:00Z"},  // a day's end is its own end
      {"2027-01-25T11:30:01Z", "2027-01-26T11:30:00Z"},
      {"2027-12-31T23:59:59Z", "2028-01-01T11:30:00Z"},
      {"1970-01-01T00:00:00Z", "1970-01-01T11:30:00Z"},
  };
  for (const auto& [time, day_end] : cases) {
    EXPECT_EQ(Iso(domain::PlanDayEnd(At(time))), day_end) << time;
  }
}

TEST(PlanWindows, APlanLastsAtLeastItsHoursToAn1130) {
  struct Case {
    std::string start;
    long long hours;
    std::string end;
  };
  const std::vector<Case> cases = {
      {"2025-01-21T19:39:00Z", 15, "2025-01-22T11:30:00Z"},  // the guide's 15 h 51 min
      {"2025-01-21T19:39:00Z", 24, "2025-01-23T11:30:00Z"},
      {"2027-01-25T11:30:00Z", 1, "2027-01-26T11:30:00Z"},  // from 11:30: whole days
      {"2027-01-25T11:30:00Z", 24, "2027-01-26T11:30:00Z"},
      {"2027-01-25T11:30:00Z", 25, "2027-01-27T11:30:00Z"},
      {"2027-01-25T11:30:00Z", 168, "2027-02-01T11:30:00Z"},
  };
  for (const Case& c : cases) {
    const Window window = domain::PlanWindow(At(c.start), c.hours * domain::kHour);
    EXPECT_EQ(Iso(window.start), c.start);
    EXPECT_EQ(Iso(window.end), c.end) << c.start << " + " << c.hours << " h";
  }
}

TEST(PlanWindows, TheSearchStartsAtOnceOnlyWhenAskedWithinThirtyMinutes) {
  struct Case {
    std::string now;
    std::optional<std::string> start_after;
    bool start_now;
    std::string earliest;
  };
  const std::vector<Case> cases = {
      {"2027-01-25T00:00:00Z", std::nullopt, true, "2027-01-25T00:30:00Z"},
      {"2027-01-25T00:00:01Z", std::nullopt, true, "2027-01-25T00:31:00Z"},  // whole minutes
      {"2027-01-25T00:00:00Z", "2027-01-24T00:00:00Z", true, "2027-01-25T00:30:00Z"},  // past
      {"2027-01-25T00:00:00Z", "2027-01-25T00:30:00Z", true, "2027-01-25T00:30:00Z"},
      {"2027-01-25T00:00:00Z", "2027-01-25T00:30:01Z", false, "2027-01-25T00:31:00Z"},
      {"2027-01-25T00:00:00Z", "2027-01-26T00:00:00Z", false, "2027-01-26T00:00:00Z"},
  };
  for (const Case& c : cases) {
    domain::SearchInput input;
    input.instance_type = "ml.p5.48xlarge";
    if (c.start_after) input.start_after = At(*c.start_after);
    const auto request = domain::MakeOfferingRequest(input, At(c.now), {});
    ASSERT_TRUE(request.ok()) << c.now;
    EXPECT_EQ(request->start_now, c.start_now) << c.now << " " << c.start_after.value_or("-");
    EXPECT_EQ(Iso(request->earliest_start), c.earliest) << c.start_after.value_or("-");
    EXPECT_EQ(request->latest_start, At(c.now) + domain::kAdvanceReservation);
  }
  domain::SearchInput too_far;
  too_far.start_after = At("2027-01-25T00:00:00Z") + domain::kAdvanceReservation + Millis{1000};
  const auto refused = domain::MakeOfferingRequest(too_far, At("2027-01-25T00:00:00Z"), {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, domain::ErrorCode::kValidationException);
}

// One zone of one ml.p5.48xlarge: the windows a search offers, as the clock and request give them.
TEST(PlanWindows, TheOfferedWindowsFollowTheClockAndTheLedger) {
  const domain::PoolKey pool{"us-west-2", "us-west-2a", "ml.p5.48xlarge"};
  struct Case {
    std::string name;
    std::string now;
    std::optional<std::string> start_after;
    long long hours;
    std::optional<Window> sold;  // a window already sold
    std::vector<std::string> windows;
  };
  const std::vector<Case> cases = {
      {"at once, a day longer, then from 11:30",
       "2025-01-21T19:08:27Z",
       std::nullopt,
       15,
       std::nullopt,
       {"2025-01-21T19:39:00Z/2025-01-22T11:30:00Z", "2025-01-21T19:39:00Z/2025-01-23T11:30:00Z",
        "2025-01-22T11:30:00Z/2025-01-23T11:30:00Z"}},
      {"from 11:30 on three days",
       "2027-01-25T00:00:00Z",
       "2027-01-26T00:00:00Z",
       48,
       std::nullopt,
       {"2027-01-26T11:30:00Z/2027-01-28T11:30:00Z", "2027-01-27T11:30:00Z/2027-01-29T11:30:00Z",
        "2027-01-28T11:30:00Z/2027-01-30T11:30:00Z"}},
      {"at 11:00 the soonest start is 11:30 itself",
       "2027-01-25T11:00:00Z",
       std::nullopt,
       24,
       std::nullopt,
       {"2027-01-25T11:30:00Z/2027-01-26T11:30:00Z", "2027-01-26T11:30:00Z/2027-01-27T11:30:00Z",
        "2027-01-27T11:30:00Z/2027-01-28T11:30:00Z"}},
      {"a sold day moves the offers past it",
       "2027-01-25T00:00:00Z",
       "2027-01-26T00:00:00Z",
       24,
       Window{At("2027-01-26T11:30:00Z"), At("2027-01-27T11:30:00Z")},
       {"2027-01-27T11:30:00Z/2027-01-28T11:30:00Z", "2027-01-28T11:30:00Z/2027-01-29T11:30:00Z",
        "2027-01-29T11:30:00Z/2027-01-30T11:30:00Z"}},
      {"no start beyond 56 days",
       "2027-01-25T00:00:00Z",
       "2027-03-21T00:00:00Z",
       24,
       std::nullopt,
       {"2027-03-21T11:30:00Z/2027-03-22T11:30:00Z"}},
  };
  for (const Case& c : cases) {
    domain::CapacityLedger ledger;
    ledger.SetPool(pool, 1, 0);
    if (c.sold) {
      ASSERT_TRUE(ledger.Reserve(pool, *c.sold, 1));
    }
    domain::CapacityConfig config;
    config.prices["ml.p5.48xlarge"] = {98.32, 55.0};
    domain::SearchInput input;
    input.instance_type = "ml.p5.48xlarge";
    input.duration_hours = c.hours;
    if (c.start_after) input.start_after = At(*c.start_after);
    const auto request = domain::MakeOfferingRequest(input, At(c.now), {});
    ASSERT_TRUE(request.ok()) << c.name;
    std::vector<std::string> windows;
    for (const domain::Offering& offering :
         domain::SearchOfferings(ledger, config, "123456789012", "us-west-2", *request)) {
      windows.push_back(Iso(offering.Span().start) + "/" + Iso(offering.Span().end));
    }
    EXPECT_EQ(windows, c.windows) << c.name;
  }
}

TEST(PlanPurchases, APurchaseIsPendingUntilPaidThenFollowsItsWindow) {
  const Window window{At("2027-01-25T11:30:00Z"), At("2027-01-26T11:30:00Z")};
  const TimePoint paid = At("2027-01-25T00:10:00Z");
  const std::vector<std::pair<std::string, PlanStatus>> cases = {
      {"2027-01-25T00:00:00Z", PlanStatus::kPending},
      {"2027-01-25T00:09:59Z", PlanStatus::kPending},
      {"2027-01-25T00:10:00Z", PlanStatus::kScheduled},
      {"2027-01-25T11:30:00Z", PlanStatus::kActive},
      {"2027-01-26T11:30:00Z", PlanStatus::kExpired},
  };
  for (const auto& [now, status] : cases) {
    EXPECT_EQ(domain::PurchaseStatusOf(window, paid, At(now)), status) << now;
  }
}

TEST(PlanPurchases, ThePaymentCompletesFiveMinutesBeforeTheStart) {
  const TimePoint start = At("2027-01-25T00:30:00Z");
  const std::vector<std::pair<std::string, bool>> cases = {
      {"2027-01-25T00:00:00Z", true},
      {"2027-01-25T00:25:00Z", true},
      {"2027-01-25T00:25:01Z", false},
      {"2027-01-25T00:31:00Z", false},
  };
  for (const auto& [paid, allowed] : cases) {
    EXPECT_EQ(domain::CheckPurchaseLeadTime("tpo-x", start, At(paid)).ok(), allowed) << paid;
  }
}

// ---- Plans of two reserved capacities

// "SageMaker training plans don't return a 'no capacity' result if a single continuous Reserved
// Capacity block meeting all criteria is unavailable. Instead, it automatically attempts to
// fulfill the request using two separate Reserved Capacity blocks" (Reserve training plans).
// Each case gives pools of one instance, the days already sold in each, and the offerings as
// "zone start/end + zone start/end", best (earliest to end) first.
TEST(TwoBlockPlans, WhenNoSingleBlockFitsTheSearchOffersTwo) {
  struct Sold {
    std::string zone;
    std::string from;
    std::string to;
  };
  struct Case {
    std::string name;
    std::vector<std::string> zones;
    std::vector<Sold> sold;
    std::string target;
    std::vector<std::string> offerings;
  };
  // Two zones: us-west-2a free for two days from 2027-01-26, us-west-2b for a day on the 28th
  // and on the 30th.
  const std::vector<Sold> a_then_b = {
      {"us-west-2a", "2027-01-28T11:30:00Z", "2027-02-07T11:30:00Z"},
      {"us-west-2b", "2027-01-26T11:30:00Z", "2027-01-28T11:30:00Z"},
      {"us-west-2b", "2027-01-29T11:30:00Z", "2027-01-30T11:30:00Z"},
      {"us-west-2b", "2027-01-31T11:30:00Z", "2027-02-07T11:30:00Z"}};
  // Every case: three days (72 hours) asked on 2027-01-25 for 2027-01-26 on, ending by
  // 2027-02-06T11:30:00Z.
  const std::vector<Case> cases = {
      {"one zone sold every third day: two days then one, the earliest to end first",
       {"us-west-2a"},
       {{"us-west-2a", "2027-01-28T11:30:00Z", "2027-01-29T11:30:00Z"},
        {"us-west-2a", "2027-01-31T11:30:00Z", "2027-02-01T11:30:00Z"},
        {"us-west-2a", "2027-02-03T11:30:00Z", "2027-02-04T11:30:00Z"}},
       "hyperpod-cluster",
       {"us-west-2a 2027-01-26T11:30:00Z/2027-01-28T11:30:00Z + "
        "us-west-2a 2027-01-29T11:30:00Z/2027-01-30T11:30:00Z",
        "us-west-2a 2027-01-29T11:30:00Z/2027-01-31T11:30:00Z + "
        "us-west-2a 2027-02-01T11:30:00Z/2027-02-02T11:30:00Z",
        "us-west-2a 2027-02-01T11:30:00Z/2027-02-03T11:30:00Z + "
        "us-west-2a 2027-02-04T11:30:00Z/2027-02-05T11:30:00Z"}},
      {"a training-job plan may go on in another zone",
       {"us-west-2a", "us-west-2b"},
       a_then_b,
       "training-job",
       {"us-west-2a 2027-01-26T11:30:00Z/2027-01-28T11:30:00Z + "
        "us-west-2b 2027-01-28T11:30:00Z/2027-01-29T11:30:00Z"}},
      {"a HyperPod plan stays in one zone (\"HyperPod offerings stay in one zone\")",
       {"us-west-2a", "us-west-2b"},
       a_then_b,
       "hyperpod-cluster",
       {}},
      {"a single block wins when there is one",
       {"us-west-2a"},
       {{"us-west-2a", "2027-01-28T11:30:00Z", "2027-01-29T11:30:00Z"}},
       "training-job",
       {"us-west-2a 2027-01-29T11:30:00Z/2027-02-01T11:30:00Z",
        "us-west-2a 2027-01-30T11:30:00Z/2027-02-02T11:30:00Z",
        "us-west-2a 2027-01-31T11:30:00Z/2027-02-03T11:30:00Z"}},
  };
  for (const Case& c : cases) {
    domain::CapacityLedger ledger;
    for (const std::string& zone : c.zones) {
      ledger.SetPool({"us-west-2", zone, "ml.p5.48xlarge"}, 1, 0);
    }
    for (const Sold& sold : c.sold) {
      ASSERT_TRUE(ledger.Reserve({"us-west-2", sold.zone, "ml.p5.48xlarge"},
                                 {At(sold.from), At(sold.to)}, 1))
          << c.name;
    }
    domain::CapacityConfig config;
    config.prices["ml.p5.48xlarge"] = {98.32, 55.0};
    domain::SearchInput input;
    input.instance_type = "ml.p5.48xlarge";
    input.duration_hours = 72;
    input.start_after = At("2027-01-26T00:00:00Z");
    input.end_before = At("2027-02-06T11:30:00Z");
    input.target_resources = {c.target};
    const auto request = domain::MakeOfferingRequest(input, At("2027-01-25T00:00:00Z"), {});
    ASSERT_TRUE(request.ok()) << c.name;
    std::vector<std::string> offerings;
    for (const domain::Offering& offering :
         domain::SearchOfferings(ledger, config, "123456789012", "us-west-2", *request)) {
      std::string blocks;
      for (const domain::CapacityBlock& block : offering.blocks) {
        blocks += (blocks.empty() ? "" : " + ") + block.pool.availability_zone + " " +
                  Iso(block.window.start) + "/" + Iso(block.window.end);
      }
      offerings.push_back(blocks);
      // Paid for the three days reserved, not for the gap: 72 h x 55.00.
      EXPECT_DOUBLE_EQ(offering.upfront_fee, 72 * 55.0) << c.name;
      EXPECT_EQ(domain::ReservedTime(offering.blocks), 72 * domain::kHour) << c.name;
    }
    EXPECT_EQ(offerings, c.offerings) << c.name;
  }
}

// "For plans with multiple discontinuous reserved capacities, the status reverts to Scheduled
// between active periods, until the start date of the next reserved capacity." (View training
// plan details)
TEST(TwoBlockPlans, APlanIsScheduledBetweenItsBlocks) {
  const std::vector<Window> blocks = {{At("2027-01-26T11:30:00Z"), At("2027-01-28T11:30:00Z")},
                                      {At("2027-01-29T11:30:00Z"), At("2027-01-30T11:30:00Z")}};
  struct Case {
    std::string now;
    PlanStatus status;
    std::optional<std::string> block_from;  // the block in force, or the next
  };
  const std::vector<Case> cases = {
      {"2027-01-25T00:00:00Z", PlanStatus::kScheduled, "2027-01-26T11:30:00Z"},
      {"2027-01-26T11:30:00Z", PlanStatus::kActive, "2027-01-26T11:30:00Z"},
      {"2027-01-28T11:29:59Z", PlanStatus::kActive, "2027-01-26T11:30:00Z"},
      {"2027-01-28T11:30:00Z", PlanStatus::kScheduled, "2027-01-29T11:30:00Z"},
      {"2027-01-29T11:30:00Z", PlanStatus::kActive, "2027-01-29T11:30:00Z"},
      {"2027-01-30T11:30:00Z", PlanStatus::kExpired, std::nullopt},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(domain::PlanStatusOf(blocks, At(c.now)), c.status) << c.now;
    const auto block = domain::BlockFrom(blocks, At(c.now));
    EXPECT_EQ(block ? std::optional<std::string>(Iso(block->start)) : std::nullopt, c.block_from)
        << c.now;
  }
  EXPECT_EQ(
      domain::PurchaseStatusAt(blocks, At("2027-01-25T00:10:00Z"), At("2027-01-25T00:00:00Z")),
      "Pending");
  EXPECT_EQ(
      domain::PurchaseStatusAt(blocks, At("2027-01-25T00:10:00Z"), At("2027-01-28T12:00:00Z")),
      "Scheduled");
}

}  // namespace
}  // namespace smemu
