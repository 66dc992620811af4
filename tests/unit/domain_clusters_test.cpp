// The HyperPod cluster lifecycle as pure functions: no store, no router. The plan checks of a new
// cluster, provisioning on plans and on demand, nodes following their plan's window, updates,
// deletion of the cluster and of single nodes, and when the next transition falls due.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "domain/cluster.hpp"
#include "domain/endpoint.hpp"
#include "unit/domain_fakes.hpp"

namespace smemu {
namespace {

using domain::Cluster;
using domain::ClusterStatus;
using domain::GroupSpec;
using domain::GroupStatus;
using domain::NodeStatus;
using testing::FakeFacts;
using ::testing::HasSubstr;
using testing::Hour;
using testing::kDelay;
using testing::kG5;
using testing::kNoCapacity;
using testing::kOtherPlan;
using testing::kOwner;
using testing::kP5;
using testing::kPlan;

constexpr const char* kDomainClusterArn =
    "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdef123456";

GroupSpec GroupOnPlan(const std::string& name, int count, const std::string& plan = kPlan) {
  return {name, kP5, count, plan};
}

GroupSpec GroupOnDemand(const std::string& name, const std::string& type, int count) {
  return {name, type, count, ""};
}

// Settles `cluster` at `now` with `others` holding instances besides the cluster itself.
domain::ClusterSettlement SettleAt(const Cluster& cluster, TimePoint now, const FakeFacts& facts,
                                   const domain::Holdings& others = {}) {
  domain::Holdings with_own = others;
  with_own.Put(domain::HolderOf(cluster));
  return domain::Settle(cluster, now, facts, with_own);
}

Cluster Created(std::vector<GroupSpec> groups, const FakeFacts& facts, TimePoint now = Hour(0)) {
  auto cluster =
      domain::NewCluster(kDomainClusterArn, kOwner, std::move(groups), now, kDelay, facts, {});
  EXPECT_TRUE(cluster) << cluster.error().message;
  return *cluster;
}

// A cluster provisioned at Hour(0) + kDelay and settled at Hour(1).
Cluster InService(std::vector<GroupSpec> groups, const FakeFacts& facts) {
  auto settled = SettleAt(Created(std::move(groups), facts), Hour(1), facts);
  EXPECT_TRUE(settled.cluster);
  EXPECT_EQ(settled.cluster->status, ClusterStatus::kInService);
  return *settled.cluster;
}

std::vector<NodeStatus> StatusesOf(const domain::InstanceGroup& group) {
  std::vector<NodeStatus> statuses;
  for (const domain::ClusterNode& node : group.nodes) statuses.push_back(node.status);
  return statuses;
}

struct PlanCheckCase {
  std::string name;
  FakeFacts facts;
  std::vector<GroupSpec> groups;
  int hour;
  domain::Holdings others;
  domain::ErrorCode code;
  std::string message;
};

TEST(DomainCluster, NewClusterChecksEveryPlanGroupAtOnce) {
  domain::Holdings one_held;
  one_held.Put({"arn:endpoint",
                domain::ResourceKind::kEndpoint,
                kOwner.region,
                {{kP5, kPlan, 1}},
                kOwner.account});
  const std::string plan = kPlan;
  const std::vector<PlanCheckCase> cases = {
      {"MissingPlan",
       FakeFacts(),
       {GroupOnPlan("g", 1)},
       0,
       {},
       domain::ErrorCode::kValidationException,
       "Training plan " + plan + " does not exist in this account and region."},
      {"NotBoughtForClusters",
       FakeFacts().WithPlan(kPlan, 2, 0, 48, kP5, {"training-job", "endpoint"}),
       {GroupOnPlan("g", 1)},
       0,
       {},
       domain::ErrorCode::kValidationException,
       "Training plan " + plan +
           " was not bought for HyperPod clusters (its TargetResources do not include "
           "hyperpod-cluster)."},
      {"OtherInstanceType",
       FakeFacts().WithPlan(kPlan, 2, 0, 48, kG5),
       {GroupOnPlan("g", 1)},
       0,
       {},
       domain::ErrorCode::kValidationException,
       "Instance type ml.p5.48xlarge of instance group g does not match the instance type of "
       "training plan " +
           plan + " (ml.g5.12xlarge)."},
      {"Expired",
       FakeFacts().WithPlan(kPlan, 2, 0, 1),
       {GroupOnPlan("g", 1)},
       2,
       {},
       domain::ErrorCode::kValidationException,
       "Training plan " + plan + " has expired."},
      {"MoreThanReserved",
       FakeFacts().WithPlan(kPlan, 2, 0, 48),
       {GroupOnPlan("g", 3)},
       0,
       {},
       domain::ErrorCode::kValidationException,
       "Requested instance count (3) of instance group g exceeds reserved capacity (2) for "
       "training plan " +
           plan + "."},
      {"MoreThanOthersLeave",
       FakeFacts().WithPlan(kPlan, 2, 0, 48),
       {GroupOnPlan("g", 2)},
       0,
       one_held,
       domain::ErrorCode::kResourceLimitExceeded,
       "Requested instance count (2) of instance group g exceeds available capacity (1) in "
       "training plan " +
           plan + "."},
      {"TwoGroupsShareOnePlan",
       FakeFacts().WithPlan(kPlan, 2, 0, 48),
       {GroupOnPlan("a", 1), GroupOnPlan("b", 2)},
       0,
       {},
       domain::ErrorCode::kResourceLimitExceeded,
       "Requested instance count (2) of instance group b exceeds available capacity (1) in "
       "training plan " +
           plan + "."},
  };
  for (const PlanCheckCase& c : cases) {
    SCOPED_TRACE(c.name);
    const auto created = domain::NewCluster(kDomainClusterArn, kOwner, c.groups, Hour(c.hour),
                                            kDelay, c.facts, c.others);
    ASSERT_FALSE(created);
    EXPECT_EQ(created.error().code, c.code);
    EXPECT_EQ(created.error().message, c.message);
  }
}

// While Creating, a cluster holds its plan groups' instances (checked free when it was asked for),
// and none on demand: those are taken when it is provisioned.
TEST(DomainCluster, ANewClusterIsCreatingAndHoldsOnlyItsPlanInstances) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 5, 48);  // scheduled: a plan may be named before its window opens
  const auto created =
      domain::NewCluster(kDomainClusterArn, kOwner, {GroupOnPlan("a", 1), GroupOnPlan("b", 1)},
                         Hour(1), kDelay, facts, {});
  ASSERT_TRUE(created) << created.error().message;
  EXPECT_EQ(created->status, ClusterStatus::kCreating);
  EXPECT_EQ(created->created, Hour(1));
  EXPECT_EQ(created->due, Hour(1) + kDelay);
  ASSERT_EQ(created->groups.size(), 2u);
  EXPECT_EQ(created->groups[0].status, GroupStatus::kCreating);
  EXPECT_TRUE(created->groups[0].nodes.empty());
  EXPECT_EQ(domain::HolderOf(*created).holds,
            (std::vector<domain::Hold>{{kP5, kPlan, 1}, {kP5, kPlan, 1}}));
  // So a second cluster asked for meanwhile finds the plan full.
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(*created));
  const auto second =
      domain::NewCluster("arn:aws:sagemaker:us-west-2:111122223333:cluster/second", kOwner,
                         {GroupOnPlan("c", 1)}, Hour(1), kDelay, facts, holdings);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, domain::ErrorCode::kResourceLimitExceeded);

  const auto on_demand = domain::NewCluster(
      kDomainClusterArn, kOwner, {GroupOnDemand("cpu", kG5, 3)}, Hour(1), kDelay, facts, {});
  ASSERT_TRUE(on_demand);
  EXPECT_TRUE(domain::HolderOf(*on_demand).holds.empty());
}

