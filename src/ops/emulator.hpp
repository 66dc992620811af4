// Emulator: the operation layer's front door. It owns the table of operation handlers. Writes run
// one at a time under the request lock, and each one that commits installs the next immutable
// version of the state (the rows, the ledger, the holdings, the quotas, and when settling next
// falls due). Reads (Describe*, List*, invocations) run on the version installed last, on the
// caller's thread, without the lock, while nothing has fallen due since it was installed.
// It also serves the emulator's own admin actions: the virtual clock and reset.
// Thread-safe: any transport thread may call any method.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "domain/aws_error.hpp"
#include "ops/apply.hpp"
#include "ops/container_health.hpp"
#include "ops/context.hpp"
#include "ops/edit.hpp"
#include "ops/faults.hpp"
#include "ops/versioned.hpp"
#include "smemu/clock.hpp"
#include "smemu/mutex.hpp"
#include "store/group_commit.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

struct QuotaDocument;  // ops/quota_document.hpp

// How the virtual clock starts, and where reset puts it back.
struct ClockStart {
  std::optional<TimePoint> start;  // nullopt: the base clock's current time
  bool frozen = false;
};

// A requested clock change; every part is optional and they apply in the order set, advance,
// freeze.
struct ClockChange {
  std::optional<TimePoint> set_to;
  std::optional<Millis> advance_by;
  std::optional<bool> frozen;
};

class Emulator {
 public:
  // `base_clock` drives the virtual clock while it runs; `store` keeps everything durable. Both
  // must outlive the Emulator. Restores a persisted clock unless `clock_start.start` is given.
  // `capacity` sets up the ledger's pools; plans already in the store are committed on top.
  // Ends the store's start-up mode (StateStore::EndStartup): later writes are synced.
  Emulator(store::StateStore& store, const Clock& base_clock, ClockStart clock_start,
           domain::CapacityConfig capacity = {}, HostingOptions hosting = {});

