#include "ops/emulator.hpp"

#include <map>
#include <vector>

#include "domain/time_format.hpp"
#include "ops/arn.hpp"
#include "ops/handlers.hpp"
#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/plan_records.hpp"
#include "ops/pool_changes.hpp"
#include "ops/quota_document.hpp"
#include "ops/record_codec.hpp"
#include "ops/settings.hpp"
#include "ops/tag_input.hpp"

namespace smemu::ops {
Emulator::Emulator(store::StateStore& store, const Clock& base_clock, ClockStart clock_start,
                   domain::CapacityConfig capacity, HostingOptions hosting)
    : store_(store),
      base_clock_(base_clock),
      clock_start_(clock_start),
      clock_(base_clock, clock_start.start.value_or(base_clock.Now()), clock_start.frozen),
      capacity_(std::move(capacity)),
      hosting_(std::move(hosting)) {
  if (hosting_.probe) health_ = std::make_unique<ContainerHealth>(hosting_.probe);
  for (const KindDescriptor* kind : Kinds()) kind->add_handlers(handlers_);
  AddTagHandlers(handlers_);
  invoke_endpoint_ = &ops::InvokeEndpoint;
  if (!clock_start.start) {
    if (auto saved = store_.Rows().GetSetting(kClockSetting)) {
      const VirtualClock::State state = DecodeClock(*saved, base_clock_.Now());
      clock_.Reset(state.now, state.frozen);
    }
  }
  MutexLock lock(mutex_);
  if (!store_.ReadOnly()) PersistClockLocked();  // a read-only file keeps the clock it has
  RebuildLedgerLocked();
  if (!store_.ReadOnly()) {
    // A saved clock never runs backwards; only --clock-start can start before the history.
    if (clock_start.start) ApplyLocked(Edit::CutHistoryAt{clock_.Now()});
    ApplyLocked(Edit::ReconcileHoldingsLog{});
  }
  // The writes above are the last of the start; every write from here on is acknowledged.
  store_.EndStartup();
  PublishLocked();
}

void Emulator::RebuildLedgerLocked() {
  domain::CapacityLedger& ledger = ledger_.Write();
  ledger = domain::CapacityLedger();
  for (const domain::PoolSpec& pool : capacity_.pools) {
    ledger.SetPool(pool.key, pool.reservable, pool.on_demand);
  }
  ApplySavedPoolChanges(store_.Rows(), ledger);
  std::map<domain::PoolKey, std::vector<domain::Commitment>> sold;
  std::vector<PlanCommitment> held;  // purchases whose payment has yet to fail
  const TimePoint now = clock_.Now();
  ForEachStoredPlanCommitment(store_.Rows(), [&sold, &held, now](const PlanCommitment& plan) {
    if (!plan.lapses_at) {
      sold[plan.pool].push_back({plan.window, plan.count});
    } else if (now < *plan.lapses_at) {
      held.push_back(plan);
    }
  });
  for (const auto& [pool, commitments] : sold) ledger.Restore(pool, commitments);
  for (const PlanCommitment& plan : held) {
    ledger.RestoreHold(plan.pool, plan.window, plan.count, *plan.lapses_at);
  }
  holdings_.Write() = HoldingsFromStore(store_.Rows());
}

void Emulator::RollBackMemoryLocked() {
  ledger_.Restore();
  holdings_.Restore();
  quotas_.Restore();
}

void Emulator::PublishLocked() {
  auto version = std::make_shared<Version>();
  version->rows = std::make_shared<const store::Tables>(store_.Rows());
  version->ledger = ledger_.Snapshot();
  version->holdings = holdings_.Snapshot();
  version->quotas = quotas_.Snapshot();
  version->settled = settled_;
  version->at = clock_.Now();
  published_.store(std::move(version));
}

template <typename Serve>
auto Emulator::OnSnapshot(const Caller& caller, Serve&& serve)
    -> std::optional<decltype(serve(std::declval<Context&>()))> {
  const std::shared_ptr<const Version> version = published_.load();
  // Not before the version: a writer may have read the clock after this thread did.
  const TimePoint now = std::max(clock_.Now(), version->at);
  if (!version->settled.SettledAsOf(now)) return std::nullopt;
  Edit edit;
  OfferingBook remembered;
  Context ctx{caller,
              now,
              *version->rows,
              *version->ledger,
              *version->holdings,
              capacity_,
              *version->quotas,
              remembered,
              hosting_,
              edit,
              faults_};
  auto result = serve(ctx);
  if (!edit.empty() || remembered.size() != 0) return std::nullopt;
  return result;
}

namespace {

// The control-plane operations that only read: served from a snapshot when it is settled.
bool OnlyReads(const std::string& operation) {
  return operation.starts_with("Describe") || operation.starts_with("List");
}

}  // namespace

bool Emulator::Emulates(const std::string& operation) const {
  return handlers_.find(operation) != handlers_.end();
}

void Emulator::SetHandlerForTest(const std::string& operation, Handler handler) {
  handlers_[operation] = std::move(handler);
}

Context Emulator::MakeContextLocked(const Caller& caller, Edit& edit) {
  Context ctx{caller,    clock_.Now(),   store_.Rows(), ledger_.Read(), holdings_.Read(),
              capacity_, quotas_.Read(), offerings_,    hosting_,       edit,
              faults_,   health_.get(),  &store_};
  SettleLocked(ctx);  // transitions that fell due before this request are applied first
  return ctx;
}

void Emulator::SettleLocked(const Context& ctx) {
  if (settled_.SettledAsOf(ctx.now)) return;
  Applier applier = ApplierLocked();
  settled_ = {false, SettleEverything(ctx, applier)};
}

domain::Result<Answer> Emulator::Invoke(const std::string& operation, const nlohmann::json& input,
                                        const Caller& caller) {
  // Like the model's constraints, the reserved tag prefix is checked before any handler runs.
  if (auto tags = CheckRequestTags(input); !tags) return domain::Result<Answer>(tags.error());
  const Handler& handler = handlers_.at(operation);
  if (OnlyReads(operation)) {
    auto answer = OnSnapshot(caller, [&](Context& ctx) { return handler(input, ctx); });
    if (answer) return std::move(*answer);
  }
  return Served([&](bool& wrote) SMEMU_REQUIRES(mutex_) {
    return InOneTransactionLocked([&]() SMEMU_REQUIRES(mutex_) {
      Edit edit;
      Context ctx = MakeContextLocked(caller, edit);
      auto result = handler(input, ctx);
      wrote = result && !edit.empty();
      // An error changes nothing, and a read has nothing to apply or settle. Otherwise the
      // handler's change is applied, then what it changed settles at once: an endpoint or cluster
      // without a provisioning delay is in service, a job starts where capacity is free, and
      // instances given back go to waiting jobs. Handlers themselves never write.
      if (!wrote) return result;
      Applier applier = ApplierLocked();
      applier.Apply(edit, ctx.now);
      settled_ = {false, SettleAtNow(ctx, applier)};
      return result;
    });
  });
}

domain::Result<InvokeResponse> Emulator::InvokeEndpoint(const InvokeRequest& request,
                                                        const Caller& caller) {
  InvokeRequest numbered = request;
  numbered.sequence = ++invocations_;
  auto answer = OnSnapshot(caller, [&](Context& ctx) { return invoke_endpoint_(numbered, ctx); });
  if (answer) return std::move(*answer);
  return Served([&](bool& wrote) SMEMU_REQUIRES(mutex_) {
    wrote = false;
    return InOneTransactionLocked([&]() SMEMU_REQUIRES(mutex_) {
      return WithContextLocked(caller,
                               [&](Context& ctx) { return invoke_endpoint_(numbered, ctx); });
    });
  });
}

void Emulator::SettleAfterHealthChecks() {
  MutexLock lock(mutex_);
  InOneTransactionLocked([&]() SMEMU_REQUIRES(mutex_) {
    // Making the context settles what the answers decided.
    return WithContextLocked(Caller{}, [](const Context&) { return true; });
  });
  PublishLocked();
}

store::GroupCommitter::Batch Emulator::CloseBatch() {
  MutexLock lock(mutex_);
  const std::uint64_t covers = store_.CommittedWrites();
  std::string failure = store_.CommitBatch();
  if (!failure.empty()) {
    settled_ = {};
    RebuildLedgerLocked();
    PublishLocked();
  }
  return {covers, std::move(failure)};
}

VirtualClock::State Emulator::GetClock() const { return clock_.GetState(); }

domain::Result<VirtualClock::State> Emulator::ChangeClock(const ClockChange& change) {
  MutexLock lock(mutex_);
  const VirtualClock::State before = clock_.GetState();
  TimePoint target = change.set_to.value_or(before.now);
  // Time never runs backwards for a resource. With none (a new server, or after a reset) there is
  // nothing to protect, so a scenario or a test may start its story at any date, past ones too.
  const bool backwards = target < before.now;
  if (backwards && store_.Rows().HasResources()) {
    return domain::ValidationException(
        "The clock cannot move backwards: " + domain::FormatIso8601(target) +
        " is before the current " + domain::FormatIso8601(before.now) + ".");
  }
  if (backwards) {
    ApplyLocked(Edit::CutHistoryAt{target});  // what happens again from `target` is counted once
    clock_.Reset(target, before.frozen);
    offerings_.clear();  // found at a later time
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
  PublishLocked();
  return clock_.GetState();
}

void Emulator::FaultRulesChanged() {
  MutexLock lock(mutex_);
  settled_.written = true;
  PublishLocked();
}

void Emulator::Reset() {
  MutexLock lock(mutex_);
  ApplyLocked(Edit::EraseEverything{});
  settled_ = {};
  quotas_.Write() = starting_quotas_;
  clock_.Reset(clock_start_.start.value_or(base_clock_.Now()), clock_start_.frozen);
  PersistClockLocked();
  RebuildLedgerLocked();
  offerings_.clear();
  faults_.Reset();
  PublishLocked();
}

void Emulator::SetStartingQuotas(domain::QuotaTable quotas) {
  MutexLock lock(mutex_);
  starting_quotas_ = std::move(quotas);
  quotas_.Write() = starting_quotas_;
  if (auto saved = store_.Rows().GetSetting(kQuotasSetting)) {
    quotas_.Write() = codec::DecodingSetting(kQuotasSetting, *saved, &QuotaTableFromJson);
  }
  PublishLocked();
}

domain::QuotaTable Emulator::GetQuotas() const { return *published_.load()->quotas; }

domain::QuotaTable Emulator::ChangeQuotas(const QuotaDocument& change) {
  return Served([&](bool& wrote) SMEMU_REQUIRES(mutex_) {
    wrote = true;
    return InOneTransactionLocked([&]() SMEMU_REQUIRES(mutex_) {
      // What fell due happened under the old quotas.
      return WithContextLocked(Caller{}, [&](const Context& ctx) SMEMU_REQUIRES(mutex_) {
        domain::QuotaTable changed = quotas_.Read();
        ApplyQuotaDocument(change, changed);
        Applier applier = ApplierLocked();
        applier.Apply(Edit::SetQuotas{std::move(changed)}, ctx.now);
        settled_ = {};
        SettleWaiting(ctx, applier);  // a waiting job may fit a quota that grew
        return quotas_.Read();
      });
    });
  });
}

void Emulator::PersistClockLocked() {
  ApplyLocked(Edit::SaveClock{clock_.GetState(), base_clock_.Now()});
}

void Emulator::ApplyLocked(const Edit::Change& change) {
  ApplierLocked().Apply(change, clock_.Now());
}

}  // namespace smemu::ops