TEST(DomainCluster, ProvisioningFallsDueAfterTheDelayAndLaunchesRunningOnDemandNodes) {
  FakeFacts facts;
  facts.WithOnDemand(kG5, 2);
  const Cluster created = Created({GroupOnDemand("workers", kG5, 2)}, facts);

  const auto early = SettleAt(created, Hour(0) + kDelay - Millis{1}, facts);
  ASSERT_TRUE(early.cluster);
  EXPECT_EQ(early.cluster->status, ClusterStatus::kCreating);
  EXPECT_EQ(early.next_due, Hour(0) + kDelay);

  const auto settled = SettleAt(created, Hour(1), facts);
  ASSERT_TRUE(settled.cluster);
  const Cluster& cluster = *settled.cluster;
  EXPECT_EQ(cluster.status, ClusterStatus::kInService);
  EXPECT_EQ(cluster.modified, Hour(0) + kDelay);
  EXPECT_FALSE(cluster.due);
  EXPECT_FALSE(cluster.failure_message);
  EXPECT_EQ(cluster.groups[0].status, GroupStatus::kInService);
  EXPECT_THAT(StatusesOf(cluster.groups[0]),
              ::testing::ElementsAre(NodeStatus::kRunning, NodeStatus::kRunning));
  EXPECT_EQ(cluster.groups[0].nodes[0].launched, Hour(0) + kDelay);
  EXPECT_EQ(cluster.groups[0].nodes[0].id, domain::NodeId(kDomainClusterArn, 1));
  EXPECT_EQ(cluster.groups[0].nodes[1].id, domain::NodeId(kDomainClusterArn, 2));
  EXPECT_EQ(cluster.nodes_launched, 2);
  EXPECT_FALSE(settled.next_due) << "an on-demand cluster in service has nothing left to do";

  const domain::Holder holder = domain::HolderOf(cluster);
  EXPECT_EQ(holder.arn, kDomainClusterArn);
  EXPECT_EQ(holder.kind, domain::ResourceKind::kCluster);
  EXPECT_EQ(holder.region, kOwner.region);
  EXPECT_EQ(holder.account, kOwner.account);
  EXPECT_EQ(holder.holds, (std::vector<domain::Hold>{{kG5, "", 2}}));
}

