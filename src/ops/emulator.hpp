// Emulator: the operation layer's front door. It owns the table of operation handlers and runs each
// request under one lock, so the store (and, later, the capacity ledger) see one caller at a time.
// It also serves the emulator's own admin actions: the virtual clock and reset.
// Thread-safe: any transport thread may call any method.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "domain/aws_error.hpp"
#include "ops/capacity_use.hpp"
#include "ops/context.hpp"
#include "ops/overview.hpp"
#include "smemu/clock.hpp"
#include "store/group_commit.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

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

// One pool as the admin API shows it.
struct PoolView {
  domain::PoolKey key;
  int reservable = 0;
  int on_demand = 0;
  struct Reservation {
    std::string training_plan_arn;
    domain::Window window;
    int count = 0;
  };
  std::vector<Reservation> reservations;
  std::vector<std::pair<TimePoint, int>> free_from_now;  // (from, free reservable instances)
};

// A run-time change of one pool's counts; unset counts are kept.
struct PoolChange {
  domain::PoolKey key;
  std::optional<int> reservable;
  std::optional<int> on_demand;
};

// How writes become durable before they are acknowledged.
enum class Durability {
  kGroupCommit,    // batched and synced by a committer thread (store::GroupCommitter)
  kCallerCommits,  // the caller holds a WriteScope around many requests: answers go at once
};

class Emulator {
 public:
  // `base_clock` drives the virtual clock while it runs; `store` keeps everything durable. Both
  // must outlive the Emulator. Restores a persisted clock unless `clock_start.start` is given.
  // `capacity` sets up the ledger's pools; plans already in the store are committed on top.
  // Ends the store's start-up mode (StateStore::EndStartup): later writes are synced.
  Emulator(store::StateStore& store, const Clock& base_clock, ClockStart clock_start,
           domain::CapacityConfig capacity = {}, HostingOptions hosting = {},
           Durability durability = Durability::kGroupCommit);

