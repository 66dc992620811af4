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

// "Training Plans always end at 11:30 AM UTC on the final day of the reservation": the time of
// day, in UTC, at which every plan day ends and the next begins.
constexpr Millis kPlanDayEnd = 11 * kHour + Millis{30 * 60'000};
// "You can reserve a training plan up to 8 weeks (56 days) in advance of the start date."
constexpr Millis kAdvanceReservation = 56 * kDay;
// "SageMaker training plans offerings may be available to start within 30 minutes of
// reservation": the earliest start is this far from the search, on the next whole minute.
constexpr Millis kMinimumLeadTime{30 * 60'000};
// Alternatives per availability zone. A search answers "up to three offerings of one or two
// segments" (Reserve training plans in the console), the first the best match.
constexpr std::size_t kOfferingsPerZone = 3;
constexpr std::size_t kMaxOfferings = 3;
// How long (virtual time) a search result can be bought.
constexpr Millis kOfferingLifetime{30 * 60'000};

// What a plan may be bought for (its TargetResources), and what asks to run on one.
enum class PlanTarget { kEndpoint, kTrainingJob, kHyperPodCluster };

// The TargetResources value: endpoint, training-job, hyperpod-cluster.
std::string_view WireName(PlanTarget target);

// An UltraServer offering or plan: how many, of which type, of how many instances each.
struct UltraServers {
  std::string type;       // e.g. ml.u-p6e-gb200x72
  int count = 0;          // UltraServers
  int instances_per = 0;  // instances in each, e.g. 18
  int spares_per =
      0;  // a plan's spare instances per UltraServer (SpareInstanceCountPerUltraServer)

  int Spares() const { return count * spares_per; }
  bool operator==(const UltraServers&) const = default;
};

// One UltraServer of a reserved capacity as ListUltraServersByReservedCapacity counts it.
struct UltraServerState {
  int in_use = 0;
  int available = 0;         // usable and not in use
  int spares_available = 0;  // spares not standing in for an unhealthy instance
  int unhealthy = 0;
  bool impaired = false;  // HealthStatus Impaired (an instance is unhealthy), else OK
};
// The UltraServers of a reserved capacity with `in_use` of its instances in use and `unhealthy`
// of them failed. Both fill the UltraServers in order. A spare stands in for each unhealthy
// instance of its UltraServer ("We recommend that you keep one spare instance per UltraServer");
// an UltraServer with more unhealthy instances than spares has fewer usable ones.
std::vector<UltraServerState> UltraServerStates(const UltraServers& shape, int in_use,
                                                int unhealthy);

struct OfferingRequest {
  std::vector<std::string> instance_types;  // every type to search, in order
  int instance_count = 1;
  // An UltraServer search (UltraServerType and UltraServerCount): instance_types and
  // instance_count are then taken from the pools of that type.
  std::optional<std::string> ultraserver_type;
  int ultraserver_count = 0;
  TimePoint start_after{};              // as requested, never before the search
  std::optional<TimePoint> end_before;  // as requested
  TimePoint earliest_start{};           // the first minute a plan may start
  TimePoint latest_start{};             // the last moment a plan may start (56 days ahead)
  bool start_now = false;               // whether a plan may start at earliest_start, off 11:30
  Millis duration{};                    // as requested: plans last at least this long
  std::vector<std::string> target_resources;
};

// The end of the plan day that `time` falls in: the first 11:30 UTC at or after it.
TimePoint PlanDayEnd(TimePoint time);
// The window of a plan that starts at `start` and lasts at least `duration`: it ends at the first
// 11:30 UTC that gives it that long.
Window PlanWindow(TimePoint start, Millis duration);

// One reserved capacity: instances of one pool (region, zone, type) over one window. "A plan can
// consist of one or more Reserved Capacities" (CreateTrainingPlan); a search offers plans of one
// or two, and "Multiple Reserved Capacity blocks in a single training plan may be discontinuous".
struct CapacityBlock {
  PoolKey pool;
  Window window;
  std::string id;  // a plan's reserved capacity id ("rc-..."); empty in an offering

  bool operator==(const CapacityBlock&) const = default;
};

// The windows of `blocks`, in their (time) order.
std::vector<Window> WindowsOf(const std::vector<CapacityBlock>& blocks);
// From the first block's start to the last block's end.
Window SpanOf(const std::vector<CapacityBlock>& blocks);
// The blocks' time together, gaps left out: what a plan's DurationHours counts.
Millis ReservedTime(const std::vector<CapacityBlock>& blocks);

struct Offering {
  std::string id;  // "tpo-" + SHA-256 of the content, so equal searches give equal ids
  std::vector<CapacityBlock> blocks;  // one or two, in time order, all of one instance type
  int instance_count = 0;
  std::vector<std::string> target_resources;
  std::optional<UltraServers> ultraservers;  // an UltraServer offering
  TimePoint requested_start_after{};
  std::optional<TimePoint> requested_end_before;
  double upfront_fee = 0;

  Window Span() const { return SpanOf(blocks); }
};

// Reads and checks the search parameters. `region` and `now` fill the defaults.
struct SearchInput {
  std::optional<std::string> instance_type;
  std::optional<long long> instance_count;
  std::optional<TimePoint> start_after;
  std::optional<TimePoint> end_before;
  std::optional<long long> duration_hours;
  std::vector<std::string> target_resources;
  std::optional<std::string> ultraserver_type;
  std::optional<long long> ultraserver_count;
};
Result<OfferingRequest> MakeOfferingRequest(const SearchInput& input, TimePoint now,
                                            const std::vector<std::string>& all_instance_types);

// A plan's DurationHours as the search takes it: from 1 to 4368 hours ("1 to 182 days"); anything
// else is a ValidationException. Plans end at 11:30 UTC, so one that starts at 11:30 lasts the
// hours "rounded up to the nearest multiple of 24"; one that starts off it (a plan bought to start
// at once) lasts to the first 11:30 that gives it the hours.
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

// "To ensure timely activation, the payment transaction must successfully complete at least 5
// minutes before the desired start time." (Reserve training plans): whether an offering that
// starts at `start` can be bought with a payment that completes at `paid_at`. `offering` names it
// in the refusal.
Status CheckPurchaseLeadTime(const std::string& offering, TimePoint start, TimePoint paid_at);

// Offerings for `request` in `region`, per zone at most kOfferingsPerZone: a plan that starts at
// once and the same plan a day longer when the request allows a start at once, then plans from
// 11:30 UTC on the following days. AWS does not say how it ranks them; here the best match is the
// one that starts soonest (closest to the requested start), and ties keep the order they were
// found in: instance types as requested, then zones, and within a pool the shorter plan first. Only
// the first kMaxOfferings are offered; a search with other bounds may find the rest. When no
// single block can hold the request anywhere, up to kSplitOfferings plans of two blocks, the
// earliest to end first (TwoBlockOfferings). `account` salts the ids.
std::vector<Offering> SearchOfferings(const CapacityLedger& ledger, const CapacityConfig& config,
                                      const std::string& account, const std::string& region,
                                      const OfferingRequest& request);

// "SageMaker training plans don't return a 'no capacity' result if a single continuous Reserved
// Capacity block meeting all criteria is unavailable. Instead, it automatically attempts to
// fulfill the request using two separate Reserved Capacity blocks": at most this many.
constexpr std::size_t kSplitOfferings = 3;
static_assert(kSplitOfferings <= kMaxOfferings, "two-block offerings are offerings too");

// Extension offerings for a plan of `count` instances in `pool` that ends at `plan_end`: windows of
// each of `durations` that start when the plan ends and are free throughout. Ids start "tpeo-".
std::vector<Offering> SearchExtensionOfferings(const CapacityLedger& ledger,
                                               const CapacityConfig& config,
                                               const std::string& plan_arn, const PoolKey& pool,
                                               int count, TimePoint plan_end,
                                               const std::vector<Millis>& durations);

// A plan's status follows the clock: Pending until its payment completes ("Upon successful upfront
// payment, the plan status becomes Scheduled"), then Scheduled before its window, Active inside
// it, Expired after. A payment completes at least 5 minutes before the window starts
// (CheckPurchaseLeadTime), so what uses a plan goes by the window alone.
// A purchase whose payment fails is Failed from the moment the payment would have completed
// (the model's TrainingPlanStatus has the value; the fault rules make it happen).
enum class PlanStatus { kPending, kScheduled, kActive, kExpired, kFailed };
PlanStatus PlanStatusOf(const Window& window, TimePoint now);
// A plan of several blocks (in time order): Active inside one, Scheduled before the last one ends
// ("from Scheduled to Active when a Reserved Capacity period begins, and then back to Scheduled
// when waiting for the next"), Expired after.
PlanStatus PlanStatusOf(const std::vector<Window>& blocks, TimePoint now);
// The block in force at `now`, or else the next one; nullopt once the last has ended.
std::optional<Window> BlockFrom(const std::vector<Window>& blocks, TimePoint now);
// A purchase's (a plan's or an extension's): Pending until `paid_at`, then Failed when its
// payment `fails`, else as its window's.
PlanStatus PurchaseStatusOf(const Window& window, TimePoint paid_at, TimePoint now,
                            bool fails = false);
// Its wire name, for a purchase of one window or of several blocks.
std::string PurchaseStatusAt(const Window& window, TimePoint paid_at, TimePoint now,
                             bool fails = false);
std::string PurchaseStatusAt(const std::vector<Window>& blocks, TimePoint paid_at, TimePoint now,
                             bool fails = false);
std::string_view ToString(PlanStatus status);
// An extension's PaymentStatus: Pending until `paid_at`, then Failed or Completed.
enum class PaymentStatus { kPending, kCompleted, kFailed };
PaymentStatus PaymentStatusOf(TimePoint paid_at, TimePoint now, bool fails);
std::string_view ToString(PaymentStatus status);
// The status's wire name: "Pending", "Scheduled", "Active" or "Expired".
std::string PlanStatusAt(const Window& window, TimePoint now);

// A sold plan: an offering that was bought, with the extensions bought since.
struct Plan {
  std::string name;
  std::string arn;
  // Its reserved capacities, in time order, all of one instance type and region. An extension
  // lengthens the last one.
  std::vector<CapacityBlock> blocks;
  int instance_count = 0;  // in each block
  std::vector<std::string> target_resources;
  std::string upfront_fee;  // everything paid: the plan and its extensions
  TimePoint paid_at{};      // when the purchase's payment completes: Pending until then
  // Not empty: the payment fails at paid_at, and the plan is Failed with this StatusMessage. Such
  // a plan reserves nothing.
  std::string payment_failure;
  std::optional<UltraServers> ultraservers;  // an UltraServer plan
  struct Extension {
    std::string offering_id;
    TimePoint extended_at;
    Window window;
    std::string upfront_fee;
    TimePoint paid_at{};          // Pending, and its PaymentStatus Pending, until then
    std::string payment_failure;  // not empty: Failed from paid_at; the plan is not lengthened
  };
  std::vector<Extension> extensions;

  const std::string& Region() const { return blocks.front().pool.region; }
  const std::string& InstanceType() const { return blocks.front().pool.instance_type; }
  Window Span() const { return SpanOf(blocks); }
  // The block whose reserved capacity id is `id`; nullptr when none is.
  const CapacityBlock* BlockWithId(std::string_view id) const;
  // The block in force at `now`, or else the next one; nullptr once the last has ended.
  const CapacityBlock* BlockFrom(TimePoint now) const;
  bool PaymentFails() const { return !payment_failure.empty(); }
};

// The plan's status at `now`, its payment included.
std::string PlanStatusAt(const Plan& plan, TimePoint now);
// The windows a plan's users (endpoints, jobs, clusters) see. A Pending plan is used as a
// Scheduled one is, so these are its blocks whatever the payment; a purchase whose payment fails
// ends for them when it fails: one empty window at paid_at, over (Expired) from then on.
std::vector<Window> WindowsForUsers(const Plan& plan);
// The instances endpoints, jobs and clusters can use: an UltraServer plan keeps its spares ("We
// recommend that you keep one spare instance per UltraServer").
int UsableInstances(const Plan& plan);
// SpareInstanceCountPerUltraServer of a purchase: "Default is 1"; from 0 to one less than an
// UltraServer's instances.
Result<int> SparesPerUltraServer(std::optional<long long> requested, const UltraServers& offered);

// Whole hours of a window (or a time) and the minutes left over.
long long DurationHours(const Window& window);
long long DurationMinutes(const Window& window);
long long DurationHours(Millis time);
long long DurationMinutes(Millis time);

// "1234.50"
std::string FormatFee(double fee);

}  // namespace smemu::domain