TEST(DomainCluster, AnOnDemandShortageAtProvisioningFailsTheCluster) {
  struct Case {
    std::string name;
    std::vector<GroupSpec> groups;
    int others_hold;  // on-demand g5 held by a job
    bool fails;
  };
  const std::vector<Case> cases = {
      {"WithinThePool", {GroupOnDemand("a", kG5, 3)}, 0, false},
      {"BeyondThePool", {GroupOnDemand("a", kG5, 4)}, 0, true},
      {"ThePoolIsPartlyHeld", {GroupOnDemand("a", kG5, 2)}, 2, true},
      {"TwoGroupsTogetherBeyondThePool",
       {GroupOnDemand("a", kG5, 2), GroupOnDemand("b", kG5, 2)},
       0,
       true},
      {"AnUnlistedTypeIsUnlimited", {GroupOnDemand("a", "ml.m5.xlarge", 500)}, 0, false},
  };
  FakeFacts facts;
  facts.WithOnDemand(kG5, 3);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    domain::Holdings others;
    if (c.others_hold > 0) {
      others.Put({"arn:job",
                  domain::ResourceKind::kTrainingJob,
                  kOwner.region,
                  {{kG5, "", c.others_hold}},
                  ""});
    }
    const auto settled = SettleAt(Created(c.groups, facts), Hour(1), facts, others);
    ASSERT_TRUE(settled.cluster);
    if (!c.fails) {
      EXPECT_EQ(settled.cluster->status, ClusterStatus::kInService);
      continue;
    }
    EXPECT_EQ(settled.cluster->status, ClusterStatus::kFailed);
    EXPECT_EQ(settled.cluster->failure_message, kNoCapacity);
    EXPECT_EQ(settled.cluster->modified, Hour(0) + kDelay);
    for (const auto& group : settled.cluster->groups) {
      EXPECT_EQ(group.status, GroupStatus::kFailed);
      EXPECT_TRUE(group.nodes.empty());
    }
    EXPECT_TRUE(domain::HolderOf(*settled.cluster).holds.empty());
    EXPECT_FALSE(settled.next_due);
  }
}

TEST(DomainCluster, APlanThatExpiredBeforeProvisioningFailsTheCluster) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 1, 0, 2);
  const Cluster created = Created({GroupOnPlan("g", 1)}, facts, Hour(0));
  const auto settled = SettleAt(created, Hour(0) + kDelay, facts);
  ASSERT_TRUE(settled.cluster);
  EXPECT_EQ(settled.cluster->status, ClusterStatus::kInService);  // still inside the window
  // Asked for before the plan's last hour, with a delay that carries provisioning past its end.
  const auto late = domain::NewCluster(kDomainClusterArn, kOwner, {GroupOnPlan("g", 1)}, Hour(0),
                                       Millis{std::chrono::hours(3)}, facts, {});
  ASSERT_TRUE(late) << late.error().message;
  const auto failed = SettleAt(*late, Hour(4), facts);
  EXPECT_EQ(failed.cluster->status, ClusterStatus::kFailed);
  EXPECT_EQ(failed.cluster->failure_message,
            "Instance group g: training plan " + std::string(kPlan) + " has expired.");
}

// Window [5h, 48h): Pending before, Running from its start (their launch time is the window's
// start), ShuttingDown from 47h, gone at 48h; the plan's instances are held until then.
TEST(DomainCluster, PlanNodesFollowTheWindowOfTheirPlan) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 5, 48);
  const Cluster cluster = InService({GroupOnPlan("gpu", 2)}, facts);
  const domain::InstanceGroup& group = cluster.groups[0];
  EXPECT_EQ(group.status, GroupStatus::kInService);
  EXPECT_THAT(StatusesOf(group), ::testing::Each(NodeStatus::kPending));
  ASSERT_EQ(group.nodes.size(), 2u);
  EXPECT_EQ(group.nodes[0].launched, Hour(0) + kDelay);
  EXPECT_EQ(group.live_nodes(), 2);
  EXPECT_EQ(domain::HolderOf(cluster).holds, (std::vector<domain::Hold>{{kP5, kPlan, 2}}));
  // The next change is the window opening.
  EXPECT_EQ(SettleAt(cluster, Hour(4), facts).next_due, Hour(5));

  const auto open = SettleAt(cluster, Hour(5), facts);
  EXPECT_THAT(StatusesOf(open.cluster->groups[0]), ::testing::Each(NodeStatus::kRunning));
  EXPECT_EQ(open.cluster->groups[0].nodes[0].launched, Hour(5));
  EXPECT_EQ(open.cluster->groups[0].nodes[1].launched, Hour(5));
  EXPECT_EQ(open.next_due, Hour(47));

  const auto before_wind_down = SettleAt(cluster, Hour(47) - Millis{1}, facts);
  EXPECT_THAT(StatusesOf(before_wind_down.cluster->groups[0]),
              ::testing::Each(NodeStatus::kRunning));

  const auto winding_down = SettleAt(cluster, Hour(47), facts);
  const domain::InstanceGroup& ending = winding_down.cluster->groups[0];
  EXPECT_THAT(StatusesOf(ending), ::testing::Each(NodeStatus::kShuttingDown));
  EXPECT_EQ(ending.nodes[0].gone_at, Hour(48));
  EXPECT_EQ(ending.live_nodes(), 0);
  EXPECT_EQ(ending.spec.count, 2) << "the target count stays what was asked for";
  EXPECT_EQ(domain::HolderOf(*winding_down.cluster).holds,
            (std::vector<domain::Hold>{{kP5, kPlan, 2}}))
      << "shutting-down nodes still hold their instances";
  EXPECT_EQ(winding_down.next_due, Hour(48));

  const auto ended = SettleAt(cluster, Hour(48), facts);
  ASSERT_TRUE(ended.cluster);
  EXPECT_EQ(ended.cluster->status, ClusterStatus::kInService);
  EXPECT_TRUE(ended.cluster->groups[0].nodes.empty());
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(*ended.cluster));
  EXPECT_EQ(holdings.OnPlan(kPlan), 0);
  EXPECT_EQ(holdings.Find(kDomainClusterArn), nullptr);
  EXPECT_FALSE(ended.next_due);

  // One Settle from Creating far past the end walks through every step in order.
  const auto at_once = SettleAt(Created({GroupOnPlan("gpu", 2)}, facts), Hour(100), facts);
  ASSERT_TRUE(at_once.cluster);
  EXPECT_EQ(at_once.cluster->status, ClusterStatus::kInService);
  EXPECT_TRUE(at_once.cluster->groups[0].nodes.empty());
  EXPECT_EQ(at_once.cluster->modified, Hour(0) + kDelay);
}

