#include "ops/cluster_records.hpp"

#include "domain/resource_kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/record_codec.hpp"

namespace smemu::ops {
namespace {

using codec::At;
using codec::Known;
using codec::Ms;
using nlohmann::json;

json NodeDoc(const domain::ClusterNode& node) {
  json doc = {{"InstanceId", node.id},
              {"Status", domain::ToString(node.status)},
              {"LaunchMs", Ms(node.launched)}};
  if (node.gone_at) doc["GoneMs"] = Ms(*node.gone_at);
  if (node.plan_wind_down) doc["PlanWindDown"] = true;
  if (node.failed) doc["Failed"] = true;
  return doc;
}

domain::ClusterNode NodeFromDoc(const json& doc) {
  domain::ClusterNode node;
  node.id = doc.at("InstanceId");
  const std::string status = doc.at("Status");
  node.status = Known(domain::ParseNodeStatus(status), "node status", status);
  node.launched = At(doc.at("LaunchMs"));
  if (doc.contains("GoneMs")) node.gone_at = At(doc["GoneMs"]);
  // Written only when true.
  node.plan_wind_down = doc.value("PlanWindDown", false);
  node.failed = doc.value("Failed", false);
  return node;
}

std::string ClusterDoc(const ClusterRecord& record) {
  const domain::Cluster& cluster = record.cluster;
  json groups = json::array();
  for (const domain::InstanceGroup& group : cluster.groups) {
    json nodes = json::array();
    for (const domain::ClusterNode& node : group.nodes) nodes.push_back(NodeDoc(node));
    json doc = {{"InstanceGroupName", group.spec.name},
                {"InstanceType", group.spec.instance_type},
                {"InstanceCount", group.spec.count},
                {"Status", domain::ToString(group.status)},
                {"Nodes", std::move(nodes)}};
    if (!group.spec.plan_arn.empty()) doc["TrainingPlanArn"] = group.spec.plan_arn;
    if (auto it = record.group_settings.find(group.spec.name); it != record.group_settings.end()) {
      doc["Settings"] = it->second;
    }
    groups.push_back(std::move(doc));
  }
  json doc = {{"Settings", record.settings},
              {"Groups", std::move(groups)},
              {"NodesLaunched", cluster.nodes_launched}};
  if (cluster.due) doc["DueMs"] = Ms(*cluster.due);
  if (cluster.failure_message) doc["FailureMessage"] = *cluster.failure_message;
  // Clusters stored before fault rules had neither: the codec keeps their documents as they were.
  if (!cluster.faults_applied.empty()) doc["FaultsApplied"] = cluster.faults_applied;
  if (!cluster.failed_instances.empty()) {
    json failed = json::array();
    for (const domain::FailedInstance& instance : cluster.failed_instances) {
      failed.push_back({{"InstanceId", instance.node_id},
                        {"TrainingPlanArn", instance.plan_arn},
                        {"AtMs", Ms(instance.at)}});
    }
    doc["FailedInstances"] = std::move(failed);
  }
  return doc.dump();
}

}  // namespace

store::ResourceRow EncodeCluster(const ClusterRecord& record) {
  const domain::Cluster& cluster = record.cluster;
  return {record.key,      cluster.arn,      std::string(domain::ToString(cluster.status)),
          cluster.created, cluster.modified, ClusterDoc(record)};
}

namespace {

ClusterRecord DecodeCluster(const store::ResourceRow& row) {
  const json doc = codec::Document(row);
  ClusterRecord record;
  record.key = row.key;
  record.settings = doc.at("Settings");
  domain::Cluster& cluster = record.cluster;
  cluster.arn = row.arn;
  cluster.owner = {row.key.account, row.key.region};
  cluster.status = Known(domain::ParseClusterStatus(row.status), "status", row.status);
  cluster.created = row.created;
  cluster.modified = row.modified;
  if (doc.contains("DueMs")) cluster.due = At(doc["DueMs"]);
  if (doc.contains("FailureMessage")) cluster.failure_message = doc["FailureMessage"];
  cluster.nodes_launched = doc.at("NodesLaunched");
  if (doc.contains("FaultsApplied")) {
    cluster.faults_applied = doc["FaultsApplied"].get<std::vector<std::string>>();
  }
  for (const json& failed : doc.value("FailedInstances", json::array())) {  // none: not written
    cluster.failed_instances.push_back(
        {failed.at("InstanceId"), failed.at("TrainingPlanArn"), At(failed.at("AtMs"))});
  }
  for (const json& given : doc.at("Groups")) {
    domain::InstanceGroup group;
    group.spec = {given.at("InstanceGroupName"), given.at("InstanceType"),
                  given.at("InstanceCount"),
                  given.value("TrainingPlanArn", "")};  // on demand: none
    const std::string group_status = given.at("Status");
    group.status = Known(domain::ParseGroupStatus(group_status), "group status", group_status);
    for (const json& node : given.at("Nodes")) {
      group.nodes.push_back(NodeFromDoc(node));
    }
    if (given.contains("Settings")) record.group_settings[group.spec.name] = given["Settings"];
    cluster.groups.push_back(std::move(group));
  }
  return record;
}

}  // namespace

ClusterRecord ClusterFromRow(const store::ResourceRow& row) {
  return codec::Decoding(row, &DecodeCluster);
}

std::shared_ptr<const ClusterRecord> LoadSharedCluster(const Context& ctx,
                                                       const std::string& name_or_arn) {
  store::ResourceKey key{ctx.caller.account, ctx.caller.region, domain::kClusterKind, name_or_arn};
  if (name_or_arn.rfind("arn:", 0) == 0) {
    const auto row = ctx.store.FindByArn(name_or_arn);
    if (!row || row->key.kind != domain::kClusterKind || row->key.account != ctx.caller.account ||
        row->key.region != ctx.caller.region) {
      return nullptr;
    }
    key = row->key;
  }
  // DescribeCluster and DescribeClusterNode decode the whole cluster (every node) for one answer.
  return ctx.store.GetDecodedShared<ClusterRecord>(key, &ClusterFromRow);
}

std::optional<ClusterRecord> LoadCluster(const Context& ctx, const std::string& name_or_arn) {
  auto shared = LoadSharedCluster(ctx, name_or_arn);
  if (!shared) return std::nullopt;
  return *shared;
}

int FailedInstancesOnPlan(const store::Tables& store, const std::string& account,
                          const std::string& region, const std::string& plan_arn,
                          const domain::Window& block) {
  int failed = 0;
  for (const store::KeptRowPtr& kept : store.AllOf(account, region, domain::kClusterKind)) {
    const auto record = store.DecodedRow<ClusterRecord>(*kept, &ClusterFromRow);
    for (const domain::FailedInstance& instance : record->cluster.failed_instances) {
      if (instance.plan_arn == plan_arn && block.start <= instance.at && instance.at < block.end) {
        ++failed;
      }
    }
  }
  return failed;
}

std::vector<ClusterRecord> LiveClusters(const store::Tables& store) {
  std::vector<ClusterRecord> clusters;
  for (domain::ClusterStatus status :
       {domain::ClusterStatus::kDeleting, domain::ClusterStatus::kUpdating,
        domain::ClusterStatus::kInService, domain::ClusterStatus::kCreating}) {
    for (const store::KeptRowPtr& kept :
         store.AllOfKind(domain::kClusterKind, std::string(domain::ToString(status)))) {
      clusters.push_back(*store.DecodedRow<ClusterRecord>(*kept, &ClusterFromRow));
    }
  }
  return clusters;
}

}  // namespace smemu::ops
