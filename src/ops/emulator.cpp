#include "ops/emulator.hpp"

#include <future>
#include <random>

#include "domain/time_format.hpp"
#include "ops/arn.hpp"
#include "ops/handlers.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/plan_records.hpp"
#include "ops/tag_input.hpp"

namespace smemu::ops {
namespace {

constexpr const char* kClockSetting = "virtual_clock";
// Run-time pool changes (POST /_emulator/capacity), applied in order over the configuration.
constexpr const char* kCapacitySetting = "capacity_changes";

// The persisted clock: the virtual time and the base time it was read at, so a running clock keeps
// its offset across a restart and a frozen one stays where it was.
std::string EncodeClock(const VirtualClock::State& state, TimePoint base_now) {
  return nlohmann::json{{"now_ms", state.now.time_since_epoch().count()},
                        {"base_ms", base_now.time_since_epoch().count()},
                        {"frozen", state.frozen}}
      .dump();
}

std::optional<VirtualClock::State> DecodeClock(const std::string& text, TimePoint base_now) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  if (!doc.is_object() || !doc.contains("now_ms") || !doc.contains("base_ms")) return std::nullopt;
  const TimePoint saved_now{Millis{doc["now_ms"].get<int64_t>()}};
  const TimePoint saved_base{Millis{doc["base_ms"].get<int64_t>()}};
  const bool frozen = doc.value("frozen", false);
  return VirtualClock::State{frozen ? saved_now : saved_now + (base_now - saved_base), frozen};
}

}  // namespace

Emulator::Emulator(store::StateStore& store, const Clock& base_clock, ClockStart clock_start,
                   domain::CapacityConfig capacity, HostingOptions hosting, Durability durability)
    : store_(store),
      base_clock_(base_clock),
      clock_start_(clock_start),
      clock_(base_clock, clock_start.start.value_or(base_clock.Now()), clock_start.frozen),
      capacity_(std::move(capacity)),
      hosting_(std::move(hosting)),
      snapshot_epoch_(std::to_string(std::random_device{}() & 0xffffff)),
      durability_(durability) {
  AddModelHandlers(handlers_);
  AddTrainingPlanHandlers(handlers_);
  AddEndpointConfigHandlers(handlers_);
  AddEndpointHandlers(handlers_);
  AddJobHandlers(handlers_);
  AddTagHandlers(handlers_);
  invoke_endpoint_ = &ops::InvokeEndpoint;
  if (!clock_start.start) {
    if (auto saved = store_.GetSetting(kClockSetting)) {
      if (auto state = DecodeClock(*saved, base_clock_.Now())) {
        clock_.Reset(state->now, state->frozen);
      }
    }
  }
  std::lock_guard lock(mutex_);
  if (!store_.ReadOnly()) PersistClockLocked();  // a read-only file keeps the clock it has
  RebuildLedgerLocked();
  // The writes above are the last of the start; every write from here on is acknowledged.
  store_.EndStartup();
}

void Emulator::RebuildLedgerLocked() {
  ledger_ = domain::CapacityLedger();
  for (const domain::PoolSpec& pool : capacity_.pools) {
    ledger_.SetPool(pool.key, pool.reservable, pool.on_demand);
  }
  if (auto saved = store_.GetSetting(kCapacitySetting)) {
    for (const auto& pool : nlohmann::json::parse(*saved)) {
      ledger_.SetPool({pool.at("region"), pool.at("availability_zone"), pool.at("instance_type")},
                      pool.at("reservable"), pool.at("on_demand"));
    }
  }
  for (const PlanCommitment& plan : StoredPlanCommitments(store_)) {
    ledger_.Restore(plan.pool, plan.window, plan.count);
  }
  holdings_ = HoldingsFromStore(store_);
}

PoolView Emulator::ViewLocked(const domain::PoolKey& key, TimePoint now) {
  PoolView view;
  view.key = key;
  const auto* pool = ledger_.Find(key);
  if (pool == nullptr) return view;
  view.reservable = pool->reservable;
  view.on_demand = pool->on_demand;
  // The free count changes only where a reservation starts or ends; show a year ahead.
  const domain::Window ahead{now, now + 366 * domain::kDay};
  for (const auto& [from, committed] : pool->reserved.Steps(ahead)) {
    view.free_from_now.emplace_back(from, std::max(0, pool->reservable - committed));
  }
  return view;
}