TEST(DomainCluster, SettleWithAFrozenNowReportsTheNextTransition) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 5, 48).WithOnDemand(kG5, 4);
  const Cluster created = Created({GroupOnPlan("gpu", 1), GroupOnDemand("cpu", kG5, 1)}, facts);
  struct Case {
    TimePoint now;
    std::optional<TimePoint> next_due;
  };
  const std::vector<Case> cases = {
      {Hour(0), Hour(0) + kDelay},  // provisioning
      {Hour(0) + kDelay, Hour(5)},  // the plan's window opens
      {Hour(5), Hour(47)},          // its nodes start shutting down
      {Hour(47), Hour(48)},         // and are gone
      {Hour(48), std::nullopt},     // the on-demand group changes no more
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.now.time_since_epoch().count());
    const auto settled = SettleAt(created, c.now, facts);
    EXPECT_EQ(settled.next_due, c.next_due);
    // Settling again at the same moment changes nothing.
    ASSERT_TRUE(settled.cluster);
    const auto again = SettleAt(*settled.cluster, c.now, facts);
    EXPECT_EQ(*again.cluster, *settled.cluster);
    EXPECT_EQ(again.next_due, c.next_due);
  }
}

TEST(DomainCluster, AnUpdateNeedsAClusterInService) {
  FakeFacts facts;
  facts.WithOnDemand(kG5, 4);
  const Cluster creating = Created({GroupOnDemand("a", kG5, 1)}, facts);
  const auto refused =
      domain::StartUpdate(creating, {GroupOnDemand("a", kG5, 2)}, {}, Hour(0), kDelay, facts, {});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, domain::ErrorCode::kConflictException);
  EXPECT_EQ(refused.error().message, std::string("Cluster ") + kDomainClusterArn +
                                         " is Creating; it can be updated only while it is "
                                         "InService.");

  const Cluster cluster = InService({GroupOnDemand("a", kG5, 1)}, facts);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));
  const auto updating = domain::StartUpdate(cluster, {GroupOnDemand("a", kG5, 2)}, {}, Hour(2),
                                            kDelay, facts, holdings);
  ASSERT_TRUE(updating);
  EXPECT_EQ(updating->status, ClusterStatus::kUpdating);
  holdings.Put(domain::HolderOf(*updating));
  const auto again = domain::StartUpdate(*updating, {GroupOnDemand("a", kG5, 3)}, {}, Hour(2),
                                         kDelay, facts, holdings);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, domain::ErrorCode::kConflictException);
  EXPECT_THAT(again.error().message, HasSubstr(" is Updating; "));
}

TEST(DomainCluster, ScalingUpIsHeldFromTheRequestAndAppliedWhenDue) {
  FakeFacts facts;
  facts.WithOnDemand(kG5, 3);
  const Cluster cluster = InService({GroupOnDemand("a", kG5, 2)}, facts);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));
  const auto updating = domain::StartUpdate(cluster, {GroupOnDemand("a", kG5, 3)}, {}, Hour(2),
                                            kDelay, facts, holdings);
  ASSERT_TRUE(updating) << updating.error().message;
  EXPECT_EQ(updating->status, ClusterStatus::kUpdating);
  EXPECT_EQ(updating->modified, Hour(2));
  EXPECT_EQ(updating->due, Hour(2) + kDelay);
  EXPECT_EQ(updating->groups[0].status, GroupStatus::kUpdating);
  EXPECT_EQ(updating->groups[0].spec.count, 3);
  EXPECT_EQ(updating->groups[0].nodes.size(), 2u);
  EXPECT_EQ(domain::HolderOf(*updating).holds, (std::vector<domain::Hold>{{kG5, "", 3}}))
      << "the third instance is held from the moment it was asked for";

  EXPECT_EQ(SettleAt(*updating, Hour(2) + kDelay - Millis{1}, facts).cluster->status,
            ClusterStatus::kUpdating);
  const auto settled = SettleAt(*updating, Hour(3), facts);
  const Cluster& scaled = *settled.cluster;
  EXPECT_EQ(scaled.status, ClusterStatus::kInService);
  EXPECT_EQ(scaled.modified, Hour(2) + kDelay);
  EXPECT_EQ(scaled.groups[0].status, GroupStatus::kInService);
  ASSERT_EQ(scaled.groups[0].nodes.size(), 3u);
  EXPECT_EQ(scaled.groups[0].nodes[2].id, domain::NodeId(kDomainClusterArn, 3));
  EXPECT_EQ(scaled.groups[0].nodes[2].launched, Hour(2) + kDelay);
  EXPECT_EQ(scaled.groups[0].nodes[0].launched, Hour(0) + kDelay);
}

