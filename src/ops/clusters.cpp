// SageMaker HyperPod: CreateCluster, DescribeCluster, ListClusters, UpdateCluster, DeleteCluster,
// ListClusterNodes, DescribeClusterNode, BatchDeleteClusterNodes, and the clock-driven settling of
// clusters. The rules live in domain/cluster; this file decodes requests and renders answers.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "domain/aws_names.hpp"
#include "domain/resource_kinds.hpp"
#include "ops/arn.hpp"
#include "ops/cluster_records.hpp"
#include "ops/edit.hpp"
#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/listing.hpp"
#include "ops/quota_checks.hpp"
#include "ops/tag_input.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

// The members of a cluster and of an instance group that the emulator keeps as given and shows
// back in DescribeCluster (and DescribeClusterNode), without acting on them.
constexpr const char* kClusterSettings[] = {
    "VpcConfig",           "Orchestrator",         "NodeRecovery",
    "TieredStorageConfig", "NodeProvisioningMode", "ClusterRole"};
constexpr const char* kGroupSettings[] = {
    "LifeCycleConfig",        "ExecutionRole",           "ThreadsPerCore",
    "InstanceStorageConfigs", "OnStartDeepHealthChecks", "OverrideVpcConfig",
    "ScheduledUpdateConfig",  "KubernetesConfig",        "SlurmConfig"};

// arn:...:cluster/ and 12 lower-case alphanumerics: derived from the account, region, name and
// time of creation, so a cluster created again under the same name gets a new ARN.
std::string ClusterArn(const Context& ctx, const std::string& name) {
  // The store's write count tells apart two clusters of one name created at one instant (a frozen
  // clock: create, delete, create).
  const std::string id =
      domain::Sha256Hex(ctx.caller.account + '/' + ctx.caller.region + '/' + store::NameKey(name) +
                        '/' + std::to_string(ctx.now.time_since_epoch().count()) + '/' +
                        std::to_string(ctx.store.TotalChanges()))
          .substr(0, 12);
  return SageMakerArn(ctx.caller, domain::kClusterKind, id);
}

json Kept(const json& given, const auto& members) {
  json kept = json::object();
  for (const char* member : members) {
    if (given.contains(member)) kept[member] = given[member];
  }
  return kept;
}

// Reads InstanceGroups: each needs an InstanceType (InstanceRequirements, flexible groups, are not
// emulated) and a name unique in the request.
Result<std::vector<domain::GroupSpec>> ReadGroups(const json& in, ClusterRecord& record) {
  std::vector<domain::GroupSpec> specs;
  std::set<std::string> names;
  for (const json& given : in.value("InstanceGroups", json::array())) {
    const std::string name = given.at("InstanceGroupName");
    if (!names.insert(name).second) {
      return domain::ValidationException("Instance group name " + domain::Excerpt(name) +
                                         " appears more than once in InstanceGroups.");
    }
    if (!given.contains("InstanceType")) {
      return domain::ValidationException(
          "Instance group " + domain::Excerpt(name) +
          " must specify InstanceType (InstanceRequirements is not supported by this emulator).");
    }
    specs.push_back({name, given["InstanceType"], given.at("InstanceCount"),
                     given.value("TrainingPlanArn", "")});
    record.group_settings[name] = Kept(given, kGroupSettings);
  }
  return specs;
}

json GroupJson(const ClusterRecord& record, const domain::InstanceGroup& group,
               const domain::CapacityFacts& facts, TimePoint now) {
  json out = {{"CurrentCount", group.live_nodes()},
              {"TargetCount", group.spec.count},
              {"InstanceGroupName", group.spec.name},
              {"InstanceType", group.spec.instance_type},
              {"Status", domain::ToString(group.status)}};
  if (auto it = record.group_settings.find(group.spec.name); it != record.group_settings.end()) {
    out.update(it->second);
  }
  if (!group.spec.plan_arn.empty()) {
    out["TrainingPlanArn"] = group.spec.plan_arn;
    const auto plan = facts.Plan(record.cluster.owner, group.spec.plan_arn);
    out["TrainingPlanStatus"] = plan ? plan->ShownStatusAt(now)
                                     : std::string(domain::ToString(domain::PlanStatus::kExpired));
  }
  return out;
}

