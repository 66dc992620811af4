// A SageMaker HyperPod cluster's lifecycle as typed state and pure transitions. A cluster is a set
// of instance groups; each group's nodes are instances taken either from a training plan bought for
// `hyperpod-cluster` or from the region's on-demand pools, the same instances endpoints and jobs
// compete for.
//
// The clock drives everything: a cluster is Creating, then InService (or Failed) after the
// provisioning delay; updates and deletions fall due the same way. A group on a plan is InService
// once created, but its nodes are Pending until the plan's window opens, Running through it,
// ShuttingDown from one hour before it ends (as AWS documents for HyperPod), and gone when the plan
// expires. Removed nodes are ShuttingDown, still holding their instances, until
// the provisioning delay has passed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/capacity_facts.hpp"
#include "domain/holdings.hpp"
#include "domain/training_plan.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

// The model's ClusterStatus, InstanceGroupStatus and ClusterInstanceStatus values the emulator
// uses.
enum class ClusterStatus { kCreating, kInService, kUpdating, kDeleting, kFailed };
enum class GroupStatus { kCreating, kInService, kUpdating, kDeleting, kFailed };
// kFailure: a node whose instance failed, left in place because the cluster's NodeRecovery is
// None.
enum class NodeStatus { kPending, kRunning, kShuttingDown, kFailure };
std::string_view ToString(ClusterStatus status);
std::string_view ToString(GroupStatus status);
std::string_view ToString(NodeStatus status);
std::optional<ClusterStatus> ParseClusterStatus(std::string_view text);
std::optional<GroupStatus> ParseGroupStatus(std::string_view text);
std::optional<NodeStatus> ParseNodeStatus(std::string_view text);

struct ClusterNode {
  std::string id;  // i- and 17 hex digits
  NodeStatus status = NodeStatus::kPending;
  TimePoint launched{};
  std::optional<TimePoint> gone_at;  // ShuttingDown: when its instance is given back
  // Shut down by its plan's last hour (not by a request): it comes back if the plan is extended.
  bool plan_wind_down = false;
  bool failed = false;  // its instance failed (a fault rule's node failure)

  bool operator==(const ClusterNode&) const = default;
};

// An instance group as a request specifies it.
struct GroupSpec {
  std::string name;
  std::string instance_type;
  int count = 0;
  std::string plan_arn;  // empty: on demand

  bool operator==(const GroupSpec&) const = default;
};

struct InstanceGroup {
  GroupSpec spec;  // spec.count is the target count
  GroupStatus status = GroupStatus::kCreating;
  std::vector<ClusterNode> nodes;

  int live_nodes() const;  // nodes that are not shutting down
  bool operator==(const InstanceGroup&) const = default;
};

// An instance of the cluster's that failed, kept for the health of the reserved capacity it came
// from (an UltraServer plan's UnhealthyInstanceCount) after the node itself is gone.
struct FailedInstance {
  std::string node_id;
  std::string plan_arn;  // empty: on demand
  TimePoint at{};

  bool operator==(const FailedInstance&) const = default;
};

struct Cluster {
  std::string arn;
  Owner owner;
  ClusterStatus status = ClusterStatus::kCreating;
  TimePoint created{};
  TimePoint modified{};
  std::optional<TimePoint> due;  // Creating, Updating, Deleting: when the change falls due
  std::optional<std::string> failure_message;
  std::vector<InstanceGroup> groups;
  int nodes_launched = 0;                   // numbers the node ids
  std::vector<std::string> faults_applied;  // the node failures (fault rule ids) already applied
  std::vector<FailedInstance> failed_instances;

  const InstanceGroup* FindGroup(std::string_view name) const;
  bool operator==(const Cluster&) const = default;
};

// A node's instance id, derived from the cluster and the node's number so that replays agree.
std::string NodeId(const std::string& cluster_arn, int number);

// ---- Transitions a request asks for

// Whether `spec` may take its instances from its plan: the owner's plan, bought for
// hyperpod-cluster, of the group's type, not expired, holding `spec.count` instances besides what
// other resources (and other groups of `taking`) hold on it.
Status CheckPlanGroup(const GroupSpec& spec, const Owner& owner, TimePoint now,
                      const CapacityFacts& facts, const Holdings& holdings,
                      std::string_view except_arn = {}, int also_taken = 0);

// A new cluster, Creating until `now + delay`. Plan groups are checked at once; on-demand ones when
// the cluster is provisioned.
Result<Cluster> NewCluster(std::string arn, Owner owner, std::vector<GroupSpec> groups,
                           TimePoint now, Millis delay, const CapacityFacts& facts,
                           const Holdings& holdings);

// Only an InService cluster updates (ConflictException otherwise).
Status CheckUpdatable(const Cluster& cluster);

// An update: changes the counts of the groups named (their type and plan stay), adds new groups and
// deletes the groups in `to_delete`. Only an InService cluster updates (ConflictException).
// Growth must fit the plan or the pool now; it is held from this moment, applied after `delay`.
Result<Cluster> StartUpdate(Cluster cluster, const std::vector<GroupSpec>& groups,
                            const std::vector<std::string>& to_delete, TimePoint now, Millis delay,
                            const CapacityFacts& facts, const Holdings& holdings);

// DeleteCluster: every node shuts down; the cluster is gone after `delay`.
Result<Cluster> StartDelete(Cluster cluster, TimePoint now, Millis delay);

// BatchDeleteClusterNodes: each node found shuts down and its group's target count drops by one.
struct NodeDeletion {
  std::vector<std::string> deleted;
  struct Failure {
    std::string node_id;
    std::string code;  // BatchDeleteClusterNodesErrorCode
    std::string message;
  };
  std::vector<Failure> failed;
};
Result<Cluster> DeleteNodes(Cluster cluster, const std::vector<std::string>& node_ids,
                            TimePoint now, Millis delay, NodeDeletion& outcome);

// ---- Transitions the clock brings

// A node failure a fault rule brings to a cluster: at `at`, the first running node (in launch
// order) of the first group whose name matches the glob `group` fails. With `replace` (the
// cluster's NodeRecovery is Automatic: "SageMaker HyperPod will automatically reboot or replace
// faulty nodes") the node leaves and a new one takes its place; otherwise it stays, in Failure.
// Each rule fails one node of a cluster once.
struct NodeFailure {
  std::string rule_id;
  TimePoint at{};
  std::string group;  // a glob; "" matches any group
  bool replace = true;
};

struct ClusterSettlement {
  std::optional<Cluster> cluster;  // nullopt: deleted
  // When the next transition falls due while nothing else changes; nullopt when none is.
  std::optional<TimePoint> next_due;
};
// Applies every transition due by `now`, each at the moment it fell due: provisioning, updates,
// nodes of plan groups starting and ending with their plan, shut-down nodes leaving, deletion.
// `holdings` must include what `cluster` holds now.
// `failures` happen in time order with the other transitions.
ClusterSettlement Settle(const Cluster& cluster, TimePoint now, const CapacityFacts& facts,
                         const Holdings& holdings, const std::vector<NodeFailure>& failures = {});

// What a cluster holds: its nodes, while Updating the growth it asked for, and while Creating the
// instances of its plan groups (on-demand groups take theirs when provisioned).
Holder HolderOf(const Cluster& cluster);

// What a cluster has asked for and does not hold yet, counted as used by the quotas: while
// Creating, its on-demand groups (its plan groups are held already).
std::vector<Hold> ClaimsOf(const Cluster& cluster);

// Every plan a cluster's groups name, in group order without repeats.
std::vector<std::string> PlansOf(const Cluster& cluster);

}  // namespace smemu::domain