TEST(DomainCluster, GrowthBeyondThePoolOrThePlanIsRefused) {
  FakeFacts facts;
  facts.WithOnDemand(kG5, 3).WithPlan(kPlan, 3, 0, 48);
  const Cluster cluster = InService({GroupOnDemand("cpu", kG5, 2), GroupOnPlan("gpu", 2)}, facts);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));
  holdings.Put({"arn:job", domain::ResourceKind::kTrainingJob, kOwner.region, {{kG5, "", 1}}, ""});
  holdings.Put(
      {"arn:endpoint", domain::ResourceKind::kEndpoint, kOwner.region, {{kP5, kPlan, 1}}, ""});

  const auto pool = domain::StartUpdate(cluster, {GroupOnDemand("cpu", kG5, 3)}, {}, Hour(2),
                                        kDelay, facts, holdings);
  ASSERT_FALSE(pool);
  EXPECT_EQ(pool.error().code, domain::ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(pool.error().message, std::string(domain::kNoOnDemandCapacity));

  const auto plan =
      domain::StartUpdate(cluster, {GroupOnPlan("gpu", 3)}, {}, Hour(2), kDelay, facts, holdings);
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, domain::ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(plan.error().message,
            "Requested instance count (3) exceeds available capacity (2) in training plan " +
                std::string(kPlan) + ".");

  // A new group on the same pool counts too.
  const auto added = domain::StartUpdate(cluster, {GroupOnDemand("more", kG5, 1)}, {}, Hour(2),
                                         kDelay, facts, holdings);
  ASSERT_FALSE(added);
  EXPECT_EQ(added.error().code, domain::ErrorCode::kResourceLimitExceeded);

  // Once the job lets go of its instance, the same growth fits.
  holdings.Remove("arn:job");
  EXPECT_TRUE(domain::StartUpdate(cluster, {GroupOnDemand("cpu", kG5, 3)}, {}, Hour(2), kDelay,
                                  facts, holdings));
}

TEST(DomainCluster, ScalingDownShutsDownTheNewestNodes) {
  FakeFacts facts;
  const Cluster cluster = InService({GroupOnDemand("a", kG5, 3)}, facts);
  const std::vector<domain::ClusterNode> nodes = cluster.groups[0].nodes;
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));
  const auto updating = domain::StartUpdate(cluster, {GroupOnDemand("a", kG5, 1)}, {}, Hour(2),
                                            kDelay, facts, holdings);
  ASSERT_TRUE(updating) << updating.error().message;
  const domain::InstanceGroup& group = updating->groups[0];
  EXPECT_THAT(StatusesOf(group),
              ::testing::ElementsAre(NodeStatus::kRunning, NodeStatus::kShuttingDown,
                                     NodeStatus::kShuttingDown));
  EXPECT_EQ(group.nodes[2].gone_at, Hour(2) + kDelay);
  EXPECT_EQ(group.live_nodes(), 1);
  EXPECT_EQ(group.spec.count, 1);
  EXPECT_EQ(domain::HolderOf(*updating).holds, (std::vector<domain::Hold>{{kG5, "", 3}}))
      << "shutting-down nodes hold until they are gone";

  const auto settled = SettleAt(*updating, Hour(3), facts);
  ASSERT_EQ(settled.cluster->groups[0].nodes.size(), 1u);
  EXPECT_EQ(settled.cluster->groups[0].nodes[0].id, nodes[0].id);
  EXPECT_EQ(settled.cluster->status, ClusterStatus::kInService);
  EXPECT_EQ(domain::HolderOf(*settled.cluster).holds, (std::vector<domain::Hold>{{kG5, "", 1}}));
}

TEST(DomainCluster, AGroupKeepsItsInstanceTypeAndPlan) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 0, 48).WithPlan(kOtherPlan, 2, 0, 48);
  const Cluster cluster = InService({GroupOnPlan("gpu", 1)}, facts);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));
  struct Case {
    GroupSpec spec;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"gpu", kG5, 1, kPlan},
       "The instance type of instance group gpu cannot be changed from ml.p5.48xlarge to "
       "ml.g5.12xlarge."},
      {GroupOnPlan("gpu", 1, kOtherPlan),
       "The training plan of instance group gpu cannot be changed."},
      {{"gpu", kP5, 1, ""}, "The training plan of instance group gpu cannot be changed."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.message);
    const auto refused =
        domain::StartUpdate(cluster, {c.spec}, {}, Hour(2), kDelay, facts, holdings);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, domain::ErrorCode::kValidationException);
    EXPECT_EQ(refused.error().message, c.message);
  }
}