Emulator::CapacityView Emulator::Capacity(const std::string& region,
                                          const std::string& instance_type,
                                          const std::optional<std::string>& account) {
  auto visible = [&account](const std::string& arn) {
    return !account || ArnAccount(arn) == *account;
  };
  std::lock_guard lock(mutex_);
  return InOneTransactionLocked([&]() -> CapacityView {
    const Context ctx = MakeContextLocked(Caller{});  // settled up to now
    const TimePoint now = ctx.now;
    std::map<domain::PoolKey, PoolView> views;
    for (const auto& [key, pool] : ledger_.pools()) {
      if (!region.empty() && key.region != region) continue;
      if (!instance_type.empty() && key.instance_type != instance_type) continue;
      views.emplace(key, ViewLocked(key, now));
    }
    for (const PlanCommitment& plan : StoredPlanCommitments(store_)) {
      auto it = views.find(plan.pool);
      if (it == views.end() || !visible(plan.training_plan_arn)) continue;
      it->second.reservations.push_back({plan.training_plan_arn, plan.window, plan.count});
    }
    CapacityView result{now, {}, {}};
    for (auto& [key, view] : views) result.pools.push_back(std::move(view));
    for (Holder& holder : HoldersIn(holdings_, region)) {
      if ((instance_type.empty() || holder.instance_type == instance_type) && visible(holder.arn)) {
        result.in_use.push_back(std::move(holder));
      }
    }
    return result;
  });
}

Emulator::Census Emulator::TakeCensus() {
  Census census;
  census.capacity = Capacity("", "");  // settles everything due first
  std::lock_guard lock(mutex_);
  census.resources = store_.CountByKindAndStatus();
  return census;
}

Emulator::Overview Emulator::Snapshot(const std::optional<std::string>& account,
                                      const std::string& since) {
  std::lock_guard lock(mutex_);
  const VirtualClock::State clock = clock_.GetState();
  if (store_.TotalChanges() != snapshot_mark_.changes || clock.now != snapshot_mark_.now) {
    ++snapshot_mark_.version;
  }
  auto version = [this] { return snapshot_epoch_ + "-" + std::to_string(snapshot_mark_.version); };
  if (!since.empty() && since == version()) {
    Overview unchanged;
    unchanged.version = since;
    unchanged.unchanged = true;
    unchanged.clock = clock;
    return unchanged;
  }
  return InOneTransactionLocked([&]() -> Overview {
    const Context ctx = MakeContextLocked(Caller{});  // settled up to now
    Overview result;
    result.clock = {ctx.now, clock.frozen};
    std::map<std::pair<std::string, std::string>, Overview::OnDemandUse> on_demand;
    for (const auto& [key, pool] : ledger_.pools()) {
      result.pools.push_back(ViewLocked(key, ctx.now));
      auto& use = on_demand[{key.region, key.instance_type}];
      use.total = use.total.value_or(0) + pool.on_demand;
    }
    std::map<std::string, int> by_plan;
    for (const Holder& holder : HoldersIn(holdings_, "")) {
      if (holder.training_plan_arn.empty()) {
        on_demand[{holder.region, holder.instance_type}].in_use += holder.count;
      } else {
        by_plan[holder.training_plan_arn] += holder.count;
      }
    }
    for (auto& [key, use] : on_demand) {
      use.region = key.first;
      use.instance_type = key.second;
      result.on_demand.push_back(std::move(use));
    }
    for (const store::ResourceRow& row : store_.AllOfKind(domain::kPlanKind)) {
      if (account && row.key.account != *account) continue;
      Plan plan = PlanFromRow(row);
      const auto used = by_plan.find(plan.arn);
      result.plans.push_back(
          {std::move(plan.name), std::move(plan.arn), row.key.account, std::move(plan.pool),
           plan.instance_count, used == by_plan.end() ? 0 : used->second, plan.window,
           domain::PlanStatusAt(plan.window, ctx.now), std::move(plan.target_resources)});
    }
    result.endpoints = EndpointOverviews(store_, account);
    result.jobs = JobOverviews(store_, ctx.now, account);
    if (ctx.now != clock.now) ++snapshot_mark_.version;  // a running clock moved meanwhile
    snapshot_mark_.changes = store_.TotalChanges();      // settling may have written
    snapshot_mark_.now = ctx.now;
    result.version = version();
    return result;
  });
}

domain::Result<PoolView> Emulator::ChangeCapacity(const PoolChange& change) {
  std::lock_guard lock(mutex_);
  return InOneTransactionLocked([&]() -> domain::Result<PoolView> {
    Context ctx = MakeContextLocked(Caller{});  // everything due before the change happens first
    const TimePoint now = ctx.now;
    const auto* pool = ledger_.Find(change.key);
    const int reservable = change.reservable.value_or(pool ? pool->reservable : 0);
    if (reservable > 0 && !capacity_.prices.count(change.key.instance_type)) {
      return domain::ValidationException("No plan prices are configured for instance type " +
                                         change.key.instance_type +
                                         ": only on-demand instances can be set.");
    }
    const int on_demand = change.on_demand.value_or(pool ? pool->on_demand : 0);
    if (reservable < 0 || on_demand < 0) {
      return domain::ValidationException("Instance counts must not be negative.");
    }
    // Plans already sold keep their instances: the pool can shrink only to what they still hold.
    const int sold = pool ? pool->reserved.MaxCommitted({now, TimePoint::max()}) : 0;
    if (reservable < sold) {
      return domain::ValidationException(
          "reservable cannot go below " + std::to_string(sold) +
          ": that many instances of this pool are sold to training plans from now on.");
    }
    ledger_.SetPool(change.key, reservable, on_demand);
    nlohmann::json saved = nlohmann::json::array();
    if (auto previous = store_.GetSetting(kCapacitySetting))
      saved = nlohmann::json::parse(*previous);
    saved.push_back({{"region", change.key.region},
                     {"availability_zone", change.key.availability_zone},
                     {"instance_type", change.key.instance_type},
                     {"reservable", reservable},
                     {"on_demand", on_demand}});
    store_.PutSetting(kCapacitySetting, saved.dump());
    SettleJobs(ctx);  // waiting jobs take instances that appeared
    return ViewLocked(change.key, now);
  });
}

