// The transitions the clock brings to a cluster (Settle): provisioning, updates falling due, plan
// groups following their plan's blocks, nodes leaving and failing, deletion.
#include <algorithm>
#include <climits>
#include <map>
#include <tuple>

#include "domain/cluster.hpp"
#include "domain/cluster_rules.hpp"
#include "domain/faults.hpp"

namespace smemu::domain {
namespace {

using cluster_rules::ExceedsAvailable;
using cluster_rules::kPlanWindDown;
using cluster_rules::ShutDown;
using cluster_rules::Touched;
using cluster_rules::WindingDown;

// The FailureMessage of a cluster whose on-demand instances could not be launched, as AWS words it.
constexpr std::string_view kNoCapacity =
    "We currently do not have sufficient capacity for the requested instance type(s). Please try "
    "again.";

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

}  // namespace smemu::domain