TEST(DomainCluster, UpdatesAddAndDeleteGroups) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 0, 48).WithOnDemand(kG5, 4);
  const Cluster cluster =
      InService({GroupOnDemand("a", kG5, 1), GroupOnDemand("b", kG5, 2)}, facts);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));

  const auto updating = domain::StartUpdate(cluster, {GroupOnPlan("gpu", 2)}, {"b"}, Hour(2),
                                            kDelay, facts, holdings);
  ASSERT_TRUE(updating) << updating.error().message;
  ASSERT_EQ(updating->groups.size(), 3u);
  EXPECT_EQ(updating->groups[1].status, GroupStatus::kDeleting);
  EXPECT_THAT(StatusesOf(updating->groups[1]), ::testing::Each(NodeStatus::kShuttingDown));
  EXPECT_EQ(updating->groups[2].spec, GroupOnPlan("gpu", 2));
  EXPECT_EQ(updating->groups[2].status, GroupStatus::kCreating);
  EXPECT_EQ(domain::HolderOf(*updating).holds,
            (std::vector<domain::Hold>{{kG5, "", 1}, {kG5, "", 2}, {kP5, kPlan, 2}}));

  const auto settled = SettleAt(*updating, Hour(3), facts);
  const Cluster& updated = *settled.cluster;
  ASSERT_EQ(updated.groups.size(), 2u);
  EXPECT_EQ(updated.groups[0].spec.name, "a");
  EXPECT_EQ(updated.groups[1].spec.name, "gpu");
  EXPECT_EQ(updated.groups[1].status, GroupStatus::kInService);
  EXPECT_THAT(StatusesOf(updated.groups[1]),
              ::testing::ElementsAre(NodeStatus::kRunning, NodeStatus::kRunning));
  EXPECT_EQ(updated.groups[1].nodes[0].id, domain::NodeId(kDomainClusterArn, 4));
  EXPECT_EQ(domain::HolderOf(updated).holds,
            (std::vector<domain::Hold>{{kG5, "", 1}, {kP5, kPlan, 2}}));

  struct Case {
    std::vector<GroupSpec> groups;
    std::vector<std::string> to_delete;
    domain::ErrorCode code;
    std::string message;
  };
  const std::string arn = kDomainClusterArn;
  const std::vector<Case> refusals = {
      {{},
       {"a", "b"},
       domain::ErrorCode::kValidationException,
       "Cluster " + arn + " must keep at least one instance group."},
      {{},
       {"nope"},
       domain::ErrorCode::kValidationException,
       "Instance group nope does not exist in cluster " + arn + "."},
      {{GroupOnDemand("a", kG5, 2)},
       {"a"},
       domain::ErrorCode::kValidationException,
       "Instance group a cannot be both updated and deleted."},
      // A new group on a plan passes the plan's rules as in CreateCluster.
      {{GroupOnPlan("gpu", 3)},
       {},
       domain::ErrorCode::kValidationException,
       "Requested instance count (3) of instance group gpu exceeds reserved capacity (2) for "
       "training plan " +
           std::string(kPlan) + "."},
      {{{"gpu", kP5, 1, "arn:aws:sagemaker:us-west-2:111122223333:training-plan/none"}},
       {},
       domain::ErrorCode::kValidationException,
       "Training plan arn:aws:sagemaker:us-west-2:111122223333:training-plan/none does not exist "
       "in this account and region."},
  };
  for (const Case& c : refusals) {
    SCOPED_TRACE(c.message);
    const auto refused =
        domain::StartUpdate(cluster, c.groups, c.to_delete, Hour(2), kDelay, facts, holdings);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, c.code);
    EXPECT_EQ(refused.error().message, c.message);
  }
}

// Once a plan has ended its group has no nodes and cannot get any; scaling another group must not
// ask the ended plan for them again.
TEST(DomainCluster, AnUpdateAfterAPlanEndedAsksNothingOfThatPlan) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 1, 0, 48).WithOnDemand(kG5, 4);
  const Cluster cluster = InService({GroupOnPlan("gpu", 1), GroupOnDemand("cpu", kG5, 1)}, facts);
  const auto ended = SettleAt(cluster, Hour(49), facts);
  ASSERT_TRUE(ended.cluster->groups[0].nodes.empty());
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(*ended.cluster));
  const auto updating = domain::StartUpdate(*ended.cluster, {GroupOnDemand("cpu", kG5, 2)}, {},
                                            Hour(50), kDelay, facts, holdings);
  ASSERT_TRUE(updating) << updating.error().message;
  EXPECT_EQ(domain::HolderOf(*updating).holds, (std::vector<domain::Hold>{{kG5, "", 2}}));
  const auto settled = SettleAt(*updating, Hour(51), facts);
  EXPECT_EQ(settled.cluster->status, ClusterStatus::kInService);
  EXPECT_EQ(settled.cluster->groups[1].nodes.size(), 2u);
  EXPECT_TRUE(settled.cluster->groups[0].nodes.empty());
}

// In the plan's last hour its nodes are shutting down; an update of another group must neither ask
// the plan (all of whose instances the cluster holds) for replacements nor launch them.
TEST(DomainCluster, AnUpdateInThePlansLastHourDoesNotReplaceItsNodes) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 1, 0, 48).WithOnDemand(kG5, 4);
  const Cluster cluster = InService({GroupOnPlan("gpu", 1), GroupOnDemand("cpu", kG5, 1)}, facts);
  const auto winding_down = SettleAt(cluster, Hour(47), facts);
  ASSERT_EQ(winding_down.cluster->groups[0].live_nodes(), 0);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(*winding_down.cluster));
  const auto updating = domain::StartUpdate(*winding_down.cluster, {GroupOnDemand("cpu", kG5, 2)},
                                            {}, Hour(47), kDelay, facts, holdings);
  ASSERT_TRUE(updating) << updating.error().message;
  EXPECT_EQ(domain::HolderOf(*updating).holds,
            (std::vector<domain::Hold>{{kP5, kPlan, 1}, {kG5, "", 2}}))
      << "the plan group is not part of the update";
  const auto settled = SettleAt(*updating, Hour(47) + kDelay, facts);
  EXPECT_EQ(settled.cluster->groups[0].nodes.size(), 1u)
      << "no replacement is launched on a plan that is ending";
  EXPECT_EQ(settled.cluster->nodes_launched, 3);
}

