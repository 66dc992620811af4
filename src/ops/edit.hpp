// What changes, as a value (leveldb's VersionEdit in spirit): rows to insert, save or erase, plan
// capacity to reserve, tags to put or delete, pools, quotas, the clock. Whoever changes the state
// states it this way: a handler adds its changes to ctx.edit (it never writes; an edit of a
// request that answers an error is dropped), settling and the admin API hand theirs to the
// Applier one by one (ops/apply.hpp), the one place that writes.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ops/cluster_records.hpp"
#include "ops/endpoint_config_record.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/model_record.hpp"
#include "ops/plan_records.hpp"
#include "smemu/clock.hpp"

namespace smemu::ops {

// Reservable instances a plan takes from its pool over a window.
struct Reservation {
  domain::PoolKey pool;
  domain::Window window;
  int count = 0;
  // A purchase whose payment will fail holds the instances only until then.
  std::optional<TimePoint> lapses_at;
};

class Edit {
 public:
  struct InsertModel {
    ModelRecord record;
    store::Tags tags;
  };
  struct EraseModel {
    store::ResourceKey key;
  };
  struct InsertEndpointConfig {
    EndpointConfigRecord record;
    store::Tags tags;
  };
  struct EraseEndpointConfig {
    store::ResourceKey key;
  };
  struct InsertEndpoint {
    EndpointRecord record;
    store::Tags tags;
  };
  struct SaveEndpoint {
    EndpointRecord record;
  };
  struct EraseEndpoint {  // a deletion that completed
    store::ResourceKey key;
    std::string arn;
  };
  struct InsertJob {
    JobRecord record;
    store::Tags tags;
  };
  struct SaveJob {
    JobRecord record;
    domain::Job before;  // the job as it was, so that its start and end are logged at their times
  };
  struct InsertCluster {
    ClusterRecord record;
    store::Tags tags;
  };
  struct SaveCluster {
    ClusterRecord record;
  };
  struct EraseCluster {
    store::ResourceKey key;
    std::string arn;
  };
  struct InsertPlan {
    store::ResourceKey key;
    Plan plan;
    store::Tags tags;
    std::vector<Reservation> reservations;  // one per reserved capacity
  };
  struct SavePlan {  // an extension
    store::ResourceKey key;
    Plan plan;
    TimePoint created;
    std::optional<Reservation> reservation;
  };
  struct PutTags {
    std::string arn;
    store::Tags tags;
  };
  struct DeleteTags {
    std::string arn;
    std::vector<std::string> keys;
  };
  // A pool's counts from now on (POST /_emulator/capacity), kept in the store's settings.
  struct SetPool {
    domain::PoolKey key;
    int reservable = 0;
    int on_demand = 0;
  };
  // The account service quotas in force from now on.
  struct SetQuotas {
    domain::QuotaTable quotas;
  };
  // The virtual clock's state, kept with the base clock's time it was read at.
  struct SaveClock {
    VirtualClock::State state;
    TimePoint base_now;
  };
  // The holdings log forgets what happened after `at` (a clock set back).
  struct CutHistoryAt {
    TimePoint at;
  };
  // The capacity held by purchases whose payment failed by then goes back to its pools.
  struct ReleaseLapsedHolds {};
  // Every resource, tag, setting and held stretch of every account goes.
  struct EraseEverything {};
  // At start: the holdings log opens or closes stretches so that it says what the resources hold.
  struct ReconcileHoldingsLog {};
  using Change = std::variant<InsertModel, EraseModel, InsertEndpointConfig, EraseEndpointConfig,
                              InsertEndpoint, SaveEndpoint, EraseEndpoint, InsertJob, SaveJob,
                              InsertCluster, SaveCluster, EraseCluster, InsertPlan, SavePlan,
                              PutTags, DeleteTags, ReleaseLapsedHolds, SetPool, SetQuotas,
                              SaveClock, CutHistoryAt, EraseEverything, ReconcileHoldingsLog>;

  void Add(Change change) { changes_.push_back(std::move(change)); }
  const std::vector<Change>& changes() const { return changes_; }
  bool empty() const { return changes_.empty(); }

 private:
  std::vector<Change> changes_;
};

}  // namespace smemu::ops