std::string NodeMessage(const domain::InstanceGroup& group, const domain::ClusterNode& node) {
  if (node.status == domain::NodeStatus::kPending && !group.spec.plan_arn.empty()) {
    return "Waiting for training plan " + group.spec.plan_arn + " to become Active.";
  }
  if (node.status == domain::NodeStatus::kFailure) {  // our own text: AWS's is not public
    return "The instance failed its health checks. NodeRecovery is None: replace it with "
           "BatchDeleteClusterNodes and UpdateCluster.";
  }
  return "";
}

// Where a node of a group on an UltraServer plan sits (the model's UltraServerInfo).
struct UltraServerPlace {
  std::string id;
  std::string type;
};

// The UltraServer each node of a group on an UltraServer plan sits in, by node id. A plan's nodes
// fill the UltraServers of its reserved capacity in force in launch order, each up to its
// instances less its spares, as ListUltraServersByReservedCapacity counts them.
std::map<std::string, UltraServerPlace> UltraServersOfNodes(const domain::Cluster& cluster,
                                                            const Context& ctx) {
  std::map<std::string, std::vector<const domain::ClusterNode*>> by_plan;
  for (const domain::InstanceGroup& group : cluster.groups) {
    if (group.spec.plan_arn.empty()) continue;
    for (const domain::ClusterNode& node : group.nodes)
      by_plan[group.spec.plan_arn].push_back(&node);
  }
  std::map<std::string, UltraServerPlace> placed;
  for (auto& [arn, nodes] : by_plan) {
    const auto plan = PlanByReservationArn(ctx, arn);
    if (!plan || !plan->ultraservers) continue;
    const domain::UltraServers& shape = *plan->ultraservers;
    const domain::CapacityBlock* block = plan->BlockFrom(ctx.now);
    if (block == nullptr) block = &plan->blocks.back();  // an expired plan: its last
    std::stable_sort(nodes.begin(), nodes.end(), [](const auto* a, const auto* b) {
      return std::tie(a->launched, a->id) < std::tie(b->launched, b->id);
    });
    const int usable_each = std::max(1, shape.instances_per - shape.spares_per);
    int placed_count = 0;
    for (const domain::ClusterNode* node : nodes) {
      const int index = std::min(placed_count++ / usable_each, shape.count - 1);
      placed[node->id] = {block->id + "-us" + std::to_string(index + 1), shape.type};
    }
  }
  return placed;
}

// A node's ClusterNodeSummary members, in the model's order, written into an open object:
// ListClusterNodes' summaries, and the start of DescribeClusterNode's NodeDetails.
void WriteNodeSummary(JsonWriter& out, const domain::InstanceGroup& group,
                      const domain::ClusterNode& node,
                      const std::map<std::string, UltraServerPlace>& ultraservers) {
  out.Member("InstanceGroupName", group.spec.name)
      .Member("InstanceId", node.id)
      .Member("InstanceType", group.spec.instance_type)
      .TimestampMember("LaunchTime", node.launched);
  out.Key("InstanceStatus").BeginObject().Member("Status", domain::ToString(node.status));
  if (const std::string message = NodeMessage(group, node); !message.empty()) {
    out.Member("Message", message);
  }
  out.EndObject();
  if (auto it = ultraservers.find(node.id); it != ultraservers.end()) {
    out.Key("UltraServerInfo")
        .BeginObject()
        .Member("Id", it->second.id)
        .Member("Type", it->second.type)
        .EndObject();
  }
}

// A private address in 10.0.0.0/8 derived from the instance id, as EC2 would assign one.
std::string PrivateIp(const std::string& node_id) {
  const std::string hex = domain::Sha256Hex(node_id);
  auto octet = [&hex](std::size_t at) {
    return std::to_string(std::stoi(hex.substr(at, 2), nullptr, 16) % 254 + 1);
  };
  return "10." + octet(0) + "." + octet(2) + "." + octet(4);
}

