#include "domain/training_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "domain/aws_names.hpp"
#include "domain/time_format.hpp"
#include "domain/wire_names.hpp"

namespace smemu::domain {
namespace {

constexpr long long kMinDurationHours = 24;
constexpr long long kMaxDurationHours = 4368;  // 182 days

std::string OfferingId(const std::string& salt, const Offering& offering,
                       const std::string& prefix = "tpo-") {
  std::string canonical = salt + "|" + std::to_string(offering.instance_count);
  for (const CapacityBlock& block : offering.blocks) {
    canonical += "|" + block.pool.region + "|" + block.pool.availability_zone + "|" +
                 block.pool.instance_type + "|" +
                 std::to_string(block.window.start.time_since_epoch().count()) + "|" +
                 std::to_string(block.window.end.time_since_epoch().count());
  }
  for (const auto& target : offering.target_resources) canonical += "|" + target;
  if (offering.ultraservers) canonical += "|ultraserver|" + offering.ultraservers->type;
  return prefix + Sha256Hex(canonical);
}

Millis::rep RoundUp(Millis::rep value, Millis::rep step) {
  return (value + step - 1) / step * step;
}

// A time in hours, minutes included: a plan that starts at once is paid by the minute.
double Hours(Millis time) {
  return static_cast<double>(time.count()) / static_cast<double>(kHour.count());
}
double Hours(const Window& window) { return Hours(window.end - window.start); }

TimePoint CeilToMinute(TimePoint time) {
  constexpr Millis kMinute{60'000};
  return TimePoint{} + Millis{RoundUp((time - TimePoint{}).count(), kMinute.count())};
}

}  // namespace

Result<Millis> PlanDuration(long long hours) {
  if (hours < 1 || hours > kMaxDurationHours) {
    return ValidationException("DurationHours must be from 1 to 4368 hours (1 to 182 days); got " +
                               std::to_string(hours) + ".");
  }
  return Millis{hours * kHour.count()};
}

Result<Millis> ExtensionDuration(long long hours) {
  auto duration = PlanDuration(hours);
  if (!duration) return duration.error();
  constexpr Millis kDailyUpTo = 14 * kDay;
  const Millis days{RoundUp(duration->count(), kDay.count())};
  if (days <= kDailyUpTo) return days;
  return Millis{RoundUp(days.count(), (7 * kDay).count())};
}

TimePoint PlanDayEnd(TimePoint time) {
  const TimePoint first = TimePoint{} + kPlanDayEnd;
  const Millis::rep since = (time - first).count();
  // Whole days since the first 11:30, rounded up (division truncates toward zero).
  const Millis::rep days = since / kDay.count() + (since % kDay.count() > 0 ? 1 : 0);
  return first + days * kDay;
}

Window PlanWindow(TimePoint start, Millis duration) {
  return {start, PlanDayEnd(start + duration)};
}

Status CheckPlanInstanceCount(long long count) {
  for (const long long sold : {1, 2, 4, 8, 16, 32, 64}) {
    if (count == sold) return Ok();
  }
  return ValidationException(
      "InstanceCount must be 1, 2, 4, 8, 16, 32 or 64: training plans reserve instances in those "
      "quantities; got " +
      std::to_string(count) + ".");
}

Status CheckExtensionTime(const std::string& plan, TimePoint plan_end, TimePoint now) {
  constexpr Millis kLatest = kHour;
  constexpr Millis kEarliest = 57 * kDay;
  if (plan_end - now >= kLatest && plan_end - now <= kEarliest) return Ok();
  return ValidationException("Training plan " + Excerpt(plan) +
                             " can be extended from 57 days to 1 hour before it ends, at " +
                             FormatIso8601(plan_end) + "; it is " + FormatIso8601(now) + ".");
}

Status CheckPurchaseLeadTime(const std::string& offering, TimePoint start, TimePoint paid_at) {
  constexpr Millis kPaymentLeadTime{5 * 60'000};
  if (start - paid_at >= kPaymentLeadTime) return Ok();
  return ValidationException("Training plan offering " + Excerpt(offering) + " starts at " +
                             FormatIso8601(start) +
                             ": a purchase must complete at least 5 minutes before the plan "
                             "starts. Search for offerings again.");
}

Result<OfferingRequest> MakeOfferingRequest(const SearchInput& input, TimePoint now,
                                            const std::vector<std::string>& all_instance_types) {
  OfferingRequest request;
  request.instance_types =
      input.instance_type ? std::vector<std::string>{*input.instance_type} : all_instance_types;
  if (input.ultraserver_count && !input.ultraserver_type) {
    return ValidationException("UltraServerCount needs UltraServerType.");
  }
  if (input.ultraserver_type) {
    // "You can only purchase UltraServers in full units": counted in UltraServers, not instances.
    if (input.instance_count) {
      return ValidationException(
          "An UltraServer search counts UltraServers: give UltraServerCount, not InstanceCount.");
    }
    // "You can use UltraServers for both SageMaker HyperPod and SageMaker training jobs."
    for (const std::string& target : input.target_resources) {
      if (target != WireName(PlanTarget::kTrainingJob) &&
          target != WireName(PlanTarget::kHyperPodCluster)) {
        return ValidationException(
            "UltraServer plans are sold for training-job and "
            "hyperpod-cluster only; got TargetResources " +
            target + ".");
      }
    }
    request.ultraserver_type = input.ultraserver_type;
    request.ultraserver_count = static_cast<int>(input.ultraserver_count.value_or(1));
  } else {
    const long long count = input.instance_count.value_or(1);
    if (auto sold = CheckPlanInstanceCount(count); !sold) return sold.error();
    request.instance_count = static_cast<int>(count);
  }
  auto duration = PlanDuration(input.duration_hours.value_or(kMinDurationHours));
  if (!duration) return duration.error();
  request.duration = *duration;
  request.start_after = std::max(now, input.start_after.value_or(now));
  request.end_before = input.end_before;
  if (request.end_before && *request.end_before <= request.start_after) {
    return ValidationException(
        "EndTimeBefore must be later than StartTimeAfter and the current time.");
  }
  request.latest_start = now + kAdvanceReservation;
  if (request.start_after > request.latest_start) {
    return ValidationException(
        "StartTimeAfter " + FormatIso8601(request.start_after) +
        " is more than 56 days ahead: training plans can be reserved up to 8 weeks (56 days) in "
        "advance of the start date.");
  }
  const TimePoint soonest = CeilToMinute(now + kMinimumLeadTime);
  // UltraServer plans start at 11:30 UTC only, as the guide's one UltraServer sample shows.
  request.start_now = request.start_after <= soonest && !request.ultraserver_type;
  request.earliest_start = std::max(soonest, CeilToMinute(request.start_after));
  request.target_resources =
      input.target_resources.empty()
          ? std::vector<std::string>{std::string(WireName(PlanTarget::kTrainingJob))}
          : input.target_resources;
  return request;
}

namespace {

// The windows one pool can sell for `request`, in the order they are offered.
std::vector<Window> PoolWindows(const CapacityLedger& ledger, const PoolKey& pool,
                                const OfferingRequest& request) {
  std::vector<Window> windows;
  const TimePoint last_end =
      request.end_before.value_or(PlanWindow(request.latest_start, request.duration).end + kDay);
  const std::vector<Window> free =
      ledger.FreeStretches(pool, {request.earliest_start, last_end}, request.instance_count);
  auto sellable = [&](const Window& window) {
    if (window.end > last_end) return false;
    auto after = std::upper_bound(free.begin(), free.end(), window.start,
                                  [](TimePoint t, const Window& w) { return t < w.start; });
    return after != free.begin() && std::prev(after)->end >= window.end;
  };
  // A plan bought to start at once, and the same plan one day longer.
  if (request.start_now && PlanDayEnd(request.earliest_start) != request.earliest_start) {
    const Window now = PlanWindow(request.earliest_start, request.duration);
    if (sellable(now)) {
      windows.push_back(now);
      if (const Window longer{now.start, now.end + kDay}; sellable(longer)) {
        windows.push_back(longer);
      }
    }
  }
  // Then plans of whole plan days, one start a day.
  for (TimePoint start = PlanDayEnd(request.earliest_start);
       start <= request.latest_start && windows.size() < kOfferingsPerZone; start += kDay) {
    const Window window = PlanWindow(start, request.duration);
    if (window.end > last_end) break;
    if (sellable(window)) windows.push_back(window);
  }
  return windows;
}

}  // namespace

namespace {

// The pools a search looks in, with the UltraServers each offering of it would hold: pools of
// the request's instance types not sold as UltraServers, or the pools of its UltraServer type.
std::vector<std::pair<PoolKey, std::optional<UltraServers>>> PoolsToSearch(
    const CapacityLedger& ledger, const CapacityConfig& config, const std::string& region,
    const OfferingRequest& request) {
  std::vector<std::pair<PoolKey, std::optional<UltraServers>>> pools;
  if (request.ultraserver_type) {
    for (const PoolSpec& spec : config.pools) {
      if (spec.key.region != region || !spec.ultraserver ||
          spec.ultraserver->type != *request.ultraserver_type) {
        continue;
      }
      pools.emplace_back(spec.key, UltraServers{spec.ultraserver->type, request.ultraserver_count,
                                                spec.ultraserver->instances, 0});
    }
    return pools;
  }
  std::set<PoolKey> ultraserver_pools;
  for (const PoolSpec& spec : config.pools) {
    if (spec.ultraserver) ultraserver_pools.insert(spec.key);
  }
  for (const std::string& type : request.instance_types) {
    for (const PoolKey& pool : ledger.PoolsOf(region, type)) {
      if (!ultraserver_pools.contains(pool)) pools.emplace_back(pool, std::nullopt);
    }
  }
  return pools;
}

}  // namespace

namespace {

using SearchPool = std::pair<PoolKey, std::optional<UltraServers>>;

// The instances an offering of `request` holds: its count, or its UltraServers' instances.
int InstancesOf(const OfferingRequest& request, const std::optional<UltraServers>& ultraservers) {
  return ultraservers ? ultraservers->count * ultraservers->instances_per : request.instance_count;
}

// The offering of `blocks` for `request`, priced and named.
Offering MakeOffering(std::vector<CapacityBlock> blocks, const OfferingRequest& request,
                      const std::optional<UltraServers>& ultraservers, int instance_count,
                      double hourly, const std::string& account) {
  Offering offering;
  offering.blocks = std::move(blocks);
  offering.instance_count = instance_count;
  offering.target_resources = request.target_resources;
  offering.ultraservers = ultraservers;
  offering.requested_start_after = request.start_after;
  offering.requested_end_before = request.end_before;
  offering.upfront_fee = Hours(ReservedTime(offering.blocks)) * instance_count * hourly;
  offering.id = OfferingId(account, offering);
  return offering;
}

// Whether a second block may be in another zone: "HyperPod offerings stay in one zone",
// training-job offerings may span zones. The emulator keeps endpoint plans in one zone too.
bool MaySpanZones(const OfferingRequest& request) {
  return std::all_of(
      request.target_resources.begin(), request.target_resources.end(),
      [](const std::string& target) { return target == WireName(PlanTarget::kTrainingJob); });
}

// The earliest block of `days` plan days that starts at 11:30 UTC at or after `from`, ends by
// `last_end` and lies in one of `free`'s stretches.
std::optional<Window> FirstFit(const std::vector<Window>& free, TimePoint from, long long days,
                               TimePoint last_end) {
  for (const Window& stretch : free) {
    const TimePoint start = PlanDayEnd(std::max(from, stretch.start));
    const Window block{start, start + days * kDay};
    if (block.end > last_end) return std::nullopt;
    if (block.end <= stretch.end) return block;
  }
  return std::nullopt;
}

// Plans of two blocks for `request` when no single block can hold it, from 11:30 UTC only. For
// each free stretch of a pool, the first block is as long as the stretch allows (less than the
// whole plan) and the second the rest, at the earliest in the same pool or, for training jobs,
// any pool of the type; the earliest to end first.
std::vector<Offering> TwoBlockOfferings(const CapacityLedger& ledger,
                                        const std::vector<SearchPool>& pools,
                                        const CapacityConfig& config, const std::string& account,
                                        const OfferingRequest& request) {
  const long long days = RoundUp(request.duration.count(), kDay.count()) / kDay.count();
  if (days < 2) return {};
  const TimePoint first_start = PlanDayEnd(request.earliest_start);
  const TimePoint last_end =
      request.end_before.value_or(PlanWindow(request.latest_start, request.duration).end + kDay);
  if (first_start >= last_end) return {};
  std::map<PoolKey, std::vector<Window>> free;
  for (const auto& [pool, ultraservers] : pools) {
    free[pool] =
        ledger.FreeStretches(pool, {first_start, last_end}, InstancesOf(request, ultraservers));
  }
  std::vector<Offering> offerings;
  for (const auto& [pool, ultraservers] : pools) {
    const auto price = config.prices.find(pool.instance_type);
    if (price == config.prices.end()) continue;
    for (const Window& stretch : free[pool]) {
      const TimePoint start = PlanDayEnd(stretch.start);
      if (start > request.latest_start) break;
      const long long fits = (stretch.end - start) / kDay;
      if (fits < 1) continue;
      const Window first{start, start + std::min(fits, days - 1) * kDay};
      const long long rest = days - (first.end - first.start) / kDay;
      std::optional<CapacityBlock> second;
      for (const auto& [other, other_ultraservers] : pools) {
        if (other.instance_type != pool.instance_type || other_ultraservers != ultraservers ||
            (other != pool && !MaySpanZones(request))) {
          continue;
        }
        const auto block = FirstFit(free[other], first.end, rest, last_end);
        // Prefer the earliest end, then the first block's own zone.
        if (block && (!second || block->end < second->window.end ||
                      (block->end == second->window.end && other == pool))) {
          second = CapacityBlock{other, *block, ""};
        }
      }
      if (!second) continue;
      offerings.push_back(MakeOffering({{pool, first, ""}, *second}, request, ultraservers,
                                       InstancesOf(request, ultraservers),
                                       price->second.plan_hourly, account));
    }
  }
  std::stable_sort(offerings.begin(), offerings.end(), [](const Offering& a, const Offering& b) {
    return std::make_pair(a.Span().end, a.Span().start) <
           std::make_pair(b.Span().end, b.Span().start);
  });
  if (offerings.size() > kSplitOfferings) offerings.resize(kSplitOfferings);
  return offerings;
}

}  // namespace

std::vector<Offering> SearchOfferings(const CapacityLedger& ledger, const CapacityConfig& config,
                                      const std::string& account, const std::string& region,
                                      const OfferingRequest& request) {
  std::vector<Offering> offerings;
  const std::vector<SearchPool> pools = PoolsToSearch(ledger, config, region, request);
  for (const auto& [pool, ultraservers] : pools) {
    auto price = config.prices.find(pool.instance_type);
    if (price == config.prices.end()) continue;
    OfferingRequest in_pool = request;
    in_pool.instance_count = InstancesOf(request, ultraservers);
    for (const Window& window : PoolWindows(ledger, pool, in_pool)) {
      offerings.push_back(MakeOffering({{pool, window, ""}}, request, ultraservers,
                                       in_pool.instance_count, price->second.plan_hourly, account));
    }
  }
  if (offerings.empty()) return TwoBlockOfferings(ledger, pools, config, account, request);
  std::stable_sort(offerings.begin(), offerings.end(), [](const Offering& a, const Offering& b) {
    return a.Span().start < b.Span().start;
  });
  if (offerings.size() > kMaxOfferings) offerings.resize(kMaxOfferings);
  return offerings;
}

std::vector<Offering> SearchExtensionOfferings(const CapacityLedger& ledger,
                                               const CapacityConfig& config,
                                               const std::string& plan_arn, const PoolKey& pool,
                                               int count, TimePoint plan_end,
                                               const std::vector<Millis>& durations) {
  std::vector<Offering> offerings;
  auto price = config.prices.find(pool.instance_type);
  if (price == config.prices.end()) return offerings;
  for (Millis duration : durations) {
    const Window window{plan_end, plan_end + duration};
    if (ledger.FreeReservable(pool, window) < count) continue;
    Offering offering;
    offering.blocks = {{pool, window, ""}};
    offering.instance_count = count;
    offering.upfront_fee = Hours(window) * count * price->second.plan_hourly;
    offering.id = OfferingId(plan_arn, offering, "tpeo-");
    offerings.push_back(std::move(offering));
  }
  return offerings;
}

std::vector<Window> WindowsOf(const std::vector<CapacityBlock>& blocks) {
  std::vector<Window> windows;
  windows.reserve(blocks.size());
  for (const CapacityBlock& block : blocks) windows.push_back(block.window);
  return windows;
}

std::vector<Window> WindowsForUsers(const Plan& plan) {
  if (plan.PaymentFails()) return {{plan.paid_at, plan.paid_at}};
  return WindowsOf(plan.blocks);
}

Window SpanOf(const std::vector<CapacityBlock>& blocks) {
  if (blocks.empty()) return {};
  return {blocks.front().window.start, blocks.back().window.end};
}

Millis ReservedTime(const std::vector<CapacityBlock>& blocks) {
  Millis time{0};
  for (const CapacityBlock& block : blocks) time += block.window.end - block.window.start;
  return time;
}

const CapacityBlock* Plan::BlockWithId(std::string_view id) const {
  for (const CapacityBlock& block : blocks) {
    if (block.id == id) return &block;
  }
  return nullptr;
}

const CapacityBlock* Plan::BlockFrom(TimePoint now) const {
  for (const CapacityBlock& block : blocks) {
    if (now < block.window.end) return &block;
  }
  return nullptr;
}

PlanStatus PlanStatusOf(const std::vector<Window>& blocks, TimePoint now) {
  const auto block = BlockFrom(blocks, now);
  if (!block) return PlanStatus::kExpired;
  return now < block->start ? PlanStatus::kScheduled : PlanStatus::kActive;
}

std::optional<Window> BlockFrom(const std::vector<Window>& blocks, TimePoint now) {
  for (const Window& block : blocks) {
    if (now < block.end) return block;
  }
  return std::nullopt;
}

PlanStatus PurchaseStatusOf(const Window& window, TimePoint paid_at, TimePoint now, bool fails) {
  if (now < paid_at) return PlanStatus::kPending;
  if (fails) return PlanStatus::kFailed;
  return PlanStatusOf(window, now);
}

std::vector<UltraServerState> UltraServerStates(const UltraServers& shape, int in_use,
                                                int unhealthy) {
  std::vector<UltraServerState> states;
  const int usable_each = shape.instances_per - shape.spares_per;
  for (int i = 0; i < shape.count; ++i) {
    UltraServerState state;
    state.unhealthy = std::min(unhealthy, shape.instances_per);
    unhealthy -= state.unhealthy;
    state.spares_available = std::max(0, shape.spares_per - state.unhealthy);
    const int usable = std::max(0, usable_each - std::max(0, state.unhealthy - shape.spares_per));
    state.in_use = std::min(in_use, usable);
    in_use -= state.in_use;
    state.available = usable - state.in_use;
    state.impaired = state.unhealthy > 0;
    states.push_back(state);
  }
  return states;
}

int UsableInstances(const Plan& plan) {
  return plan.instance_count - (plan.ultraservers ? plan.ultraservers->Spares() : 0);
}

Result<int> SparesPerUltraServer(std::optional<long long> requested, const UltraServers& offered) {
  const long long spares = requested.value_or(1);
  if (spares < 0 || spares >= offered.instances_per) {
    return ValidationException("SpareInstanceCountPerUltraServer must be from 0 to " +
                               std::to_string(offered.instances_per - 1) + " for " + offered.type +
                               "; got " + std::to_string(spares) + ".");
  }
  return static_cast<int>(spares);
}

std::string PurchaseStatusAt(const Window& window, TimePoint paid_at, TimePoint now, bool fails) {
  return std::string(ToString(PurchaseStatusOf(window, paid_at, now, fails)));
}

std::string PurchaseStatusAt(const std::vector<Window>& blocks, TimePoint paid_at, TimePoint now,
                             bool fails) {
  if (now < paid_at) return std::string(ToString(PlanStatus::kPending));
  if (fails) return std::string(ToString(PlanStatus::kFailed));
  return std::string(ToString(PlanStatusOf(blocks, now)));
}

PaymentStatus PaymentStatusOf(TimePoint paid_at, TimePoint now, bool fails) {
  if (now < paid_at) return PaymentStatus::kPending;
  return fails ? PaymentStatus::kFailed : PaymentStatus::kCompleted;
}

std::string PlanStatusAt(const Plan& plan, TimePoint now) {
  return PurchaseStatusAt(WindowsOf(plan.blocks), plan.paid_at, now, plan.PaymentFails());
}

PlanStatus PlanStatusOf(const Window& window, TimePoint now) {
  if (now < window.start) return PlanStatus::kScheduled;
  if (now < window.end) return PlanStatus::kActive;
  return PlanStatus::kExpired;
}

namespace {

constexpr WireNames<PlanStatus, 5> kPlanStatuses({{
    {PlanStatus::kPending, "Pending"},
    {PlanStatus::kScheduled, "Scheduled"},
    {PlanStatus::kActive, "Active"},
    {PlanStatus::kExpired, "Expired"},
    {PlanStatus::kFailed, "Failed"},
}});
static_assert(kPlanStatuses.Complete());

constexpr WireNames<PaymentStatus, 3> kPaymentStatuses({{
    {PaymentStatus::kPending, "Pending"},
    {PaymentStatus::kCompleted, "Completed"},
    {PaymentStatus::kFailed, "Failed"},
}});
static_assert(kPaymentStatuses.Complete());

constexpr WireNames<PlanTarget, 3> kPlanTargets({{
    {PlanTarget::kEndpoint, "endpoint"},
    {PlanTarget::kTrainingJob, "training-job"},
    {PlanTarget::kHyperPodCluster, "hyperpod-cluster"},
}});
static_assert(kPlanTargets.Complete());

}  // namespace

std::string_view ToString(PlanStatus status) { return kPlanStatuses.NameOf(status); }
std::string_view ToString(PaymentStatus status) { return kPaymentStatuses.NameOf(status); }

std::string PlanStatusAt(const Window& window, TimePoint now) {
  return std::string(ToString(PlanStatusOf(window, now)));
}

long long DurationHours(const Window& window) { return DurationHours(window.end - window.start); }

long long DurationMinutes(const Window& window) {
  return DurationMinutes(window.end - window.start);
}

long long DurationHours(Millis time) {
  return std::chrono::duration_cast<std::chrono::hours>(time).count();
}

long long DurationMinutes(Millis time) {
  return std::chrono::duration_cast<std::chrono::minutes>(time).count() % 60;
}

std::string FormatFee(double fee) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.2f", fee);
  return buffer;
}

std::string_view WireName(PlanTarget target) { return kPlanTargets.NameOf(target); }

}  // namespace smemu::domain
