// The clock's side of HyperPod clusters: settling them (provisioning, updates, nodes following
// their plans, node faults, deletions), what they hold and what Creating ones claim.
#include <map>

#include "ops/apply.hpp"
#include "ops/cluster_records.hpp"
#include "ops/lifecycle_records.hpp"

namespace smemu::ops {

// Applies every HyperPod cluster transition due at ctx.now (provisioning, updates, nodes following
// their plans, deletions). Returns when the next one falls due, or nullopt when none will.
std::optional<TimePoint> SettleClusters(const Context& ctx, Applier& applier) {
  const StoreCapacityFacts facts(ctx);
  std::vector<ClusterRecord> clusters = LiveClusters(ctx.store);
  // The node failures fault rules bring each cluster, and whether it replaces a failed node.
  std::map<std::string, std::vector<domain::NodeFailure>> failures;
  for (const ClusterRecord& record : clusters) {
    const bool replace = record.settings.value("NodeRecovery", "Automatic") == "Automatic";
    for (const auto& [id, fault] :
         ctx.faults.NodeFaultsFor({"", record.key.account, record.key.region, record.key.name})) {
      failures[record.cluster.arn].push_back({id, fault.at, fault.instance_group, replace});
    }
  }
  // A no_capacity fault rule is tried once for each cluster whose provisioning falls due.
  std::map<std::string, std::string> short_of;  // cluster ARN -> instance types (a glob)
  for (const ClusterRecord& record : clusters) {
    const domain::Cluster& cluster = record.cluster;
    const bool creating = cluster.status == domain::ClusterStatus::kCreating;
    if ((!creating && cluster.status != domain::ClusterStatus::kUpdating) ||
        cluster.due.value_or(cluster.modified) > ctx.now) {
      continue;
    }
    if (auto types =
            ctx.faults.NoCapacityFor({creating ? "CreateCluster" : "UpdateCluster",
                                      record.key.account, record.key.region, record.key.name})) {
      short_of[cluster.arn] = *types;
    }
  }
  static const std::vector<domain::NodeFailure> kNone;
  return SettleHeld(
      applier, ctx.now, std::move(clusters), &ClusterRecord::cluster,
      &domain::ClusterSettlement::cluster,
      [](ClusterRecord record) -> Edit::Change { return Edit::SaveCluster{std::move(record)}; },
      [](const ClusterRecord& record) -> Edit::Change {
        return Edit::EraseCluster{record.key, record.cluster.arn};
      },
      [&](const domain::Cluster& cluster) {
        const auto it = failures.find(cluster.arn);
        const auto& node_failures = it == failures.end() ? kNone : it->second;
        const auto fault = short_of.find(cluster.arn);
        domain::ClusterSettlement settled =
            fault == short_of.end()
                ? domain::Settle(cluster, ctx.now, facts, ctx.holdings, node_failures)
                : domain::Settle(cluster, ctx.now, domain::WithoutOnDemand(facts, fault->second),
                                 ctx.holdings, node_failures);
        if (settled.cluster) {
          const auto& applied = settled.cluster->faults_applied;
          for (auto id =
                   applied.begin() + static_cast<std::ptrdiff_t>(cluster.faults_applied.size());
               id < applied.end(); ++id) {
            ctx.faults.NodeFailureApplied(*id);
          }
        }
        return settled;
      });
}

void AddClusterHolders(const store::Tables& store, domain::Holdings& holdings) {
  for (const ClusterRecord& record : LiveClusters(store)) {
    holdings.Put(domain::HolderOf(record.cluster));
  }
}

// Clusters Creating claim the instances they are about to take.
void AddClusterClaims(const store::Tables& store, const std::string& account,
                      const std::string& region, std::vector<domain::Hold>& claims) {
  for (const store::KeptRowPtr& kept : store.AllOfKind(
           domain::kClusterKind, std::string(domain::ToString(domain::ClusterStatus::kCreating)))) {
    if (kept->row().key.account != account || kept->row().key.region != region) continue;
    const std::vector<domain::Hold> claimed =
        domain::ClaimsOf(store.DecodedRow<ClusterRecord>(*kept, &ClusterFromRow)->cluster);
    claims.insert(claims.end(), claimed.begin(), claimed.end());
  }
}

}  // namespace smemu::ops