TEST(DomainCluster, DeletionShutsEveryNodeDownAndIsGoneAfterTheDelay) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 0, 48);
  const Cluster cluster = InService({GroupOnPlan("gpu", 2), GroupOnDemand("cpu", kG5, 1)}, facts);
  const auto deleting = domain::StartDelete(cluster, Hour(2), kDelay);
  ASSERT_TRUE(deleting);
  EXPECT_EQ(deleting->status, ClusterStatus::kDeleting);
  EXPECT_EQ(deleting->due, Hour(2) + kDelay);
  for (const auto& group : deleting->groups) {
    EXPECT_EQ(group.status, GroupStatus::kDeleting);
    EXPECT_THAT(StatusesOf(group), ::testing::Each(NodeStatus::kShuttingDown));
  }
  EXPECT_EQ(domain::HolderOf(*deleting).holds,
            (std::vector<domain::Hold>{{kP5, kPlan, 2}, {kG5, "", 1}}));

  const auto still = SettleAt(*deleting, Hour(2) + kDelay - Millis{1}, facts);
  ASSERT_TRUE(still.cluster);
  EXPECT_EQ(still.cluster->status, ClusterStatus::kDeleting);
  EXPECT_EQ(still.next_due, Hour(2) + kDelay);
  const auto gone = SettleAt(*deleting, Hour(2) + kDelay, facts);
  EXPECT_FALSE(gone.cluster);
  EXPECT_FALSE(gone.next_due);

  const auto again = domain::StartDelete(*deleting, Hour(2), kDelay);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, domain::ErrorCode::kConflictException);
  EXPECT_EQ(again.error().message,
            std::string("Cluster ") + kDomainClusterArn + " is already being deleted.");

  // A failed cluster can be deleted too.
  FakeFacts short_of;
  short_of.WithOnDemand(kG5, 0);
  const auto failed =
      SettleAt(Created({GroupOnDemand("cpu", kG5, 1)}, short_of), Hour(1), short_of);
  ASSERT_EQ(failed.cluster->status, ClusterStatus::kFailed);
  const auto deleted = domain::StartDelete(*failed.cluster, Hour(2), kDelay);
  ASSERT_TRUE(deleted);
  EXPECT_FALSE(SettleAt(*deleted, Hour(3), short_of).cluster);
}

TEST(DomainCluster, DeleteNodesShutsDownTheNodesFoundAndLowersTheTarget) {
  FakeFacts facts;
  const Cluster cluster =
      InService({GroupOnDemand("a", kG5, 2), GroupOnDemand("b", kG5, 1)}, facts);
  const std::string first = cluster.groups[0].nodes[0].id;
  const std::string missing = "i-0123456789abcdef0";
  domain::NodeDeletion outcome;
  const auto deleted =
      domain::DeleteNodes(cluster, {first, missing, first}, Hour(2), kDelay, outcome);
  ASSERT_TRUE(deleted);
  EXPECT_EQ(outcome.deleted, std::vector<std::string>{first});
  ASSERT_EQ(outcome.failed.size(), 2u);
  EXPECT_EQ(outcome.failed[0].node_id, missing);
  EXPECT_EQ(outcome.failed[0].code, "NodeIdNotFound");
  EXPECT_EQ(outcome.failed[0].message, "Node " + missing + " was not found in cluster " +
                                           std::string(kDomainClusterArn) + ".");
  EXPECT_EQ(outcome.failed[1].node_id, first);
  EXPECT_EQ(outcome.failed[1].code, "InvalidNodeStatus");
  EXPECT_EQ(outcome.failed[1].message, "Node " + first + " is already being deleted.");

  EXPECT_EQ(deleted->status, ClusterStatus::kInService);
  EXPECT_EQ(deleted->modified, Hour(2));
  EXPECT_EQ(deleted->groups[0].spec.count, 1);
  EXPECT_EQ(deleted->groups[1].spec.count, 1);
  EXPECT_EQ(deleted->groups[0].nodes[0].status, NodeStatus::kShuttingDown);
  EXPECT_EQ(deleted->groups[0].nodes[0].gone_at, Hour(2) + kDelay);
  EXPECT_EQ(deleted->groups[0].live_nodes(), 1);

  // Once gone, the node is not replaced: the target dropped with it.
  const auto settled = SettleAt(*deleted, Hour(3), facts);
  ASSERT_EQ(settled.cluster->groups[0].nodes.size(), 1u);
  EXPECT_EQ(settled.cluster->groups[0].nodes[0].id, cluster.groups[0].nodes[1].id);
  EXPECT_EQ(domain::HolderOf(*settled.cluster).holds,
            (std::vector<domain::Hold>{{kG5, "", 1}, {kG5, "", 1}}));

  // Nothing found: nothing changes.
  domain::NodeDeletion none;
  const auto unchanged = domain::DeleteNodes(cluster, {missing}, Hour(2), kDelay, none);
  ASSERT_TRUE(unchanged);
  EXPECT_EQ(*unchanged, cluster);
  EXPECT_TRUE(none.deleted.empty());

  // A cluster still being created has no nodes to delete.
  domain::NodeDeletion creating_outcome;
  const auto creating = domain::DeleteNodes(Created({GroupOnDemand("a", kG5, 1)}, facts), {first},
                                            Hour(0), kDelay, creating_outcome);
  ASSERT_FALSE(creating);
  EXPECT_EQ(creating.error().code, domain::ErrorCode::kValidationException);
  EXPECT_EQ(creating.error().message,
            std::string("Cluster ") + kDomainClusterArn +
                " is Creating; nodes can be deleted only while it is InService or Updating.");
}

TEST(DomainCluster, NodeIdsAreSeventeenHexDigitsDerivedFromTheClusterAndTheNumber) {
  for (int number = 1; number <= 20; ++number) {
    EXPECT_THAT(domain::NodeId(kDomainClusterArn, number),
                ::testing::MatchesRegex("i-[0-9a-f]{17}"));
  }
  EXPECT_EQ(domain::NodeId(kDomainClusterArn, 1), domain::NodeId(kDomainClusterArn, 1));
  EXPECT_NE(domain::NodeId(kDomainClusterArn, 1), domain::NodeId(kDomainClusterArn, 2));
  EXPECT_NE(domain::NodeId(kDomainClusterArn, 1),
            domain::NodeId("arn:aws:sagemaker:us-west-2:111122223333:cluster/zzzzzz999999", 1));
}

