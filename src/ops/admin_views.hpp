// What the admin API and the metrics show of the emulator's state, and the pool changes the admin
// API makes: the capacity view (pools, reservations, who holds what), the census for the metrics,
// the dashboard's snapshot, and the service quotas in force with their use. Each runs through
// Emulator::Administer, so it sees the state settled to the clock under the request lock. The
// Emulator itself knows nothing of these views.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_facts.hpp"
#include "domain/holdings.hpp"
#include "ops/cost_inputs.hpp"
#include "ops/emulator.hpp"
#include "ops/faults.hpp"
#include "ops/pool_changes.hpp"

namespace smemu::ops {

// One endpoint variant, job or cluster holding instances, on a plan or on demand: a line of the
// capacity view's in_use (domain::Holdings keeps them per resource).
struct HeldInstances {
  std::string arn;
  std::string kind;  // endpoint, training-job, processing-job, cluster
  std::string region;
  std::string instance_type;
  std::string training_plan_arn;  // empty: on-demand
  int count = 0;
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

class AdminViews {
 public:
  // `emulator` must outlive the views.
  explicit AdminViews(Emulator& emulator);

  // Every pool (optionally of one region and/or instance type) with its reservations, and who
  // holds instances right now.
  struct CapacityView {
    TimePoint now;
    std::vector<PoolView> pools;
    std::vector<HeldInstances> in_use;
  };
  // `account`: show only that account's reservations and holders (pool counts stay global).
  CapacityView Capacity(const std::string& region, const std::string& instance_type,
                        const std::optional<std::string>& account = std::nullopt);
  // The account service quotas that apply to `account` in `region`, each with its limit, the
  // setting it comes from (its account and region, empty for every) and what is used now.
  struct QuotaLine {
    std::string name;
    int limit = 0;
    std::string set_for_account;
    std::string set_for_region;
    int used = 0;
  };
  std::vector<QuotaLine> Quotas(const std::string& account, const std::string& region);

  // The cost ledger (domain/costs.hpp) for `query`, settled to the clock.
  domain::Result<domain::CostLedger> Costs(const CostQuery& query);

  // Everything the metrics report about state, settled to now: resources of every account by
  // kind and status, the whole capacity view, and the quotas in force with their use for every
  // account and region that has resources or a setting of its own (and for `default_owner`, the
  // server's account and region, always).
  struct AccountQuotas {
    domain::Owner owner;
    std::vector<QuotaLine> quotas;
  };
  struct Census {
    std::vector<store::KindStatusCount> resources;
    CapacityView capacity;
    std::vector<AccountQuotas> quotas;  // by account, then region
    domain::CostLedger costs;           // the whole history up to now
  };
  Census TakeCensus(const domain::Owner& default_owner);

  // Everything at one instant, settled to the clock, for the dashboard.
  struct Overview {
    // Changes whenever the content may have: after a write by any request or a clock move.
    std::string version;
    bool unchanged = false;  // the caller's `since` is current: only `clock` is filled in
    VirtualClock::State clock;
    std::vector<PoolView> pools;  // counts and free reservable steps; reservations are in `plans`
    // On-demand instances of a type in a region: the pools' total (nullopt: the configuration
    // does not limit the type) and how many endpoints, jobs and clusters of every account hold
    // now.
    struct OnDemandUse {
      std::string region;
      std::string instance_type;
      std::optional<int> total;
      int in_use = 0;
    };
    std::vector<OnDemandUse> on_demand;
    // Each kind's section (plans, endpoints, jobs, clusters): a list of entries each, as the
    // kind's descriptor shows its resources (ops/state_view.hpp). The JSON text of one object.
    std::string sections;
    domain::Owner quotas_for;  // whose quotas `quotas` are
    std::vector<QuotaLine> quotas;
    std::vector<FaultRuleView> faults;  // the fault rules in force, with their counts
  };
  // `quotas_for`: the account and region whose quotas in force the snapshot lists (the caller's).
  // `account`: only that account's plans, endpoints, jobs and clusters (pool counts stay global).
  // `since`: a version from an earlier snapshot; when it is still current, nothing else is built.
  Overview Snapshot(const domain::Owner& quotas_for,
                    const std::optional<std::string>& account = std::nullopt,
                    const std::string& since = "");

  // Changes a pool's counts (creating the pool if its instance type has prices). Refuses to lower
  // `reservable` below what is already sold from now on. Persisted across restarts.
  domain::Result<PoolView> ChangeCapacity(const PoolChange& change);

 private:
  Emulator& emulator_;
  // What the last snapshot saw: the store's change count after it, and the time it was taken at.
  // Settling again at the same time with no write in between gives the same content.
  struct SnapshotMark {
    long long changes = -1;
    TimePoint now{};
    std::uint64_t version = 0;
    std::uint64_t faults = UINT64_MAX;  // the fault rules' revision
  } snapshot_mark_;
  const std::string snapshot_epoch_;  // tells this run's versions from an earlier run's
  // The last ledger computed, with what it depended on: the dashboard asks for the same range
  // again until something is written or the clock moves, and a ledger of 10,000 plans is costly.
  struct CostsMark {
    long long changes = -1;
    TimePoint now{};
    CostQuery query;
    domain::CostLedger ledger;
  } costs_mark_;
};

}  // namespace smemu::ops