  // True when a handler exists for the control-plane operation.
  bool Emulates(const std::string& operation) const;
  // Replaces (or adds) the handler of a control-plane operation, e.g. with one that answers what
  // the model forbids. REQUIRES: no request is being served.
  void SetHandlerForTest(const std::string& operation, Handler handler);
  // REQUIRES: Emulates(operation); `input` passed model validation.
  domain::Result<Answer> Invoke(const std::string& operation, const nlohmann::json& input,
                                const Caller& caller);
  domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, const Caller& caller);

  // Commits the store's open batch of writes under the request lock, for a group committer
  // (store::GroupCommitter, which app/ runs beside the Emulator when the store defers its syncs).
  // If the store lost the batch, what memory holds of those writes (ledger, holdings, settling)
  // is rebuilt from what the store still has.
  store::GroupCommitter::Batch CloseBatch();

  VirtualClock::State GetClock() const;
  // Applies a change; moving backwards is refused with a ValidationException and changes nothing.
  domain::Result<VirtualClock::State> ChangeClock(const ClockChange& change);
  // Deletes all resources of all accounts and puts the clock back to its start; drops the fault
  // rules added at run time and starts the file's over.
  void Reset();

  // The fault rules in force (thread-safe itself).
  FaultRules& faults() { return faults_; }
  // After the rules changed: the next request settles again, since a node failure may have
  // fallen due or a new one be scheduled.
  void FaultRulesChanged() SMEMU_EXCLUDES(mutex_);

  // The account service quotas a server starts with (from --quotas); reset returns to them.
  // A table changed since (ChangeQuotas) and kept in the store wins at start.
  // REQUIRES: no request is being served.
  void SetStartingQuotas(domain::QuotaTable quotas);
  domain::QuotaTable GetQuotas() const;  // without the lock
  // Applies `change` (see ops/quota_document.hpp), keeps the result in the store, and lets waiting
  // jobs start if a quota grew.
  domain::QuotaTable ChangeQuotas(const QuotaDocument& change);

  // Runs `work(ctx)` as the admin API's requests run: under the request lock, in one store
  // transaction, with a context at the clock's now and everything due by then settled. The caller
  // is nobody (admin requests belong to no account). See ops/admin_views.hpp.
  template <typename Work>
  auto Administer(Work&& work) SMEMU_EXCLUDES(mutex_) {
    return Served([&](bool& wrote) SMEMU_REQUIRES(mutex_) {
      wrote = false;
      return InOneTransactionLocked([&]() SMEMU_REQUIRES(mutex_) {
        return WithContextLocked(Caller{}, [&](const Context& ctx) { return work(ctx); });
      });
    });
  }
  // The same for an admin change: `work(ctx, applier)` applies its changes through the applier.
  template <typename Work>
  auto AdministerChange(Work&& work) SMEMU_EXCLUDES(mutex_) {
    return Served([&](bool& wrote) SMEMU_REQUIRES(mutex_) {
      wrote = true;
      return InOneTransactionLocked([&]() SMEMU_REQUIRES(mutex_) {
        return WithContextLocked(Caller{}, [&](const Context& ctx) SMEMU_REQUIRES(mutex_) {
          Applier applier = ApplierLocked();
          settled_.written = true;  // the change may free or take what the settlers look at
          return work(ctx, applier);
        });
      });
    });
  }

 private:
  // How long a request waits, without the lock, for the container health checks its settling
  // asked for (each ping has its own timeout, 2 s by default).
  static constexpr std::chrono::milliseconds kHealthCheckWait{5'000};
  // Serves a request: `locked(wrote)` runs under the lock and says whether it wrote. When its
  // settling asked for container health checks, their answers are awaited after the lock is let
  // go (other requests go on meanwhile) and acted on before the caller hears back: a read runs
  // again, so its answer shows what they decided; a write's endpoints settle.
  template <typename Locked>
  auto Served(Locked&& locked) SMEMU_EXCLUDES(mutex_) {
    bool wrote = false;
    std::vector<ContainerAddress> asked;
    auto once = [&] {
      MutexLock lock(mutex_);
      auto result = locked(wrote);
      PublishLocked();
      if (health_) asked = health_->TakeNewlyAsked();
      return result;
    };
    auto result = once();
    if (asked.empty()) return result;
    health_->WaitFor(asked, kHealthCheckWait);
    if (!wrote) return once();
    SettleAfterHealthChecks();
    return result;
  }
  void SettleAfterHealthChecks() SMEMU_EXCLUDES(mutex_);

  // Installs the state as the lock holder left it, for reads to take. Called as every locked
  // section ends, outside any transaction.
  void PublishLocked() SMEMU_REQUIRES(mutex_);
  // Runs `serve(ctx)` on the version installed last, when it is settled as of now: nothing written
  // or fallen due since. nullopt when it is not, or when the read turned out to change something
  // (an edit, a search remembered): the caller then serves it under the lock.
  template <typename Serve>
  auto OnSnapshot(const Caller& caller, Serve&& serve)
      -> std::optional<decltype(serve(std::declval<Context&>()))>;
  void PersistClockLocked() SMEMU_REQUIRES(mutex_);
  // Applies one change at the clock's now (the emulator's own: the clock, a reset, the start).
  void ApplyLocked(const Edit::Change& change) SMEMU_REQUIRES(mutex_);
  // Rebuilds what memory keeps beside the store (the ledger and the holdings) from the store:
  // at start, after a reset, and when the database lost a batch of writes.
  void RebuildLedgerLocked() SMEMU_REQUIRES(mutex_);
  // Puts what memory keeps beside the store back as the last installed version had it: a
  // rolled-back transaction leaves the store as that version had it too.
  void RollBackMemoryLocked() SMEMU_REQUIRES(mutex_);
  // A context at the clock's now whose changes go to `edit`, with everything due by then settled.
  Context MakeContextLocked(const Caller& caller, Edit& edit) SMEMU_REQUIRES(mutex_);
  // Runs `work(ctx)` on a context whose edit must stay empty: a read changes nothing, and an
  // admin change applies what it changes through an Applier. A change added to that edit would
  // be lost, so it is a defect (std::logic_error), which rolls the transaction back.
  template <typename Work>
  auto WithContextLocked(const Caller& caller, Work&& work) SMEMU_REQUIRES(mutex_) {
    Edit none;
    Context ctx = MakeContextLocked(caller, none);
    auto result = work(ctx);
    if (!none.empty())
      throw std::logic_error("a change went to the edit of a request that has none");
    return result;
  }
  // The one write path (ops/apply.hpp): settling, edits and admin changes go through it.
  Applier ApplierLocked() SMEMU_REQUIRES(mutex_) {
    return Applier(Writer{store_, ledger_, holdings_, quotas_});
  }
  // Settles endpoints, clusters and jobs up to ctx.now, unless the last settling still holds:
  // nothing was written since and nothing has fallen due (settled_). Most requests are reads
  // between writes, and settling reads every resource in transition.
  void SettleLocked(const Context& ctx) SMEMU_REQUIRES(mutex_);
  // Runs `work` (settling and a handler) as one store transaction: a request's writes land
  // together or not at all. If it throws, the store rolls its rows back, and what memory keeps
  // beside them goes back to the last installed version with them.
  template <typename Work>
  auto InOneTransactionLocked(Work&& work) SMEMU_REQUIRES(mutex_) {
    try {
      store::StateStore::WriteScope writes(store_);
      auto result = work();
      writes.Commit();
      return result;
    } catch (...) {
      settled_ = {};  // settling done in the transaction was rolled back with it
      if (store_.BatchLost()) {
        RebuildLedgerLocked();  // earlier requests' writes went too
        PublishLocked();
      } else {
        RollBackMemoryLocked();
      }
      store_.RethrowNamingTheFile();
    }
  }

  // Held for every request: one caller at a time in handlers and store. Declared first: the
  // members below name it.
  mutable Mutex mutex_;
  store::StateStore& store_ SMEMU_GUARDED_BY(mutex_);
  const Clock& base_clock_;
  const ClockStart clock_start_;
  VirtualClock clock_;  // thread-safe itself: GetClock reads it without the request lock
  // Written only before the first request (the constructor, SetHandlerForTest).
  std::map<std::string, Handler, std::less<>> handlers_;
  RuntimeHandler invoke_endpoint_;
  const domain::CapacityConfig capacity_;
  domain::QuotaTable starting_quotas_ SMEMU_GUARDED_BY(mutex_);
  Versioned<domain::QuotaTable> quotas_ SMEMU_GUARDED_BY(mutex_);
  Versioned<domain::CapacityLedger> ledger_ SMEMU_GUARDED_BY(mutex_);
  // In step with the store's endpoints, jobs and clusters.
  Versioned<domain::Holdings> holdings_ SMEMU_GUARDED_BY(mutex_);
  OfferingBook offerings_ SMEMU_GUARDED_BY(mutex_);
  const HostingOptions hosting_;
  FaultRules faults_;
  // Numbers invocations for the traffic split.
  std::atomic<std::uint64_t> invocations_{0};
  // The schedule: whether anything was written since the last settling (an applied edit, an admin
  // change, a reset, a rollback: every write goes through this class), and when the next
  // endpoint, cluster or job event falls due by time alone. Until one of them happens, a request
  // settles nothing: running jobs do not make every read re-read every live resource.
  struct Schedule {
    bool written = true;  // settle at the next request
    std::optional<TimePoint> next_due;
    bool SettledAsOf(TimePoint now) const { return !written && (!next_due || now < *next_due); }
  } settled_ SMEMU_GUARDED_BY(mutex_);
  struct Version {
    std::shared_ptr<const store::Tables> rows;
    std::shared_ptr<const domain::CapacityLedger> ledger;
    std::shared_ptr<const domain::Holdings> holdings;
    std::shared_ptr<const domain::QuotaTable> quotas;
    Schedule settled;
    TimePoint at{};  // the clock's time when it was installed
  };
  // The version reads take; replaced, never changed, by PublishLocked.
  std::atomic<std::shared_ptr<const Version>> published_;
  // Pings real containers off the request lock; null without HostingOptions::probe. Last, so its
  // thread stops before anything it might touch goes.
  std::unique_ptr<ContainerHealth> health_;
};

}  // namespace smemu::ops