  // True when a handler exists for the control-plane operation.
  bool Emulates(const std::string& operation) const;
  // Replaces (or adds) the handler of a control-plane operation, e.g. with one that answers what
  // the model forbids. REQUIRES: no request is being served.
  void SetHandlerForTest(const std::string& operation, Handler handler);
  // REQUIRES: Emulates(operation); `input` passed model validation.
  domain::Result<nlohmann::json> Invoke(const std::string& operation, const nlohmann::json& input,
                                        const Caller& caller);
  domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, const Caller& caller);

  // Calls `released` once everything committed so far is on disk (see store::GroupCommitter):
  // an answer must not be sent before what it reports or has seen is durable. At once when it
  // already is; otherwise later, from another thread. `durable` false: the sync failed.
  void WhenDurable(std::function<void(bool durable)> released);
  // Waits until everything committed so far is durable and every earlier WhenDurable() caller
  // has been released (shutdown).
  void WaitUntilDurable();

  VirtualClock::State GetClock() const;
  // Applies a change; moving backwards is refused with a ValidationException and changes nothing.
  domain::Result<VirtualClock::State> ChangeClock(const ClockChange& change);
  // Deletes all resources of all accounts and puts the clock back to its start.
  void Reset();

  // Every pool (optionally of one region and/or instance type) with its reservations, and who
  // holds instances right now.
  struct CapacityView {
    TimePoint now;
    std::vector<PoolView> pools;
    std::vector<Holder> in_use;
  };
  // `account`: show only that account's reservations and holders (pool counts stay global).
  CapacityView Capacity(const std::string& region, const std::string& instance_type,
                        const std::optional<std::string>& account = std::nullopt);
  // Everything the metrics report about state, settled to now: resources of every account by
  // kind and status, and the whole capacity view.
  struct Census {
    std::vector<store::StateStore::KindStatusCount> resources;
    CapacityView capacity;
  };
  Census TakeCensus();

  // Everything at one instant, settled to the clock, for the dashboard.
  struct Overview {
    // Changes whenever the content may have: after a write by any request or a clock move.
    std::string version;
    bool unchanged = false;  // the caller's `since` is current: only `clock` is filled in
    VirtualClock::State clock;
    std::vector<PoolView> pools;  // counts and free reservable steps; reservations are in `plans`
    // On-demand instances of a type in a region: the pools' total (nullopt: the configuration
    // does not limit the type) and how many endpoints and jobs of every account hold now.
    struct OnDemandUse {
      std::string region;
      std::string instance_type;
      std::optional<int> total;
      int in_use = 0;
    };
    std::vector<OnDemandUse> on_demand;
    std::vector<PlanOverview> plans;
    std::vector<EndpointOverview> endpoints;
    std::vector<JobOverview> jobs;
  };
  // `account`: only that account's plans, endpoints and jobs (pool counts stay global).
  // `since`: a version from an earlier snapshot; when it is still current, nothing else is built.
  Overview Snapshot(const std::optional<std::string>& account = std::nullopt,
                    const std::string& since = "");
  // Changes a pool's counts (creating the pool if its instance type has prices). Refuses to lower
  // `reservable` below what is already sold from now on. Persisted across restarts.
  domain::Result<PoolView> ChangeCapacity(const PoolChange& change);

 private:
  void PersistClockLocked();
  // Commits the store's batch of writes for the group committer. If the store lost it, what
  // memory holds of those writes (ledger, settling) is rebuilt from what the store still has.
  store::GroupCommitter::Batch CloseBatchLocked();
  // Rebuilds what memory keeps beside the store (the ledger and the holdings) from the store.
  void RebuildLedgerLocked();
  PoolView ViewLocked(const domain::PoolKey& key, TimePoint now);
  // A context at the clock's now, with everything due by then settled.
  Context MakeContextLocked(const Caller& caller);
  // Settles endpoints and jobs up to ctx.now, unless the last settling still holds: nothing was
  // written since, no job is in progress and no endpoint transition has fallen due. Most requests
  // are reads between writes, and settling costs several queries.
  void SettleLocked(Context& ctx);
  bool SettledAsOf(TimePoint now) const;
  // Runs `work` (settling and a handler) as one store transaction: a request's writes land
  // together or not at all. If it throws, the rollback is followed by a ledger rebuild, since
  // the in-memory ledger may have taken commitments the store no longer has.
  template <typename Work>
  auto InOneTransactionLocked(Work&& work) {
    try {
      store::StateStore::WriteScope writes(store_);
      auto result = work();
      writes.Commit();
      return result;
    } catch (...) {
      settled_ = {};  // settling done in the transaction was rolled back with it
      RebuildLedgerLocked();
      store_.RethrowNamingTheFile();
    }
  }

  store::StateStore& store_;
  const Clock& base_clock_;
  const ClockStart clock_start_;
  VirtualClock clock_;
  std::map<std::string, Handler, std::less<>> handlers_;
  RuntimeHandler invoke_endpoint_;
  domain::CapacityConfig capacity_;
  domain::CapacityLedger ledger_;
  domain::Holdings holdings_;  // in step with the store's endpoints and jobs
  OfferingBook offerings_;
  const HostingOptions hosting_;
  std::uint64_t invocations_ = 0;  // numbers invocations for the traffic split
  // What the last settling left: the store's change count after it (-1: settle next time), whether
  // jobs are in progress, and when the next endpoint transition falls due.
  struct SettledMark {
    long long changes = -1;
    bool jobs_live = true;
    std::optional<TimePoint> next_due;
  } settled_;
  // What the last snapshot saw: the store's change count after it, and the time it was taken at.
  // Settling again at the same time with no write in between gives the same content.
  struct SnapshotMark {
    long long changes = -1;
    TimePoint now{};
    std::uint64_t version = 0;
  } snapshot_mark_;
  const std::string snapshot_epoch_;  // tells this run's versions from an earlier run's
  mutable std::mutex mutex_;  // held for every request: one caller at a time in handlers and store
  // Declared last: constructed after the setup above wrote with synchronous commits, destroyed
  // first, releasing whoever still waits.
  const Durability durability_;
  store::GroupCommitter committer_{store_,
                                   [this] {
                                     std::lock_guard lock(mutex_);
                                     return CloseBatchLocked();
                                   },
                                   durability_ == Durability::kGroupCommit};
};

}  // namespace smemu::ops
