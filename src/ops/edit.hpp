// What a request changes, as its handler states it (leveldb's VersionEdit in spirit): rows to
// insert, save or erase, plan capacity to reserve, tags to put or delete. A handler validates,
// asks the domain, and adds its changes to ctx.edit; it never writes. The Emulator applies the
// edit through the repositories (Apply), in the request's transaction, then settles everything at
// the request's time. An edit of a request that answers an error is dropped.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ops/cluster_records.hpp"
#include "ops/endpoint_config_record.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/model_record.hpp"
#include "ops/plan_records.hpp"

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
  using Change = std::variant<InsertModel, EraseModel, InsertEndpointConfig, EraseEndpointConfig,
                              InsertEndpoint, SaveEndpoint, InsertJob, SaveJob, InsertCluster,
                              SaveCluster, InsertPlan, SavePlan, PutTags, DeleteTags>;

  void Add(Change change) { changes_.push_back(std::move(change)); }
  const std::vector<Change>& changes() const { return changes_; }
  bool empty() const { return changes_.empty(); }

 private:
  std::vector<Change> changes_;
};

// Applies every change of `edit`, in order, at `now`, through the repositories: the rows, the
// holdings and the holdings log, the ledger's reservations. A change that cannot apply (an insert
// whose key exists, a reservation that no longer fits: the handler checks both first) throws, and
// the Emulator rolls the request back.
void Apply(const Edit& edit, TimePoint now, Writer& writer);

}  // namespace smemu::ops
