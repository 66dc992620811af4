// Training plans and their offerings as the domain sees them: an offering is a window of reservable
// capacity found in the ledger; a plan is an offering that was bought. Statuses follow the clock.
// Plain data and pure functions; no I/O.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/capacity_ledger.hpp"
#include "domain/capacity_pools.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

constexpr Millis kHour{3600'000};
constexpr Millis kDay = 24 * kHour;

// How far ahead a search looks when EndTimeBefore is not given.
constexpr Millis kDefaultSearchHorizon = 8 * 7 * kDay;
// Alternatives per availability zone, and offerings per search at most.
constexpr std::size_t kOfferingsPerZone = 3;
constexpr std::size_t kMaxOfferings = 10;
// How long (virtual time) a search result can be bought.
constexpr Millis kOfferingLifetime{30 * 60'000};

// What a plan may be bought for (its TargetResources), and what asks to run on one.
enum class PlanTarget { kEndpoint, kTrainingJob, kHyperPodCluster };

// The TargetResources value: endpoint, training-job, hyperpod-cluster.
std::string_view WireName(PlanTarget target);

struct OfferingRequest {
  std::vector<std::string> instance_types;  // every type to search, in order
  int instance_count = 1;
  TimePoint start_after{};
  TimePoint end_before{};
  Millis duration{};
  std::vector<std::string> target_resources;
};

struct Offering {
  std::string id;  // "tpo-" + SHA-256 of the content, so equal searches give equal ids
  PoolKey pool;
  int instance_count = 0;
  Window window;
  std::vector<std::string> target_resources;
  TimePoint requested_start_after{};
  TimePoint requested_end_before{};
  double upfront_fee = 0;
};

// Reads and checks the search parameters. `region` and `now` fill the defaults.
struct SearchInput {
  std::optional<std::string> instance_type;
  std::optional<long long> instance_count;
  std::optional<TimePoint> start_after;
  std::optional<TimePoint> end_before;
  std::optional<long long> duration_hours;
  std::vector<std::string> target_resources;
};
Result<OfferingRequest> MakeOfferingRequest(const SearchInput& input, TimePoint now,
                                            const std::vector<std::string>& all_instance_types);

// A plan's DurationHours as the search takes it: "rounded up to the nearest multiple of 24", from
// 1 to 4368 hours ("1 to 182 days"). Anything else is a ValidationException.
Result<Millis> PlanDuration(long long hours);
// An extension's: whole days up to 14 days, whole weeks beyond ("Extend plans by 1-day increments
// up to 14 days, or 7-day increments up to 182 days"), rounded up.
Result<Millis> ExtensionDuration(long long hours);
// The instance counts plans are sold in: "1, 2, 4, 8, 16, 32 or 64 instances".
Status CheckPlanInstanceCount(long long count);
// "Extensions can be requested up to a minimum of 1 hour or a maximum of 57 days before the plan
// expires." (training plans extension): whether a plan ending at `plan_end` can be extended at
// `now`. `plan` names it in the refusal.
Status CheckExtensionTime(const std::string& plan, TimePoint plan_end, TimePoint now);

// Offerings for `request` in `region`: per zone the earliest window and later ones on other days,
// sorted by start time then zone, at most kMaxOfferings. `account` salts the ids.
std::vector<Offering> SearchOfferings(const CapacityLedger& ledger, const CapacityConfig& config,
                                      const std::string& account, const std::string& region,
                                      const OfferingRequest& request);

// Extension offerings for a plan of `count` instances in `pool` that ends at `plan_end`: windows of
// each of `durations` that start when the plan ends and are free throughout. Ids start "tpeo-".
std::vector<Offering> SearchExtensionOfferings(const CapacityLedger& ledger,
                                               const CapacityConfig& config,
                                               const std::string& plan_arn, const PoolKey& pool,
                                               int count, TimePoint plan_end,
                                               const std::vector<Millis>& durations);

// A plan's status follows the clock: Scheduled before its window, Active inside it, Expired after.
enum class PlanStatus { kScheduled, kActive, kExpired };
PlanStatus PlanStatusOf(const Window& window, TimePoint now);
std::string_view ToString(PlanStatus status);
// The status's wire name: "Scheduled", "Active" or "Expired".
std::string PlanStatusAt(const Window& window, TimePoint now);

// A sold plan: an offering that was bought, with the extensions bought since.
struct Plan {
  std::string name;
  std::string arn;
  PoolKey pool;
  int instance_count = 0;
  Window window;
  std::vector<std::string> target_resources;
  std::string upfront_fee;  // everything paid: the plan and its extensions
  std::string reserved_capacity_id;
  struct Extension {
    std::string offering_id;
    TimePoint extended_at;
    Window window;
    std::string upfront_fee;
  };
  std::vector<Extension> extensions;
};

// Whole hours of a window and the minutes left over.
long long DurationHours(const Window& window);
long long DurationMinutes(const Window& window);

// "1234.50"
std::string FormatFee(double fee);

}  // namespace smemu::domain