TEST(DomainCluster, PlansOfListsEveryPlanOnceInGroupOrder) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 4, 0, 48).WithPlan(kOtherPlan, 4, 0, 48);
  const Cluster cluster = Created({GroupOnPlan("a", 1, kOtherPlan), GroupOnDemand("b", kG5, 1),
                                   GroupOnPlan("c", 1, kPlan), GroupOnPlan("d", 1, kOtherPlan)},
                                  facts);
  EXPECT_EQ(domain::PlansOf(cluster), (std::vector<std::string>{kOtherPlan, kPlan}));
  EXPECT_TRUE(domain::PlansOf(Created({GroupOnDemand("b", kG5, 1)}, facts)).empty());
}

TEST(DomainCluster, StatusNamesAreTheModelsEnumValuesAndParseBack) {
  for (ClusterStatus status :
       {ClusterStatus::kCreating, ClusterStatus::kInService, ClusterStatus::kUpdating,
        ClusterStatus::kDeleting, ClusterStatus::kFailed}) {
    EXPECT_EQ(domain::ParseClusterStatus(domain::ToString(status)), status);
  }
  for (NodeStatus status :
       {NodeStatus::kPending, NodeStatus::kRunning, NodeStatus::kShuttingDown}) {
    EXPECT_EQ(domain::ParseNodeStatus(domain::ToString(status)), status);
  }
  EXPECT_EQ(domain::ToString(NodeStatus::kShuttingDown), "ShuttingDown");
  EXPECT_EQ(domain::ToString(ClusterStatus::kInService), "InService");
  EXPECT_FALSE(domain::ParseClusterStatus("RollingBack"));
}

}  // namespace
}  // namespace smemu

namespace smemu {
namespace {

constexpr const char* kLastHourArn =
    "arn:aws:sagemaker:us-west-2:111122223333:cluster/lasthour0000";
const GroupSpec kTwoOnThePlan{"g", "ml.p5.48xlarge", 2, kPlan};

// A cluster of two nodes on a plan open in [0, 10) hours, settled at `at`.
Cluster TwoNodesOnThePlanAt(const FakeFacts& facts, TimePoint at) {
  auto cluster =
      domain::NewCluster(kLastHourArn, kOwner, {kTwoOnThePlan}, Hour(0), Millis{0}, facts, {});
  EXPECT_TRUE(cluster) << cluster.error().message;
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(*cluster));
  return *domain::Settle(*cluster, at, facts, holdings).cluster;
}

TEST(DomainClusterLastHour, AGroupOnAPlanInItsLastHourShrinksButDoesNotGrow) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 4, 0, 10);
  const TimePoint last_hour = Hour(9) + Millis{std::chrono::minutes(30)};
  const Cluster cluster = TwoNodesOnThePlanAt(facts, last_hour);
  ASSERT_EQ(cluster.groups[0].nodes.size(), 2u);
  EXPECT_EQ(cluster.groups[0].nodes[0].status, NodeStatus::kShuttingDown);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(cluster));

  GroupSpec one = kTwoOnThePlan;
  one.count = 1;
  const auto shrunk =
      domain::StartUpdate(cluster, {one}, {}, last_hour, Millis{0}, facts, holdings);
  ASSERT_TRUE(shrunk) << shrunk.error().message;
  // The plan's instances are not asked for again: the group holds its two leaving nodes only.
  EXPECT_EQ(domain::HolderOf(*shrunk).holds,
            (std::vector<domain::Hold>{{"ml.p5.48xlarge", kPlan, 2}}));

  GroupSpec three = kTwoOnThePlan;
  three.count = 3;
  const auto grown =
      domain::StartUpdate(cluster, {three}, {}, last_hour, Millis{0}, facts, holdings);
  ASSERT_FALSE(grown);
  EXPECT_EQ(grown.error().code, domain::ErrorCode::kValidationException);
  EXPECT_EQ(grown.error().message,
            std::string("Training plan ") + kPlan +
                " ends at 1970-01-01T10:00:00Z: HyperPod takes its instances back from one hour "
                "before, so instance group g cannot take more of them.");

  // A new cluster on the plan in its last hour is refused the same way.
  const auto late =
      domain::NewCluster(kLastHourArn, kOwner, {kTwoOnThePlan}, last_hour, Millis{0}, facts, {});
  ASSERT_FALSE(late);
  EXPECT_EQ(late.error().code, domain::ErrorCode::kValidationException);
}

TEST(DomainClusterLastHour, APlanExtendedInItsLastHourKeepsItsNodes) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 4, 0, 10);
  const Cluster winding = TwoNodesOnThePlanAt(facts, Hour(9) + Millis{std::chrono::minutes(30)});
  ASSERT_EQ(winding.groups[0].nodes[0].status, NodeStatus::kShuttingDown);

  facts.WithPlan(kPlan, 4, 0, 20);  // extended by ten hours
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(winding));
  const auto settled = domain::Settle(winding, Hour(11), facts, holdings);
  ASSERT_TRUE(settled.cluster);
  ASSERT_EQ(settled.cluster->groups[0].nodes.size(), 2u);
  for (const domain::ClusterNode& node : settled.cluster->groups[0].nodes) {
    EXPECT_EQ(node.status, NodeStatus::kRunning);
    EXPECT_FALSE(node.gone_at);
  }
  EXPECT_EQ(settled.next_due, Hour(19)) << "the new last hour";
}

}  // namespace
}  // namespace smemu