Result<json> CreateCluster(const json& in, Context& ctx) {
  const std::string name = in.at("ClusterName");
  if (in.contains("RestrictedInstanceGroups")) {
    return domain::ValidationException(
        "RestrictedInstanceGroups are not supported by this emulator; use InstanceGroups.");
  }
  ClusterRecord record;
  record.key = KeyOf(ctx.caller, domain::ResourceKind::kCluster, name);
  record.settings = Kept(in, kClusterSettings);
  if (!record.settings.contains("NodeRecovery")) record.settings["NodeRecovery"] = "Automatic";
  auto specs = ReadGroups(in, record);
  if (!specs) return specs.error();
  if (specs->empty()) {
    return domain::ValidationException("A cluster needs at least one instance group.");
  }
  if (ctx.store.Get(record.key)) {
    return domain::ResourceInUse("Cluster " + domain::Excerpt(name) + " already exists.");
  }
  const StoreCapacityFacts facts(ctx);
  if (auto allowed = CheckClusterQuotas(ctx, {}, *specs); !allowed) return allowed.error();
  auto cluster = domain::NewCluster(ClusterArn(ctx, name), {ctx.caller.account, ctx.caller.region},
                                    std::move(*specs), ctx.now, ctx.hosting.provisioning_delay,
                                    facts, ctx.holdings);
  if (!cluster) return cluster.error();
  record.cluster = std::move(*cluster);
  const std::string arn = record.cluster.arn;
  ctx.edit.Add(Edit::InsertCluster{std::move(record), ReadTags(in)});
  return json{{"ClusterArn", arn}};
}

Result<ClusterRecord> FindCluster(const Context& ctx, const json& in) {
  const std::string name = in.at("ClusterName");
  auto record = LoadCluster(ctx, name);
  if (!record) return NotFound(ctx.caller, domain::ResourceKind::kCluster, name);
  return std::move(*record);
}

Result<json> DescribeCluster(const json& in, Context& ctx) {
  auto record = FindCluster(ctx, in);
  if (!record) return record.error();
  const domain::Cluster& cluster = record->cluster;
  const StoreCapacityFacts facts(ctx);
  json groups = json::array();
  for (const domain::InstanceGroup& group : cluster.groups) {
    groups.push_back(GroupJson(*record, group, facts, ctx.now));
  }
  json out = {{"ClusterArn", cluster.arn},
              {"ClusterName", record->key.name},
              {"ClusterStatus", domain::ToString(cluster.status)},
              {"CreationTime", WriteTimestamp(cluster.created)},
              {"InstanceGroups", std::move(groups)}};
  if (cluster.failure_message) out["FailureMessage"] = *cluster.failure_message;
  out.update(record->settings);
  return out;
}

Result<Answer> ListClusters(const json& in, Context& ctx) {
  static const ListSpec kSpec{
      "ListClusters",
      {{"CREATION_TIME", store::SortField::kCreationTime}, {"NAME", store::SortField::kName}},
      /*descending_by_default=*/false};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  Filters<store::KeptRowPtr> filters;
  const std::string plan_filter = in.value("TrainingPlanArn", "");
  if (!plan_filter.empty()) {
    auto on_plan = [plan_filter, &ctx](const store::KeptRowPtr& row) {
      const auto plans =
          domain::PlansOf(ctx.store.DecodedRow<ClusterRecord>(*row, &ClusterFromRow)->cluster);
      return std::find(plans.begin(), plans.end(), plan_filter) != plans.end();
    };
    // As the model documents: MaxResults clusters are evaluated, then the matching ones returned.
    if (request->limit_given) {
      filters.after_paging = on_plan;
    } else {
      filters.before_paging = on_plan;
    }
  }
  const auto page = Paginate<store::KeptRowPtr>(
      kSpec, *request, StoreSource(ctx, domain::kClusterKind, *request, ReadStoreFilters(in)),
      filters);
  return WriteListAnswer(
      "ClusterSummaries", page, [&](JsonWriter& out, const store::KeptRowPtr& kept) {
        const store::ResourceRow& row = kept->row();
        out.Member("ClusterArn", row.arn)
            .Member("ClusterName", row.key.name)
            .TimestampMember("CreationTime", row.created)
            .Member("ClusterStatus", row.status);
        const auto record = ctx.store.DecodedRow<ClusterRecord>(*kept, &ClusterFromRow);
        if (auto plans = domain::PlansOf(record->cluster); !plans.empty()) {
          out.Key("TrainingPlanArns").BeginArray();
          for (const std::string& plan : plans) out.String(plan);
          out.EndArray();
        }
      });
}

