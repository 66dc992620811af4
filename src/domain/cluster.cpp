#include "domain/cluster.hpp"

#include <algorithm>
#include <map>

#include "domain/aws_names.hpp"
#include "domain/cluster_rules.hpp"
#include "domain/endpoint.hpp"
#include "domain/plan_admission.hpp"
#include "domain/resource_kinds.hpp"
#include "domain/wire_names.hpp"

namespace smemu::domain {
namespace {

using cluster_rules::ExceedsAvailable;
using cluster_rules::ShutDown;
using cluster_rules::Touched;
using cluster_rules::WindingDown;

std::string Count(int count) { return std::to_string(count); }

// What a holder holds per source: (plan ARN, "") for a plan, ("", instance type) on demand.
std::map<std::pair<std::string, std::string>, int> HeldPerSource(const Holder& holder) {
  std::map<std::pair<std::string, std::string>, int> held;
  for (const Hold& hold : holder.holds) {
    held[{hold.plan_arn, hold.plan_arn.empty() ? hold.instance_type : ""}] += hold.count;
  }
  return held;
}

}  // namespace

namespace cluster_rules {

AwsError ExceedsAvailable(const GroupSpec& spec, int available) {
  return ResourceLimitExceeded("Requested instance count (" + Count(spec.count) +
                               ") of instance group " + Excerpt(spec.name) +
                               " exceeds available capacity (" + Count(std::max(0, available)) +
                               ") in training plan " + Excerpt(spec.plan_arn) + ".");
}

bool WindingDown(const PlanFacts& plan, TimePoint at) {
  const auto block = plan.BlockFrom(at);
  return !block || at >= block->end - kPlanWindDown;
}

bool Touched(const InstanceGroup& group) {
  return group.status == GroupStatus::kCreating || group.status == GroupStatus::kUpdating;
}

void ShutDown(ClusterNode& node, TimePoint now, Millis delay) {
  node.status = NodeStatus::kShuttingDown;
  node.gone_at = now + delay;
}

}  // namespace cluster_rules

namespace {

constexpr WireNames<ClusterStatus, 5> kClusterStatuses({{
    {ClusterStatus::kCreating, "Creating"},
    {ClusterStatus::kInService, "InService"},
    {ClusterStatus::kUpdating, "Updating"},
    {ClusterStatus::kDeleting, "Deleting"},
    {ClusterStatus::kFailed, "Failed"},
}});
static_assert(kClusterStatuses.Complete());

constexpr WireNames<GroupStatus, 5> kGroupStatuses({{
    {GroupStatus::kCreating, "Creating"},
    {GroupStatus::kInService, "InService"},
    {GroupStatus::kUpdating, "Updating"},
    {GroupStatus::kDeleting, "Deleting"},
    {GroupStatus::kFailed, "Failed"},
}});
static_assert(kGroupStatuses.Complete());

constexpr WireNames<NodeStatus, 4> kNodeStatuses({{
    {NodeStatus::kPending, "Pending"},
    {NodeStatus::kRunning, "Running"},
    {NodeStatus::kShuttingDown, "ShuttingDown"},
    {NodeStatus::kFailure, "Failure"},
}});
static_assert(kNodeStatuses.Complete());

}  // namespace

std::string_view ToString(ClusterStatus status) { return kClusterStatuses.NameOf(status); }

std::string_view ToString(GroupStatus status) { return kGroupStatuses.NameOf(status); }

std::string_view ToString(NodeStatus status) { return kNodeStatuses.NameOf(status); }

std::optional<ClusterStatus> ParseClusterStatus(std::string_view text) {
  return kClusterStatuses.Find(text);
}

std::optional<GroupStatus> ParseGroupStatus(std::string_view text) {
  return kGroupStatuses.Find(text);
}

std::optional<NodeStatus> ParseNodeStatus(std::string_view text) {
  return kNodeStatuses.Find(text);
}

int InstanceGroup::live_nodes() const {
  return static_cast<int>(std::count_if(nodes.begin(), nodes.end(), [](const ClusterNode& node) {
    return node.status != NodeStatus::kShuttingDown;
  }));
}

const InstanceGroup* Cluster::FindGroup(std::string_view name) const {
  for (const InstanceGroup& group : groups) {
    if (group.spec.name == name) return &group;
  }
  return nullptr;
}

std::string NodeId(const std::string& cluster_arn, int number) {
  return "i-" + Sha256Hex(cluster_arn + "#" + std::to_string(number)).substr(0, 17);
}

Status CheckPlanGroup(const GroupSpec& spec, const Owner& owner, TimePoint now,
                      const CapacityFacts& facts, const Holdings& holdings,
                      std::string_view except_arn, int also_taken) {
  const auto plan = facts.Plan(owner, spec.plan_arn);
  if (auto ok = AdmitOnPlan(
          {PlanTarget::kHyperPodCluster, spec.plan_arn, spec.instance_type, spec.count, spec.name},
          plan, now);
      !ok) {
    return ok;
  }
  const int available =
      plan->instance_count - holdings.OnPlan(spec.plan_arn, except_arn) - also_taken;
  if (available < spec.count) return ExceedsAvailable(spec, available);
  return Ok();
}

Result<Cluster> NewCluster(std::string arn, Owner owner, std::vector<GroupSpec> groups,
                           TimePoint now, Millis delay, const CapacityFacts& facts,
                           const Holdings& holdings) {
  Cluster cluster;
  cluster.arn = std::move(arn);
  cluster.owner = std::move(owner);
  cluster.created = now;
  cluster.modified = now;
  cluster.due = now + delay;
  std::map<std::string, int> plan_taken;
  for (GroupSpec& spec : groups) {
    if (!spec.plan_arn.empty()) {
      int& taken = plan_taken[spec.plan_arn];
      if (auto ok = CheckPlanGroup(spec, cluster.owner, now, facts, holdings, {}, taken); !ok) {
        return ok.error();
      }
      taken += spec.count;
    }
    cluster.groups.push_back({std::move(spec), GroupStatus::kCreating, {}});
  }
  return cluster;
}

Status CheckUpdatable(const Cluster& cluster) {
  if (cluster.status == ClusterStatus::kInService) return Ok();
  return ConflictException("Cluster " + Excerpt(cluster.arn) + " is " +
                           std::string(ToString(cluster.status)) +
                           "; it can be updated only while it is InService.");
}

Result<Cluster> StartUpdate(Cluster cluster, const std::vector<GroupSpec>& groups,
                            const std::vector<std::string>& to_delete, TimePoint now, Millis delay,
                            const CapacityFacts& facts, const Holdings& holdings) {
  if (auto updatable = CheckUpdatable(cluster); !updatable) return updatable.error();
  const Holder before = HolderOf(cluster);
  for (const GroupSpec& spec : groups) {
    if (std::find(to_delete.begin(), to_delete.end(), spec.name) != to_delete.end()) {
      return ValidationException("Instance group " + Excerpt(spec.name) +
                                 " cannot be both updated and deleted.");
    }
    auto group = std::find_if(cluster.groups.begin(), cluster.groups.end(),
                              [&](const InstanceGroup& g) { return g.spec.name == spec.name; });
    if (group == cluster.groups.end()) {
      cluster.groups.push_back({spec, GroupStatus::kCreating, {}});
      continue;
    }
    if (spec.instance_type != group->spec.instance_type) {
      return ValidationException("The instance type of instance group " + Excerpt(spec.name) +
                                 " cannot be changed from " + Excerpt(group->spec.instance_type) +
                                 " to " + Excerpt(spec.instance_type) + ".");
    }
    if (spec.plan_arn != group->spec.plan_arn) {
      return ValidationException("The training plan of instance group " + Excerpt(spec.name) +
                                 " cannot be changed.");
    }
    if (spec.count == group->spec.count) continue;
    if (!spec.plan_arn.empty()) {
      // In its plan's last hour (or after it) a group's nodes are leaving: it may shrink, not grow.
      const auto plan = facts.Plan(cluster.owner, spec.plan_arn);
      if (!plan || WindingDown(*plan, now)) {
        if (spec.count > group->spec.count) {
          if (!plan) {
            return ValidationException("Training plan " + Excerpt(spec.plan_arn) + " has expired.");
          }
          const auto block = plan->BlockFrom(now);
          return WindingDownRefusal(spec.plan_arn, block ? block->end : plan->Span().end,
                                    spec.name);
        }
        group->spec.count = spec.count;
        continue;
      }
    }
    // Scaling down shuts down the newest nodes first.
    int surplus = group->live_nodes() - spec.count;
    for (auto node = group->nodes.rbegin(); node != group->nodes.rend() && surplus > 0; ++node) {
      if (node->status == NodeStatus::kShuttingDown) continue;
      ShutDown(*node, now, delay);
      --surplus;
    }
    group->spec.count = spec.count;
    group->status = GroupStatus::kUpdating;
  }
  for (const std::string& name : to_delete) {
    auto group = std::find_if(cluster.groups.begin(), cluster.groups.end(),
                              [&](const InstanceGroup& g) { return g.spec.name == name; });
    if (group == cluster.groups.end()) {
      return ValidationException("Instance group " + Excerpt(name) + " does not exist in cluster " +
                                 Excerpt(cluster.arn) + ".");
    }
    group->status = GroupStatus::kDeleting;
    for (ClusterNode& node : group->nodes) {
      if (node.status != NodeStatus::kShuttingDown) ShutDown(node, now, delay);
    }
  }
  if (std::none_of(cluster.groups.begin(), cluster.groups.end(), [](const InstanceGroup& group) {
        return group.status != GroupStatus::kDeleting;
      })) {
    return ValidationException("Cluster " + Excerpt(cluster.arn) +
                               " must keep at least one instance group.");
  }
  cluster.status = ClusterStatus::kUpdating;
  cluster.modified = now;
  cluster.due = now + delay;

  // Growth is held from now, so it must fit now: new plan groups pass the plan's rules, and what
  // the cluster would hold beyond what it holds must be free.
  for (const InstanceGroup& group : cluster.groups) {
    const GroupSpec& spec = group.spec;
    if (spec.plan_arn.empty() || group.status != GroupStatus::kCreating) continue;
    if (auto ok = CheckPlanGroup(spec, cluster.owner, now, facts, holdings, cluster.arn); !ok) {
      return ok.error();
    }
  }
  const auto held_before = HeldPerSource(before);
  for (const auto& [source, after] : HeldPerSource(HolderOf(cluster))) {
    const auto& [plan_arn, instance_type] = source;
    auto found = held_before.find(source);
    const int had = found == held_before.end() ? 0 : found->second;
    if (after <= had) continue;
    if (plan_arn.empty()) {
      if (OnDemandFree(facts, holdings, cluster.owner.region, instance_type) < after - had) {
        return ResourceLimitExceeded(std::string(kNoOnDemandCapacity));
      }
      continue;
    }
    const auto plan = facts.Plan(cluster.owner, plan_arn);
    if (!plan || plan->StatusAt(now) == PlanStatus::kExpired) {
      return ValidationException("Training plan " + Excerpt(plan_arn) + " has expired.");
    }
    const int available = plan->instance_count - holdings.OnPlan(plan_arn) + had;
    if (available < after) {
      return ResourceLimitExceeded("Requested instance count (" + Count(after) +
                                   ") exceeds available capacity (" + Count(available) +
                                   ") in training plan " + Excerpt(plan_arn) + ".");
    }
  }
  return cluster;
}

Result<Cluster> StartDelete(Cluster cluster, TimePoint now, Millis delay) {
  if (cluster.status == ClusterStatus::kDeleting) {
    return ConflictException("Cluster " + Excerpt(cluster.arn) + " is already being deleted.");
  }
  for (InstanceGroup& group : cluster.groups) {
    group.status = GroupStatus::kDeleting;
    for (ClusterNode& node : group.nodes) {
      if (node.status != NodeStatus::kShuttingDown) ShutDown(node, now, delay);
    }
  }
  cluster.status = ClusterStatus::kDeleting;
  cluster.modified = now;
  cluster.due = now + delay;
  return cluster;
}

Result<Cluster> DeleteNodes(Cluster cluster, const std::vector<std::string>& node_ids,
                            TimePoint now, Millis delay, NodeDeletion& outcome) {
  if (cluster.status != ClusterStatus::kInService && cluster.status != ClusterStatus::kUpdating) {
    return ValidationException("Cluster " + Excerpt(cluster.arn) + " is " +
                               std::string(ToString(cluster.status)) +
                               "; nodes can be deleted only while it is InService or Updating.");
  }
  for (const std::string& id : node_ids) {
    ClusterNode* found = nullptr;
    InstanceGroup* in_group = nullptr;
    for (InstanceGroup& group : cluster.groups) {
      for (ClusterNode& node : group.nodes) {
        if (node.id == id) {
          found = &node;
          in_group = &group;
        }
      }
    }
    if (found == nullptr) {
      outcome.failed.push_back(
          {id, "NodeIdNotFound",
           "Node " + Excerpt(id) + " was not found in cluster " + Excerpt(cluster.arn) + "."});
      continue;
    }
    if (found->status == NodeStatus::kShuttingDown) {
      outcome.failed.push_back(
          {id, "InvalidNodeStatus", "Node " + Excerpt(id) + " is already being deleted."});
      continue;
    }
    ShutDown(*found, now, delay);
    in_group->spec.count = std::max(0, in_group->spec.count - 1);
    outcome.deleted.push_back(id);
  }
  if (!outcome.deleted.empty()) cluster.modified = now;
  return cluster;
}

Holder HolderOf(const Cluster& cluster) {
  Holder holder{
      cluster.arn, ResourceKind::kCluster, cluster.owner.region, {}, cluster.owner.account};
  const bool growing = cluster.status == ClusterStatus::kUpdating;
  for (const InstanceGroup& group : cluster.groups) {
    if (cluster.status == ClusterStatus::kCreating) {
      // A plan group's instances were checked free when the cluster was asked for: they are its
      // from then on, so no other cluster is promised them meanwhile. On-demand instances are
      // taken when the cluster is provisioned, as for endpoints.
      if (!group.spec.plan_arn.empty() && group.spec.count > 0) {
        holder.holds.push_back({group.spec.instance_type, group.spec.plan_arn, group.spec.count});
      }
      continue;
    }
    int held = static_cast<int>(group.nodes.size());
    if (growing && Touched(group)) {
      held += std::max(0, group.spec.count - group.live_nodes());
    }
    if (held > 0) holder.holds.push_back({group.spec.instance_type, group.spec.plan_arn, held});
  }
  return holder;
}

std::vector<Hold> ClaimsOf(const Cluster& cluster) {
  std::vector<Hold> claims;
  if (cluster.status != ClusterStatus::kCreating) return claims;
  for (const InstanceGroup& group : cluster.groups) {
    if (group.spec.plan_arn.empty() && group.spec.count > 0) {
      claims.push_back({group.spec.instance_type, "", group.spec.count});
    }
  }
  return claims;
}

std::vector<std::string> PlansOf(const Cluster& cluster) {
  std::vector<std::string> plans;
  for (const InstanceGroup& group : cluster.groups) {
    const std::string& plan = group.spec.plan_arn;
    if (!plan.empty() && std::find(plans.begin(), plans.end(), plan) == plans.end()) {
      plans.push_back(plan);
    }
  }
  return plans;
}

}  // namespace smemu::domain
