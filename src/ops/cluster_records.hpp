// HyperPod clusters as the store keeps them (a row with a JSON document) and as the domain sees
// them (typed state). Every write of a cluster goes through here, so the holdings in memory follow
// the store in the same step.
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "domain/cluster.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

class Applier;  // ops/apply.hpp

struct ClusterRecord {
  store::ResourceKey key;
  domain::Cluster cluster;
  // Members the emulator keeps as given and shows back: the cluster's (VpcConfig, Orchestrator,
  // NodeRecovery, ...) and each group's (LifeCycleConfig, ExecutionRole, ThreadsPerCore, ...).
  nlohmann::json settings = nlohmann::json::object();
  std::map<std::string, nlohmann::json, std::less<>> group_settings;
};

// The cluster codec. Decoding a row that cannot be read is a StoreFailure naming it.
store::ResourceRow EncodeCluster(const ClusterRecord& record);
ClusterRecord ClusterFromRow(const store::ResourceRow& row);
// The caller's cluster named by its name or its ARN.
std::optional<ClusterRecord> LoadCluster(const Context& ctx, const std::string& name_or_arn);
// The same record, shared with the store's cache of decoded rows (immutable): for an answer
// written after the lock is released.
std::shared_ptr<const ClusterRecord> LoadSharedCluster(const Context& ctx,
                                                       const std::string& name_or_arn);

// Every cluster that may hold instances or change with the clock (all but Failed ones).
std::vector<ClusterRecord> LiveClusters(const store::Tables& store);

// How many instances of the plan `plan_arn` failed under the account's clusters in `region`
// within `block` (a reserved capacity's window): its unhealthy instances while that block lasts.
int FailedInstancesOnPlan(const store::Tables& store, const std::string& account,
                          const std::string& region, const std::string& plan_arn,
                          const domain::Window& block);

// ---- The clock's side (ops/cluster_settling.cpp), named by the cluster's descriptor

// Applies every HyperPod cluster transition due at ctx.now (provisioning, updates, nodes following
// their plans, deletions). Returns when the next one falls due, or nullopt when none will.
std::optional<TimePoint> SettleClusters(const Context& ctx, Applier& applier);
void AddClusterHolders(const store::Tables& store, domain::Holdings& holdings);
// Clusters Creating claim the instances they are about to take.
void AddClusterClaims(const store::Tables& store, const std::string& account,
                      const std::string& region, std::vector<domain::Hold>& claims);

}  // namespace smemu::ops