Result<json> UpdateCluster(const json& in, Context& ctx) {
  auto record = FindCluster(ctx, in);
  if (!record) return record.error();
  for (const char* unsupported : {"RestrictedInstanceGroups", "Orchestrator"}) {
    if (in.contains(unsupported)) {
      return domain::ValidationException(std::string(unsupported) +
                                         " cannot be updated by this emulator.");
    }
  }
  ClusterRecord updated = *record;
  auto specs = ReadGroups(in, updated);
  if (!specs) return specs.error();
  const auto to_delete =
      in.value("InstanceGroupsToDelete", json::array()).get<std::vector<std::string>>();
  if (specs->empty() && to_delete.empty() && !in.contains("NodeRecovery")) {
    return domain::ValidationException(
        "The update changes nothing: give InstanceGroups, "
        "InstanceGroupsToDelete or NodeRecovery.");
  }
  // A cluster that cannot be updated says so before any quota is counted.
  if (auto updatable = domain::CheckUpdatable(record->cluster); !updatable) {
    return updatable.error();
  }
  if (auto allowed = CheckClusterQuotas(ctx, &record->cluster, *specs, to_delete); !allowed) {
    return allowed.error();
  }
  const StoreCapacityFacts facts(ctx);
  auto cluster = domain::StartUpdate(std::move(updated.cluster), *specs, to_delete, ctx.now,
                                     ctx.hosting.provisioning_delay, facts, ctx.holdings);
  if (!cluster) return cluster.error();
  updated.cluster = std::move(*cluster);
  if (in.contains("NodeRecovery")) updated.settings["NodeRecovery"] = in["NodeRecovery"];
  const std::string arn = updated.cluster.arn;
  ctx.edit.Add(Edit::SaveCluster{std::move(updated)});
  return json{{"ClusterArn", arn}};
}

Result<json> DeleteCluster(const json& in, Context& ctx) {
  auto record = FindCluster(ctx, in);
  if (!record) return record.error();
  auto deleting =
      domain::StartDelete(std::move(record->cluster), ctx.now, ctx.hosting.provisioning_delay);
  if (!deleting) return deleting.error();
  record->cluster = std::move(*deleting);
  const std::string arn = record->cluster.arn;
  ctx.edit.Add(Edit::SaveCluster{std::move(*record)});
  return json{{"ClusterArn", arn}};
}

// Every node of a cluster with its group, in launch order.
struct NodeEntry {
  const domain::InstanceGroup* group;
  const domain::ClusterNode* node;
};
std::vector<NodeEntry> NodesOf(const domain::Cluster& cluster) {
  std::vector<NodeEntry> nodes;
  for (const domain::InstanceGroup& group : cluster.groups) {
    for (const domain::ClusterNode& node : group.nodes) nodes.push_back({&group, &node});
  }
  return nodes;
}

Result<Answer> ListClusterNodes(const json& in, Context& ctx) {
  static const ListSpec kSpec{
      "ListClusterNodes",
      {{"CREATION_TIME", std::nullopt, /*numeric=*/true}, {"NAME", std::nullopt}},
      /*descending_by_default=*/false};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  const std::string name = in.at("ClusterName");
  // Shared with the store's cache (immutable): the page points into it, and the answer is
  // written from it after the lock is released.
  std::shared_ptr<const ClusterRecord> record = LoadSharedCluster(ctx, name);
  if (!record) return NotFound(ctx.caller, domain::ResourceKind::kCluster, name);
  // The nodes' launch times bound the listing (the store's filters bound creation times).
  const StoreFilters bounds = ReadStoreFilters(in);
  const std::optional<TimePoint>& after = bounds.created_after;
  const std::optional<TimePoint>& before = bounds.created_before;
  const std::string group_contains = in.value("InstanceGroupNameContains", "");
  const bool by_name = std::string_view(request->sort->wire_name) == "NAME";
  std::vector<Positioned<NodeEntry>> nodes;
  for (const NodeEntry& entry : NodesOf(record->cluster)) {
    const domain::ClusterNode& node = *entry.node;
    if (after && node.launched <= *after) continue;
    if (before && node.launched >= *before) continue;
    if (!group_contains.empty() &&
        entry.group->spec.name.find(group_contains) == std::string::npos) {
      continue;
    }
    SortPosition position = by_name
                                ? SortPosition{node.id, node.id}
                                : SortPosition{node.launched.time_since_epoch().count(), node.id};
    nodes.push_back({std::move(position), entry});
  }
  auto page =
      Paginate<NodeEntry>(kSpec, *request, InMemorySource(std::move(nodes), request->descending));
  return WriteListAnswerLater(
      "ClusterNodeSummaries", std::move(page),
      [record, ultraservers = std::make_shared<const std::map<std::string, UltraServerPlace>>(
                   UltraServersOfNodes(record->cluster, ctx))](JsonWriter& out,
                                                               const NodeEntry& entry) {
        WriteNodeSummary(out, *entry.group, *entry.node, *ultraservers);
      });
}

