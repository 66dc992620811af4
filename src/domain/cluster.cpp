#include "domain/cluster.hpp"

#include <algorithm>
#include <map>

#include "domain/aws_names.hpp"
#include "domain/endpoint.hpp"
#include "domain/faults.hpp"
#include "domain/plan_admission.hpp"
#include "domain/resource_kinds.hpp"
#include "domain/time_format.hpp"
#include "domain/wire_names.hpp"

namespace smemu::domain {
namespace {

// AWS starts terminating a HyperPod group's instances one hour before its reserved block ends.
constexpr Millis kPlanWindDown = kHyperPodWindDown;
// The FailureMessage of a cluster whose on-demand instances could not be launched, as AWS words it.
constexpr std::string_view kNoCapacity =
    "We currently do not have sufficient capacity for the requested instance type(s). Please try "
    "again.";

std::string Count(int count) { return std::to_string(count); }

AwsError ExceedsAvailable(const GroupSpec& spec, int available) {
  return ResourceLimitExceeded("Requested instance count (" + Count(spec.count) +
                               ") of instance group " + Excerpt(spec.name) +
                               " exceeds available capacity (" + Count(std::max(0, available)) +
                               ") in training plan " + Excerpt(spec.plan_arn) + ".");
}

// From one hour before a reserved capacity ends, HyperPod takes its instances back.
bool WindingDown(const PlanFacts& plan, TimePoint at) {
  const auto block = plan.BlockFrom(at);
  return !block || at >= block->end - kPlanWindDown;
}

// Whether an update changed the group (a new group, or a new count).
bool Touched(const InstanceGroup& group) {
  return group.status == GroupStatus::kCreating || group.status == GroupStatus::kUpdating;
}

// What a holder holds per source: (plan ARN, "") for a plan, ("", instance type) on demand.
std::map<std::pair<std::string, std::string>, int> HeldPerSource(const Holder& holder) {
  std::map<std::pair<std::string, std::string>, int> held;
  for (const Hold& hold : holder.holds) {
    held[{hold.plan_arn, hold.plan_arn.empty() ? hold.instance_type : ""}] += hold.count;
  }
  return held;
}

void ShutDown(ClusterNode& node, TimePoint now, Millis delay) {
  node.status = NodeStatus::kShuttingDown;
  node.gone_at = now + delay;
}

// Launches nodes until `group` has its target count, as of `at`: running at once on demand; on a
// plan, pending until its window opens (and none once it has ended).
void Launch(Cluster& cluster, InstanceGroup& group, TimePoint at, const CapacityFacts& facts) {
  NodeStatus status = NodeStatus::kRunning;
  if (!group.spec.plan_arn.empty()) {
    const auto plan = facts.Plan(cluster.owner, group.spec.plan_arn);
    const PlanStatus plan_status = plan ? plan->StatusAt(at) : PlanStatus::kExpired;
    if (plan_status == PlanStatus::kExpired) return;
    if (plan_status == PlanStatus::kScheduled) status = NodeStatus::kPending;
  }
  for (int missing = group.spec.count - group.live_nodes(); missing > 0; --missing) {
    group.nodes.push_back({NodeId(cluster.arn, ++cluster.nodes_launched), status, at, {}});
  }
}

// The reason provisioning cannot give every group its instances as of `at`, or nullopt when it
// can. What the cluster itself holds (its plan groups, while Creating) is left out.
std::optional<std::string> ProvisioningFailure(const Cluster& cluster, TimePoint at,
                                               const CapacityFacts& facts,
                                               const Holdings& holdings) {
  std::map<std::string, int> on_demand_taken;
  std::map<std::string, int> plan_taken;
  for (const InstanceGroup& group : cluster.groups) {
    const GroupSpec& spec = group.spec;
    if (spec.plan_arn.empty()) {
      const int free =
          OnDemandFree(facts, holdings, cluster.owner.region, spec.instance_type, cluster.arn);
      int& taken = on_demand_taken[spec.instance_type];
      if (free != INT_MAX && free - taken < spec.count) {
        return std::string(kNoCapacity);
      }
      taken += spec.count;
      continue;
    }
    const auto plan = facts.Plan(cluster.owner, spec.plan_arn);
    if (!plan || plan->StatusAt(at) == PlanStatus::kExpired) {
      return "Instance group " + Excerpt(spec.name) + ": training plan " + Excerpt(spec.plan_arn) +
             " has expired.";
    }
    int& taken = plan_taken[spec.plan_arn];
    const int available =
        plan->instance_count - holdings.OnPlan(spec.plan_arn, cluster.arn) - taken;
    if (available < spec.count)
      return "Instance group " + Excerpt(spec.name) + ": " +
             ExceedsAvailable(spec, available).message;
    taken += spec.count;
  }
  return std::nullopt;
}

void Provision(Cluster& cluster, TimePoint at, const CapacityFacts& facts,
               const Holdings& holdings) {
  cluster.due.reset();
  cluster.modified = at;
  if (auto failure = ProvisioningFailure(cluster, at, facts, holdings)) {
    cluster.status = ClusterStatus::kFailed;
    cluster.failure_message = std::move(*failure);
    for (InstanceGroup& group : cluster.groups) group.status = GroupStatus::kFailed;
    return;
  }
  for (InstanceGroup& group : cluster.groups) {
    Launch(cluster, group, at, facts);
    group.status = GroupStatus::kInService;
  }
  cluster.status = ClusterStatus::kInService;
}

void ApplyUpdate(Cluster& cluster, TimePoint at, const CapacityFacts& facts) {
  cluster.groups.erase(std::remove_if(cluster.groups.begin(), cluster.groups.end(),
                                      [](const InstanceGroup& group) {
                                        return group.status == GroupStatus::kDeleting;
                                      }),
                       cluster.groups.end());
  for (InstanceGroup& group : cluster.groups) {
    // Only the groups the update touched grow: one whose plan has shut its nodes down keeps them
    // down.
    if (Touched(group)) Launch(cluster, group, at, facts);
    group.status = GroupStatus::kInService;
  }
  cluster.status = ClusterStatus::kInService;
  cluster.due.reset();
  cluster.modified = at;
}

// Nodes of plan groups follow their plan's blocks as of `at`: they leave at a block's end, and
// between two blocks the group waits with pending nodes for the next.
void FollowPlans(Cluster& cluster, TimePoint at, const CapacityFacts& facts) {
  for (InstanceGroup& group : cluster.groups) {
    if (group.spec.plan_arn.empty()) continue;
    const auto plan = facts.Plan(cluster.owner, group.spec.plan_arn);
    const PlanStatus status = plan ? plan->StatusAt(at) : PlanStatus::kExpired;
    if (status == PlanStatus::kExpired) {
      group.nodes.clear();  // the reservation's instances are taken back when it ends
      continue;
    }
    const bool winding_down = WindingDown(*plan, at);
    for (ClusterNode& node : group.nodes) {
      if (status != PlanStatus::kActive) break;
      if (winding_down && node.status != NodeStatus::kShuttingDown) {
        node.status = NodeStatus::kShuttingDown;
        node.gone_at = plan->BlockFrom(at)->end;
        node.plan_wind_down = true;
      } else if (!winding_down && node.plan_wind_down) {
        // The plan was extended in its last hour: its nodes carry on.
        node.status = NodeStatus::kRunning;
        node.gone_at.reset();
        node.plan_wind_down = false;
      } else if (node.status == NodeStatus::kPending) {
        node.status = NodeStatus::kRunning;
        node.launched = std::max(node.launched, plan->BlockFrom(at)->start);
      }
    }
    if (at >= plan->Span().start && group.status == GroupStatus::kInService && !winding_down) {
      // After a reserved capacity has ended, the group waits for the next with pending nodes.
      Launch(cluster, group, at, facts);
    }
  }
}

// When the next transition of `cluster` falls due, however far ahead.
std::optional<TimePoint> NextTransition(const Cluster& cluster, const CapacityFacts& facts) {
  std::optional<TimePoint> next;
  if (cluster.status == ClusterStatus::kCreating || cluster.status == ClusterStatus::kUpdating ||
      cluster.status == ClusterStatus::kDeleting) {
    next = cluster.due.value_or(cluster.modified);
  }
  for (const InstanceGroup& group : cluster.groups) {
    for (const ClusterNode& node : group.nodes) {
      if (node.gone_at) next = Earliest(next, node.gone_at);
    }
    if (group.spec.plan_arn.empty() || group.nodes.empty()) continue;
    const auto plan = facts.Plan(cluster.owner, group.spec.plan_arn);
    if (!plan) {
      next = Earliest(next, cluster.modified);  // the plan is gone: its nodes leave now
      continue;
    }
    // Each node follows the block it was launched for: a pending node starts when it opens, a
    // running one starts leaving an hour before it ends.
    for (const ClusterNode& node : group.nodes) {
      const auto block = plan->BlockFrom(node.launched);
      if (!block) {
        next = Earliest(next, plan->Span().end);
      } else if (node.status == NodeStatus::kPending) {
        next = Earliest(next, block->start);
      } else if (node.status == NodeStatus::kRunning) {
        next = Earliest(next, block->end - kPlanWindDown);
      } else {
        next = Earliest(next, block->end);
      }
    }
  }
  return next;
}

bool Applied(const Cluster& cluster, const NodeFailure& failure) {
  return std::find(cluster.faults_applied.begin(), cluster.faults_applied.end(), failure.rule_id) !=
         cluster.faults_applied.end();
}

// When the next node failure not yet applied happens.
std::optional<TimePoint> NextFailure(const Cluster& cluster,
                                     const std::vector<NodeFailure>& failures) {
  std::optional<TimePoint> next;
  if (cluster.status == ClusterStatus::kDeleting || cluster.status == ClusterStatus::kFailed) {
    return next;
  }
  for (const NodeFailure& failure : failures) {
    if (!Applied(cluster, failure)) next = Earliest(next, failure.at);
  }
  return next;
}

// The node failures due by `at`, in time order: each takes the first running node (in launch
// order) of the first group it names that has one.
void ApplyFailures(Cluster& cluster, TimePoint at, const std::vector<NodeFailure>& failures,
                   const CapacityFacts& facts) {
  std::vector<const NodeFailure*> due;
  for (const NodeFailure& failure : failures) {
    if (failure.at <= at && !Applied(cluster, failure)) due.push_back(&failure);
  }
  std::stable_sort(due.begin(), due.end(),
                   [](const auto* a, const auto* b) { return a->at < b->at; });
  for (const NodeFailure* failure : due) {
    cluster.faults_applied.push_back(failure->rule_id);
    if (cluster.status == ClusterStatus::kDeleting || cluster.status == ClusterStatus::kFailed) {
      continue;
    }
    for (InstanceGroup& group : cluster.groups) {
      if (!GlobMatches(failure->group, group.spec.name)) continue;
      ClusterNode* victim = nullptr;
      for (ClusterNode& node : group.nodes) {
        if (node.status == NodeStatus::kRunning && node.launched <= failure->at &&
            (victim == nullptr ||
             std::tie(node.launched, node.id) < std::tie(victim->launched, victim->id))) {
          victim = &node;
        }
      }
      if (victim == nullptr) continue;
      victim->failed = true;
      cluster.failed_instances.push_back({victim->id, group.spec.plan_arn, failure->at});
      if (failure->replace) {
        ShutDown(*victim, failure->at, Millis{0});  // its instance is given back at once
        if (group.status == GroupStatus::kInService) Launch(cluster, group, failure->at, facts);
      } else {
        victim->status = NodeStatus::kFailure;
      }
      break;
    }
  }
}

// Applies every transition due at `at`. Returns false when the cluster is gone.
bool Step(Cluster& cluster, TimePoint at, const CapacityFacts& facts, const Holdings& holdings) {
  // First, so that nodes a plan was winding down stay when the plan was extended since (they are
  // due to leave at its old end).
  FollowPlans(cluster, at, facts);
  for (InstanceGroup& group : cluster.groups) {
    group.nodes.erase(std::remove_if(group.nodes.begin(), group.nodes.end(),
                                     [at](const ClusterNode& node) {
                                       return node.gone_at && *node.gone_at <= at;
                                     }),
                      group.nodes.end());
  }
  const bool change_due = cluster.due.value_or(cluster.modified) <= at;
  if (change_due && cluster.status == ClusterStatus::kDeleting) return false;
  if (change_due && cluster.status == ClusterStatus::kCreating) {
    Provision(cluster, at, facts, holdings);
  }
  if (change_due && cluster.status == ClusterStatus::kUpdating) ApplyUpdate(cluster, at, facts);
  FollowPlans(cluster, at, facts);
  return true;
}

}  // namespace

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

ClusterSettlement Settle(const Cluster& cluster, TimePoint now, const CapacityFacts& facts,
                         const Holdings& holdings, const std::vector<NodeFailure>& failures) {
  Cluster settled = cluster;
  auto next_event = [&] {
    return Earliest(NextTransition(settled, facts), NextFailure(settled, failures));
  };
  for (auto at = next_event(); at && *at <= now;) {
    const Cluster before = settled;
    if (!Step(settled, *at, facts, holdings)) return {std::nullopt, std::nullopt};
    ApplyFailures(settled, *at, failures, facts);
    const auto next = next_event();
    // Every step either moves time on or changes the cluster; one that does neither has nothing
    // left to do at `at`.
    if (settled == before && next && *next <= *at) break;
    at = next;
  }
  const auto next = next_event();  // before `settled` is moved from
  return {std::move(settled), next};
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