bool Emulator::Emulates(const std::string& operation) const {
  return handlers_.find(operation) != handlers_.end();
}

void Emulator::SetHandlerForTest(const std::string& operation, Handler handler) {
  handlers_[operation] = std::move(handler);
}

Context Emulator::MakeContextLocked(const Caller& caller) {
  Context ctx{caller, clock_.Now(), store_, ledger_, holdings_, capacity_, offerings_, hosting_};
  SettleLocked(ctx);  // transitions that fell due before this request are applied first
  return ctx;
}

bool Emulator::SettledAsOf(TimePoint now) const {
  // The change count moves with every row written, rolled back or not: a store that has not moved
  // holds exactly what the last settling left.
  return store_.TotalChanges() == settled_.changes && !settled_.jobs_live &&
         (!settled_.next_due || now < *settled_.next_due);
}

void Emulator::SettleLocked(Context& ctx) {
  if (SettledAsOf(ctx.now)) return;
  settled_.next_due = SettleEndpoints(ctx);
  settled_.jobs_live = SettleJobs(ctx);
  settled_.changes = store_.TotalChanges();
}

domain::Result<nlohmann::json> Emulator::Invoke(const std::string& operation,
                                                const nlohmann::json& input, const Caller& caller) {
  std::lock_guard lock(mutex_);
  return InOneTransactionLocked([&] {
    // Like the model's constraints, the reserved tag prefix is checked before any handler runs.
    if (auto tags = CheckRequestTags(input); !tags) {
      return domain::Result<nlohmann::json>(tags.error());
    }
    Context ctx = MakeContextLocked(caller);
    auto result = handlers_.at(operation)(input, ctx);
    // Instances an endpoint or job gave back in this request go to waiting jobs at once (when
    // there are any: no job is live and nothing was written since settling, nothing can start).
    if (result && !SettledAsOf(ctx.now)) SettleJobs(ctx);
    return result;
  });
}

domain::Result<InvokeResponse> Emulator::InvokeEndpoint(const InvokeRequest& request,
                                                        const Caller& caller) {
  std::lock_guard lock(mutex_);
  InvokeRequest numbered = request;
  numbered.sequence = ++invocations_;
  return InOneTransactionLocked([&] {
    Context ctx = MakeContextLocked(caller);
    return invoke_endpoint_(numbered, ctx);
  });
}

store::GroupCommitter::Batch Emulator::CloseBatchLocked() {
  const std::uint64_t covers = store_.CommittedWrites();
  std::string failure = store_.CommitBatch();
  if (!failure.empty()) {
    settled_ = {};
    RebuildLedgerLocked();
  }
  return {covers, std::move(failure)};
}

void Emulator::WhenDurable(std::function<void(bool)> released) {
  committer_.WhenDurable(std::move(released));
}

void Emulator::WaitUntilDurable() {
  std::promise<void> done;
  committer_.WhenDurable([&done](bool) { done.set_value(); });
  done.get_future().wait();
}

VirtualClock::State Emulator::GetClock() const { return clock_.GetState(); }

domain::Result<VirtualClock::State> Emulator::ChangeClock(const ClockChange& change) {
  std::lock_guard lock(mutex_);
  const VirtualClock::State before = clock_.GetState();
  TimePoint target = change.set_to.value_or(before.now);
  if (target < before.now) {
    return domain::ValidationException(
        "The clock cannot move backwards: " + domain::FormatIso8601(target) +
        " is before the current " + domain::FormatIso8601(before.now) + ".");
  }
  if (change.advance_by) {
    if (change.advance_by->count() < 0) {
      return domain::ValidationException("advance_seconds must not be negative.");
    }
    target += *change.advance_by;
  }
  // A running clock may have moved past `target` by a few milliseconds since `before` was read;
  // Set() then keeps the later time, which is what the caller asked for.
  if (change.set_to || change.advance_by) clock_.Set(target);
  if (change.frozen) clock_.SetFrozen(*change.frozen);
  PersistClockLocked();
  return clock_.GetState();
}

void Emulator::Reset() {
  std::lock_guard lock(mutex_);
  store_.DeleteEverything();
  clock_.Reset(clock_start_.start.value_or(base_clock_.Now()), clock_start_.frozen);
  PersistClockLocked();
  RebuildLedgerLocked();
  offerings_.clear();
}

void Emulator::PersistClockLocked() {
  store_.PutSetting(kClockSetting, EncodeClock(clock_.GetState(), base_clock_.Now()));
}

}  // namespace smemu::ops