Result<Answer> DescribeClusterNode(const json& in, Context& ctx) {
  auto record = FindCluster(ctx, in);
  if (!record) return record.error();
  if (!in.contains("NodeId")) {
    return domain::ValidationException(in.contains("NodeLogicalId")
                                           ? "NodeLogicalId is not supported by this emulator; "
                                             "give NodeId."
                                           : "Either NodeId or NodeLogicalId must be given.");
  }
  const std::string node_id = in["NodeId"];
  const StoreCapacityFacts facts(ctx);
  for (const NodeEntry& entry : NodesOf(record->cluster)) {
    if (entry.node->id != node_id) continue;
    const domain::InstanceGroup& group = *entry.group;
    JsonWriter out;
    out.BeginObject().Key("NodeDetails").BeginObject();
    WriteNodeSummary(out, group, *entry.node, UltraServersOfNodes(record->cluster, ctx));
    if (auto it = record->group_settings.find(group.spec.name);
        it != record->group_settings.end()) {
      for (const char* member :
           {"LifeCycleConfig", "ThreadsPerCore", "InstanceStorageConfigs", "OverrideVpcConfig"}) {
        if (it->second.contains(member)) {
          out.Key(member).Raw(
              it->second[member].dump(-1, ' ', false, json::error_handler_t::replace));
        }
      }
    }
    const std::string ip = PrivateIp(node_id);
    std::string dashed = ip;  // EC2's private DNS name: ip-10-1-2-3.<region>.compute.internal
    std::replace(dashed.begin(), dashed.end(), '.', '-');
    out.Member("PrivatePrimaryIp", ip)
        .Member("PrivateDnsHostname",
                "ip-" + dashed + "." + ctx.caller.region + ".compute.internal");
    std::string zone = ctx.caller.region + "a";
    if (!group.spec.plan_arn.empty()) {
      if (const auto plan = facts.Plan(record->cluster.owner, group.spec.plan_arn);
          plan && !plan->availability_zone.empty()) {
        zone = plan->availability_zone;
      }
    }
    // A Local Zone (us-east-1-dfw-2a, where UltraServers are sold) is no name the model's
    // ClusterInstancePlacement takes ([a-z]{2}-[a-z]+-\d[a-z]): such a node shows no zone.
    out.Key("Placement").BeginObject();
    if (!domain::IsLocalZone(zone)) {
      out.Member("AvailabilityZone", zone);
      if (auto id = domain::AvailabilityZoneId(zone)) out.Member("AvailabilityZoneId", *id);
    }
    out.EndObject().Member("CapacityType", "OnDemand").EndObject().EndObject();
    return Answer::Written(out.Text());
  }
  return domain::ResourceNotFound("Node " + domain::Excerpt(node_id) + " not found in cluster " +
                                  domain::Excerpt(record->key.name) + ".");
}

Result<json> BatchDeleteClusterNodes(const json& in, Context& ctx) {
  auto record = FindCluster(ctx, in);
  if (!record) return record.error();
  if (in.contains("NodeLogicalIds")) {
    return domain::ValidationException(
        "NodeLogicalIds is not supported by this emulator; give NodeIds.");
  }
  const auto node_ids = in.value("NodeIds", json::array()).get<std::vector<std::string>>();
  if (node_ids.empty()) return domain::ValidationException("NodeIds must be given.");
  domain::NodeDeletion outcome;
  auto cluster = domain::DeleteNodes(std::move(record->cluster), node_ids, ctx.now,
                                     ctx.hosting.provisioning_delay, outcome);
  if (!cluster) return cluster.error();
  record->cluster = std::move(*cluster);
  if (!outcome.deleted.empty()) ctx.edit.Add(Edit::SaveCluster{*record});
  json out = json::object();
  if (!outcome.failed.empty()) {
    json failed = json::array();
    for (const auto& failure : outcome.failed) {
      failed.push_back(
          {{"Code", failure.code}, {"Message", failure.message}, {"NodeId", failure.node_id}});
    }
    out["Failed"] = std::move(failed);
  }
  if (!outcome.deleted.empty()) out["Successful"] = outcome.deleted;
  return out;
}

// Every HyperPod cluster in creation order, with each group's nodes counted by status and where
// their instances come from.
void AddClusterState(const StateQuery& query, JsonWriter& entries) {
  const store::Tables& store = query.ctx().store;
  std::vector<store::KeptRowPtr> rows = store.AllOfKind(domain::kClusterKind);
  // Clusters created at the same instant (a frozen clock) come in name order.
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::tie(a->row().created, a->row().key.account, a->row().key.name) <
           std::tie(b->row().created, b->row().key.account, b->row().key.name);
  });
  for (const store::KeptRowPtr& kept : rows) {
    const store::ResourceRow& row = kept->row();
    if (!query.Shows(row.key.account)) continue;
    const auto record = store.DecodedRow<ClusterRecord>(*kept, &ClusterFromRow);
    const domain::Cluster& cluster = record->cluster;
    entries.BeginObject()
        .Member("name", row.key.name)
        .Member("arn", cluster.arn)
        .Member("account", row.key.account)
        .Member("region", row.key.region)
        .Member("status", domain::ToString(cluster.status));
    if (cluster.failure_message && !cluster.failure_message->empty()) {
      entries.Member("failure_message", *cluster.failure_message);
    }
    entries.Key("groups").BeginArray();
    for (const domain::InstanceGroup& group : cluster.groups) {
      std::map<domain::NodeStatus, int> nodes;
      for (const domain::ClusterNode& node : group.nodes) ++nodes[node.status];
      entries.BeginObject()
          .Member("name", group.spec.name)
          .Member("instance_type", group.spec.instance_type)
          .Member("target_count", group.spec.count)
          .Member("current_count", group.live_nodes())
          .Key("nodes")
          .BeginObject()
          .Member("Pending", nodes[domain::NodeStatus::kPending])
          .Member("Running", nodes[domain::NodeStatus::kRunning])
          .Member("ShuttingDown", nodes[domain::NodeStatus::kShuttingDown])
          .EndObject();
      query.WriteSource(entries, cluster.owner, group.spec.plan_arn);
      entries.EndObject();
    }
    entries.EndArray().EndObject();
  }
}

void AddClusterHandlers(HandlerTable& table) {
  table.emplace("CreateCluster", &CreateCluster);
  table.emplace("DescribeCluster", &DescribeCluster);
  table.emplace("ListClusters", &ListClusters);
  table.emplace("UpdateCluster", &UpdateCluster);
  table.emplace("DeleteCluster", &DeleteCluster);
  table.emplace("ListClusterNodes", &ListClusterNodes);
  table.emplace("DescribeClusterNode", &DescribeClusterNode);
  table.emplace("BatchDeleteClusterNodes", &BatchDeleteClusterNodes);
}

}  // namespace

const KindDescriptor kClusterDescriptor{.kind = domain::ResourceKind::kCluster,
                                        .add_handlers = &AddClusterHandlers,
                                        .taggable = true,
                                        .stage = SettleStage::kInTimeOrder,
                                        .settle = &SettleClusters,
                                        .add_holders = &AddClusterHolders,
                                        .add_claims = &AddClusterClaims,
                                        .quota_counted = true,
                                        .state_section = "clusters",
                                        .add_state = &AddClusterState};

}  // namespace smemu::ops
