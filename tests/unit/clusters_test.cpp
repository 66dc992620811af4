// HyperPod clusters through the router: the eight operations and their refusals, clusters on
// training plans and on demand, nodes following their plan on the clock, and clusters competing
// with endpoints and jobs for the same instances.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
using ::testing::HasSubstr;

// us-west-2: one on-demand ml.p5.48xlarge (and 2 + 1 reservable), four on-demand ml.g5.12xlarge.
// Types not listed (ml.m5.xlarge) are not limited.
constexpr const char* kClusterCapacity = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 2, "on_demand": 1},
                   "ml.g5.12xlarge": {"reservable": 0, "on_demand": 4}},
    "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0},
             "ml.g5.12xlarge": {"on_demand_hourly": 7.09, "plan_hourly": 5.0}}})";

constexpr const char* kHyperPodRole = "arn:aws:iam::123456789012:role/hyperpod";
constexpr const char* kMissingNode = "i-00000000000000000";

class ClustersTest : public EmulatorFixture {
 protected:
  ClustersTest() { Reopen(Millis{0}); }

  void Reopen(Millis delay) {
    router_.reset();
    emulator_.reset();
    capacity_ = kClusterCapacity;
    hosting_.provisioning_delay = delay;
    Open();
  }

  static json Group(const std::string& name, const std::string& type, int count,
                    const std::string& plan = "") {
    json group = {{"InstanceGroupName", name},
                  {"InstanceType", type},
                  {"InstanceCount", count},
                  {"ExecutionRole", kHyperPodRole},
                  {"LifeCycleConfig",
                   {{"SourceS3Uri", "s3://bucket/lifecycle"}, {"OnCreate", "on_create.sh"}}}};
    if (!plan.empty()) group["TrainingPlanArn"] = plan;
    return group;
  }

  // Groups as a vector: `{Group(...)}` is one group under every compiler (a braced json of one json
  // is that json under clang, and an array of it under GCC).
  json Create(const std::string& name, std::vector<json> groups, int status = 200,
              json extra = {}) {
    json input = {{"ClusterName", name}, {"InstanceGroups", std::move(groups)}};
    if (extra.is_object()) input.update(extra);
    return Call("CreateCluster", input, status);
  }

  std::string CreateArn(const std::string& name, std::vector<json> groups) {
    return Create(name, std::move(groups))["ClusterArn"];
  }

  json Describe(const std::string& name_or_arn, int status = 200) {
    return Call("DescribeCluster", {{"ClusterName", name_or_arn}}, status);
  }

  json Update(const std::string& name, std::vector<json> groups,
              std::vector<std::string> to_delete = {}, int status = 200) {
    json input = {{"ClusterName", name}};
    if (!groups.empty()) input["InstanceGroups"] = std::move(groups);
    if (!to_delete.empty()) input["InstanceGroupsToDelete"] = to_delete;
    return Call("UpdateCluster", input, status);
  }

  json Nodes(const std::string& name, json extra = json::object()) {
    json input = {{"ClusterName", name}};
    input.update(extra);
    return Call("ListClusterNodes", input)["ClusterNodeSummaries"];
  }

  std::vector<std::string> NodeIds(const std::string& name, json extra = json::object()) {
    std::vector<std::string> ids;
    for (const json& node : Nodes(name, std::move(extra))) ids.push_back(node["InstanceId"]);
    return ids;
  }

  // A plan of `count` p5 bought for HyperPod clusters (or `targets`), starting at `start_after`.
  std::string BuyPlan(const std::string& name, int count, long long start_after = kPlanStartSeconds,
                      int days = 7, json targets = {"hyperpod-cluster"}) {
    const json offering = Call("SearchTrainingPlanOfferings",
                               {{"InstanceType", kP5},
                                {"InstanceCount", count},
                                {"DurationHours", days * 24},
                                {"StartTimeAfter", start_after},
                                {"TargetResources", targets}})["TrainingPlanOfferings"][0];
    return Call("CreateTrainingPlan", {{"TrainingPlanName", name},
                                       {"TrainingPlanOfferingId",
                                        offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  }

  json Capacity() {
    return Admin("GET", "/_emulator/capacity?region=us-west-2", "", {{"Authorization", kAuth}});
  }

  // The in_use lines of kind "cluster".
  json ClusterHoldings() {
    json lines = json::array();
    const json view = Capacity();
    for (const json& line : view["in_use"]) {
      if (line["kind"] == "cluster") lines.push_back(line);
    }
    return lines;
  }

  static json TrainingJob(const std::string& name, const std::string& type, int count) {
    return {{"TrainingJobName", name},
            {"RoleArn", kHyperPodRole},
            {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
            {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
            {"ResourceConfig",
             {{"InstanceType", type}, {"InstanceCount", count}, {"VolumeSizeInGB", 50}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", "1000"}}}};
  }

  void OnDemandEndpoint(const std::string& name, const std::string& type) {
    Call("CreateModel", {{"ModelName", name}});
    Call("CreateEndpointConfig", {{"EndpointConfigName", name},
                                  {"ProductionVariants",
                                   {{{"VariantName", "AllTraffic"},
                                     {"ModelName", name},
                                     {"InstanceType", type},
                                     {"InitialInstanceCount", 1}}}}});
    Call("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
  }
};

// gmock's POSIX regular expressions: std::regex trips a false maybe-uninitialized warning in
// g++ 12's sanitizer builds.
const char* const kClusterArn = "arn:aws:sagemaker:us-west-2:123456789012:cluster/[a-z0-9]{12}";
const char* const kNodeId = "i-[0-9a-f]{17}";

// ------------------------------------------------------------------------------ Create/Describe

TEST_F(ClustersTest, AnOnDemandClusterIsInServiceAtOnceAndDescribesBackWhatWasGiven) {
  json workers = Group("workers", kG5, 2);
  workers["ThreadsPerCore"] = 1;
  const json created = Create("My-Cluster", {workers}, 200,
                              {{"NodeRecovery", "None"}, {"ClusterRole", kHyperPodRole}});
  const std::string arn = created["ClusterArn"];
  EXPECT_THAT(arn, ::testing::MatchesRegex(kClusterArn));

  const json cluster = Describe("My-Cluster");
  EXPECT_EQ(cluster["ClusterArn"], arn);
  EXPECT_EQ(cluster["ClusterName"], "My-Cluster");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  EXPECT_EQ(cluster["CreationTime"], kStartSeconds);
  EXPECT_EQ(cluster["NodeRecovery"], "None");
  EXPECT_EQ(cluster["ClusterRole"], kHyperPodRole);
  EXPECT_FALSE(cluster.contains("FailureMessage"));
  ASSERT_EQ(cluster["InstanceGroups"].size(), 1u);
  const json& group = cluster["InstanceGroups"][0];
  EXPECT_EQ(group["InstanceGroupName"], "workers");
  EXPECT_EQ(group["InstanceType"], kG5);
  EXPECT_EQ(group["CurrentCount"], 2);
  EXPECT_EQ(group["TargetCount"], 2);
  EXPECT_EQ(group["Status"], "InService");
  EXPECT_EQ(group["ExecutionRole"], kHyperPodRole);
  EXPECT_EQ(group["ThreadsPerCore"], 1);
  EXPECT_EQ(group["LifeCycleConfig"]["OnCreate"], "on_create.sh");
  EXPECT_FALSE(group.contains("TrainingPlanArn"));
  EXPECT_FALSE(group.contains("TrainingPlanStatus"));

  EXPECT_EQ(Describe(arn), cluster) << "by ARN as by name";
  // NodeRecovery defaults to Automatic.
  Create("defaults", {Group("g", kM5, 1)});
  EXPECT_EQ(Describe("defaults")["NodeRecovery"], "Automatic");
}

TEST_F(ClustersTest, NamesAreUniqueAndEveryOperationNamesAMissingClusterAlike) {
  const std::string arn = CreateArn("taken", {Group("g", kM5, 1)});
  const json duplicate = Create("taken", {Group("g", kM5, 1)}, 400);
  EXPECT_EQ(duplicate["__type"], "ResourceInUse");
  EXPECT_EQ(duplicate["message"], "Cluster taken already exists.");

  const std::string missing_arn = "arn:aws:sagemaker:us-west-2:123456789012:cluster/000000000000";
  for (const std::string& name : {std::string("nope"), missing_arn}) {
    SCOPED_TRACE(name);
    const std::vector<std::pair<std::string, json>> calls = {
        {"DescribeCluster", {{"ClusterName", name}}},
        {"UpdateCluster",
         {{"ClusterName", name}, {"InstanceGroups", json::array({Group("g", kM5, 2)})}}},
        {"DeleteCluster", {{"ClusterName", name}}},
        {"ListClusterNodes", {{"ClusterName", name}}},
        {"DescribeClusterNode", {{"ClusterName", name}, {"NodeId", kMissingNode}}},
        {"BatchDeleteClusterNodes", {{"ClusterName", name}, {"NodeIds", {kMissingNode}}}},
    };
    for (const auto& [operation, input] : calls) {
      SCOPED_TRACE(operation);
      const json error = Call(operation, input, 400);
      EXPECT_EQ(error["__type"], "ResourceNotFound");
      EXPECT_EQ(error["message"], "Cluster " + name + " not found.");
    }
  }
  // Another account's cluster is not found by its ARN.
  const std::string other_account =
      "AWS4-HMAC-SHA256 Credential=210987654321/20270125/us-west-2/sagemaker/aws4_request, "
      "SignedHeaders=host, Signature=0";
  const auto response = router_->Handle(
      {"POST",
       "/",
       {{"X-Amz-Target", "SageMaker.DescribeCluster"}, {"Authorization", other_account}},
       json{{"ClusterName", arn}}.dump()});
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(json::parse(response.body)["__type"], "ResourceNotFound");
}

TEST_F(ClustersTest, CreateRefusesRequestsItCannotHonour) {
  struct Case {
    std::string name;
    json input;
    std::string code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"NoGroups",
       {{"ClusterName", "c"}},
       "ValidationException",
       "A cluster needs at least one instance group."},
      {"RepeatedGroupName",
       {{"ClusterName", "c"}, {"InstanceGroups", {Group("g", kM5, 1), Group("g", kM5, 2)}}},
       "ValidationException",
       "Instance group name g appears more than once in InstanceGroups."},
      {"NoInstanceType",
       {{"ClusterName", "c"},
        {"InstanceGroups",
         {{{"InstanceGroupName", "g"}, {"InstanceCount", 1}, {"ExecutionRole", kHyperPodRole}}}}},
       "ValidationException",
       "Instance group g must specify InstanceType (InstanceRequirements is not supported by this "
       "emulator)."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const json error = Call("CreateCluster", c.input, 400);
    EXPECT_EQ(error["__type"], c.code);
    EXPECT_EQ(error["message"], c.message);
  }
  // The model requires ExecutionRole; the validator refuses a group without it.
  json no_role = Group("g", kM5, 1);
  no_role.erase("ExecutionRole");
  EXPECT_EQ(Create("c", {no_role}, 400)["__type"], "ValidationException");
  EXPECT_EQ(Call("ListClusters", json::object())["ClusterSummaries"], json::array())
      << "nothing was created by a refused request";
}

// ------------------------------------------------------------------------------ plans

TEST_F(ClustersTest, AClusterOnAPlanUsesItsInstancesAndIsCheckedAgainstIt) {
  const std::string plan = BuyPlan("hyperpod", 2);
  Advance(kPlanDayOffset);  // 11:30 UTC: the plan starts
  Create("on-plan", {Group("gpu", kP5, 2, plan)});
  const json cluster = Describe("on-plan");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  const json& group = cluster["InstanceGroups"][0];
  EXPECT_EQ(group["TrainingPlanArn"], plan);
  EXPECT_EQ(group["TrainingPlanStatus"], "Active");
  EXPECT_EQ(group["CurrentCount"], 2);
  const json nodes = Nodes("on-plan");
  ASSERT_EQ(nodes.size(), 2u);
  for (const json& node : nodes) {
    EXPECT_EQ(node["InstanceStatus"]["Status"], "Running");
    EXPECT_FALSE(node["InstanceStatus"].contains("Message"));
    EXPECT_EQ(node["LaunchTime"], kPlanStartSeconds);
  }
  const json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "hyperpod"}});
  EXPECT_EQ(described["InUseInstanceCount"], 2);
  EXPECT_EQ(described["AvailableInstanceCount"], 0);

  const std::string endpoint_plan = BuyPlan("for-endpoints", 1, kPlanStartSeconds, 7, {"endpoint"});
  struct Case {
    std::string name;
    json group;
    std::string code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"PlanFull", Group("gpu", kP5, 1, plan), "ResourceLimitExceeded",
       "Requested instance count (1) of instance group gpu exceeds available capacity (0) in "
       "training plan " +
           plan + "."},
      {"MoreThanReserved", Group("gpu", kP5, 3, plan), "ValidationException",
       "Requested instance count (3) of instance group gpu exceeds reserved capacity (2) for "
       "training plan " +
           plan + "."},
      {"NotForClusters", Group("gpu", kP5, 1, endpoint_plan), "ValidationException",
       "Training plan " + endpoint_plan +
           " was not bought for HyperPod clusters (its TargetResources do not include "
           "hyperpod-cluster)."},
      {"OtherType", Group("gpu", kG5, 1, plan), "ValidationException",
       "Instance type ml.g5.12xlarge of instance group gpu does not match the instance type of "
       "training plan " +
           plan + " (ml.p5.48xlarge)."},
      {"Unknown",
       Group("gpu", kP5, 1, "arn:aws:sagemaker:us-west-2:123456789012:training-plan/nope"),
       "ValidationException",
       "Training plan arn:aws:sagemaker:us-west-2:123456789012:training-plan/nope does not exist "
       "in this account and region."},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const json error = Create("refused", {c.group}, 400);
    EXPECT_EQ(error["__type"], c.code);
    EXPECT_EQ(error["message"], c.message);
  }
  Describe("refused", 400);

  // Deleting the cluster gives the plan's instances back.
  Call("DeleteCluster", {{"ClusterName", "on-plan"}});
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "hyperpod"}})["InUseInstanceCount"],
            0);
  Create("again", {Group("gpu", kP5, 2, plan)});
  EXPECT_EQ(Describe("again")["ClusterStatus"], "InService");
}

TEST_F(ClustersTest, NodesFollowThePlanThroughItsWindow) {
  const std::string plan = BuyPlan("later", 1, kStartSeconds + 2 * kDay, 7);
  const json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "later"}});
  const long long start = described["StartTime"];
  const long long end = described["EndTime"];
  ASSERT_EQ(start, kPlanStartSeconds + 2 * kDay);
  ASSERT_EQ(end, start + 7 * kDay);

  Create("waiting", {Group("gpu", kP5, 1, plan)});
  json cluster = Describe("waiting");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  EXPECT_EQ(cluster["InstanceGroups"][0]["Status"], "InService");
  EXPECT_EQ(cluster["InstanceGroups"][0]["TrainingPlanStatus"], "Scheduled");
  EXPECT_EQ(cluster["InstanceGroups"][0]["CurrentCount"], 1);
  json node = Nodes("waiting")[0];
  EXPECT_EQ(node["InstanceStatus"],
            json({{"Status", "Pending"},
                  {"Message", "Waiting for training plan " + plan + " to become Active."}}));
  const std::string id = node["InstanceId"];

  Advance(start - kStartSeconds - 1);
  EXPECT_EQ(Nodes("waiting")[0]["InstanceStatus"]["Status"], "Pending");
  Advance(1);
  node = Nodes("waiting")[0];
  EXPECT_EQ(node["InstanceId"], id);
  EXPECT_EQ(node["InstanceStatus"], json({{"Status", "Running"}}));
  EXPECT_EQ(node["LaunchTime"], start);
  EXPECT_EQ(Describe("waiting")["InstanceGroups"][0]["TrainingPlanStatus"], "Active");

  Advance(7 * kDay - 3600 - 1);  // one second before the last hour
  EXPECT_EQ(Nodes("waiting")[0]["InstanceStatus"]["Status"], "Running");
  Advance(1);
  EXPECT_EQ(Nodes("waiting")[0]["InstanceStatus"]["Status"], "ShuttingDown");
  EXPECT_EQ(Describe("waiting")["InstanceGroups"][0]["CurrentCount"], 0);
  EXPECT_EQ(ClusterHoldings().size(), 1u) << "a node shutting down still holds its instance";

  Advance(3600);
  EXPECT_EQ(Nodes("waiting"), json::array());
  cluster = Describe("waiting");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  EXPECT_EQ(cluster["InstanceGroups"][0]["TrainingPlanStatus"], "Expired");
  EXPECT_EQ(cluster["InstanceGroups"][0]["CurrentCount"], 0);
  EXPECT_EQ(cluster["InstanceGroups"][0]["TargetCount"], 1);
  EXPECT_EQ(ClusterHoldings(), json::array());
}

// After its plan has ended a group has no nodes; the cluster's other groups still scale.
TEST_F(ClustersTest, AfterItsPlanEndsAClusterStillScalesItsOtherGroups) {
  const std::string plan = BuyPlan("day", 1, kPlanStartSeconds, 1);
  Create("mixed", {Group("gpu", kP5, 1, plan), Group("cpu", kG5, 1)});
  Advance(kPlanDayOffset + kDay);
  ASSERT_EQ(Nodes("mixed", {{"InstanceGroupNameContains", "gpu"}}), json::array());
  Update("mixed", {Group("cpu", kG5, 2)});
  EXPECT_EQ(Describe("mixed")["InstanceGroups"][1]["CurrentCount"], 2);
}

// ------------------------------------------------------------------------------ ListClusters

TEST_F(ClustersTest, ListClustersSortsPagesAndFiltersByPlan) {
  const std::string plan = BuyPlan("hp", 1);
  Create("b-cluster", {Group("g", kM5, 1)});
  Advance(10);
  Create("a-cluster", {Group("gpu", kP5, 1, plan)});
  Advance(10);
  Create("c-cluster", {Group("g", kM5, 1)});
  auto names = [](const json& listed) {
    std::vector<std::string> out;
    for (const json& summary : listed["ClusterSummaries"]) out.push_back(summary["ClusterName"]);
    return out;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(Call("ListClusters", json::object())),
            (Names{"b-cluster", "a-cluster", "c-cluster"}));
  EXPECT_EQ(names(Call("ListClusters", {{"SortBy", "NAME"}})),
            (Names{"a-cluster", "b-cluster", "c-cluster"}));
  EXPECT_EQ(names(Call("ListClusters", {{"SortBy", "CREATION_TIME"}, {"SortOrder", "Descending"}})),
            (Names{"c-cluster", "a-cluster", "b-cluster"}));
  EXPECT_EQ(names(Call("ListClusters", {{"NameContains", "a-"}})), (Names{"a-cluster"}));
  EXPECT_EQ(names(Call("ListClusters", {{"CreationTimeAfter", kStartSeconds + 5}})),
            (Names{"a-cluster", "c-cluster"}));

  const json first = Call("ListClusters", json::object())["ClusterSummaries"][1];
  EXPECT_EQ(first["ClusterStatus"], "InService");
  EXPECT_EQ(first["CreationTime"], kStartSeconds + 10);
  EXPECT_EQ(first["TrainingPlanArns"], json({plan}));
  EXPECT_THAT(first["ClusterArn"].get<std::string>(), ::testing::MatchesRegex(kClusterArn));
  EXPECT_FALSE(
      Call("ListClusters", json::object())["ClusterSummaries"][0].contains("TrainingPlanArns"));

  // Through every page.
  Names paged;
  json request = {{"MaxResults", 1}, {"SortBy", "NAME"}};
  for (int pages = 1;; ++pages) {
    ASSERT_LE(pages, 3);
    const json page = Call("ListClusters", request);
    ASSERT_EQ(page["ClusterSummaries"].size(), 1u);
    paged.push_back(page["ClusterSummaries"][0]["ClusterName"]);
    if (!page.contains("NextToken")) break;
    request["NextToken"] = page["NextToken"];
  }
  EXPECT_EQ(paged, (Names{"a-cluster", "b-cluster", "c-cluster"}));

  EXPECT_EQ(names(Call("ListClusters", {{"TrainingPlanArn", plan}})), (Names{"a-cluster"}));
  // With MaxResults the filter applies to the page evaluated, as the model documents: the first
  // cluster by creation time is not on the plan, so the first page is empty but goes on.
  const json filtered_page = Call("ListClusters", {{"TrainingPlanArn", plan}, {"MaxResults", 1}});
  EXPECT_EQ(filtered_page["ClusterSummaries"], json::array());
  ASSERT_TRUE(filtered_page.contains("NextToken"));
  EXPECT_EQ(names(Call("ListClusters", {{"TrainingPlanArn", plan},
                                        {"MaxResults", 1},
                                        {"NextToken", filtered_page["NextToken"]}})),
            (Names{"a-cluster"}));
}

// ------------------------------------------------------------------------------ nodes

TEST_F(ClustersTest, ListClusterNodesSortsPagesAndFilters) {
  Create("nodes", {Group("workers", kG5, 3), Group("controller", kM5, 1)});
  Advance(100);
  Update("nodes", {Group("workers", kG5, 4)});
  const json all = Nodes("nodes");
  ASSERT_EQ(all.size(), 5u);
  std::vector<std::string> ids;
  for (const json& node : all) {
    ids.push_back(node["InstanceId"]);
    EXPECT_THAT(ids.back(), ::testing::MatchesRegex(kNodeId));
    EXPECT_EQ(node["InstanceStatus"]["Status"], "Running");
  }
  // By launch time (ties by id); the node added by the update comes last.
  EXPECT_EQ(all[4]["LaunchTime"], kStartSeconds + 100);
  EXPECT_EQ(all[4]["InstanceGroupName"], "workers");
  EXPECT_EQ(all[4]["InstanceType"], kG5);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(all[i]["LaunchTime"], kStartSeconds);
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.begin() + 4));
  std::vector<std::string> reversed(ids.rbegin(), ids.rend());
  EXPECT_EQ(NodeIds("nodes", {{"SortOrder", "Descending"}}), reversed);

  std::vector<std::string> by_name = ids;
  std::sort(by_name.begin(), by_name.end());
  EXPECT_EQ(NodeIds("nodes", {{"SortBy", "NAME"}}), by_name);

  // Pages of two through all five.
  std::vector<std::string> paged;
  json request = {{"ClusterName", "nodes"}, {"MaxResults", 2}, {"SortBy", "NAME"}};
  for (int pages = 1;; ++pages) {
    ASSERT_LE(pages, 3);
    const json page = Call("ListClusterNodes", request);
    EXPECT_EQ(page["ClusterNodeSummaries"].size(), pages < 3 ? 2u : 1u);
    for (const json& node : page["ClusterNodeSummaries"]) paged.push_back(node["InstanceId"]);
    if (!page.contains("NextToken")) break;
    request["NextToken"] = page["NextToken"];
  }
  EXPECT_EQ(paged, by_name);

  EXPECT_EQ(NodeIds("nodes", {{"CreationTimeAfter", kStartSeconds}}),
            std::vector<std::string>{ids[4]});
  EXPECT_EQ(NodeIds("nodes", {{"CreationTimeBefore", kStartSeconds + 100}}).size(), 4u);
  const json controllers = Nodes("nodes", {{"InstanceGroupNameContains", "control"}});
  ASSERT_EQ(controllers.size(), 1u);
  EXPECT_EQ(controllers[0]["InstanceGroupName"], "controller");
  EXPECT_EQ(controllers[0]["InstanceType"], kM5);
  EXPECT_EQ(Nodes("nodes", {{"InstanceGroupNameContains", "nobody"}}), json::array());
}

// ListClusterNodes writes its page after the emulator's lock is released, from the cluster's
// shared decoded record: an answer held back shows the nodes as they were listed, whatever the
// cluster became since (nodes deleted, the cluster deleted, the clock moved).
TEST_F(ClustersTest, AHeldBackNodeListingShowsTheNodesAsListed) {
  Create("held", {Group("workers", kG5, 3), Group("controller", kM5, 1)});
  const ops::Caller caller{"123456789012", "us-west-2", "clusters-test"};
  const json request = {{"ClusterName", "held"}};
  auto held = emulator_->Invoke("ListClusterNodes", request, caller);
  ASSERT_TRUE(held.ok());
  const json at_once = Call("ListClusterNodes", request);
  ASSERT_EQ(at_once["ClusterNodeSummaries"].size(), 4u);
  const std::vector<std::string> ids = NodeIds("held");
  Call("BatchDeleteClusterNodes", {{"ClusterName", "held"}, {"NodeIds", {ids[0], ids[1]}}});
  EXPECT_EQ(Nodes("held").size(), 2u);  // a new listing shows the change
  Advance(3600);
  Call("DeleteCluster", {{"ClusterName", "held"}});
  EXPECT_EQ(held->Tree(), at_once);
}

TEST_F(ClustersTest, DescribeClusterNodeShowsANodeAndRefusesMissingOrLogicalIds) {
  json group = Group("workers", kG5, 1);
  group["ThreadsPerCore"] = 2;
  Create("described", {group});
  const std::string id = NodeIds("described")[0];
  const json details =
      Call("DescribeClusterNode", {{"ClusterName", "described"}, {"NodeId", id}})["NodeDetails"];
  EXPECT_EQ(details["InstanceId"], id);
  EXPECT_EQ(details["InstanceGroupName"], "workers");
  EXPECT_EQ(details["InstanceType"], kG5);
  EXPECT_EQ(details["InstanceStatus"]["Status"], "Running");
  EXPECT_EQ(details["LaunchTime"], kStartSeconds);
  EXPECT_EQ(details["ThreadsPerCore"], 2);
  EXPECT_EQ(details["LifeCycleConfig"]["SourceS3Uri"], "s3://bucket/lifecycle");
  EXPECT_EQ(details["Placement"]["AvailabilityZone"], "us-west-2a");
  EXPECT_EQ(details["Placement"]["AvailabilityZoneId"], "usw2-az1");
  const std::string ip = details["PrivatePrimaryIp"];
  EXPECT_THAT(ip, ::testing::MatchesRegex("10\\.[0-9]{1,3}\\.[0-9]{1,3}\\.[0-9]{1,3}"));
  std::string dashed = ip;
  std::replace(dashed.begin(), dashed.end(), '.', '-');
  EXPECT_EQ(details["PrivateDnsHostname"], "ip-" + dashed + ".us-west-2.compute.internal");
  // The same node is described alike by the cluster's ARN.
  const std::string arn = Describe("described")["ClusterArn"];
  EXPECT_EQ(Call("DescribeClusterNode", {{"ClusterName", arn}, {"NodeId", id}})["NodeDetails"],
            details);

  const json missing =
      Call("DescribeClusterNode", {{"ClusterName", "described"}, {"NodeId", kMissingNode}}, 400);
  EXPECT_EQ(missing["__type"], "ResourceNotFound");
  EXPECT_EQ(missing["message"],
            std::string("Node ") + kMissingNode + " not found in cluster described.");
  const json logical =
      Call("DescribeClusterNode", {{"ClusterName", "described"}, {"NodeLogicalId", "node-1"}}, 400);
  EXPECT_EQ(logical["__type"], "ValidationException");
  EXPECT_EQ(logical["message"], "NodeLogicalId is not supported by this emulator; give NodeId.");
  const json neither = Call("DescribeClusterNode", {{"ClusterName", "described"}}, 400);
  EXPECT_EQ(neither["__type"], "ValidationException");
  EXPECT_EQ(neither["message"], "Either NodeId or NodeLogicalId must be given.");
}

TEST_F(ClustersTest, BatchDeleteClusterNodesAnswersSuccessesAndFailuresApart) {
  Create("batch", {Group("workers", kG5, 3)});
  const std::vector<std::string> ids = NodeIds("batch");
  ASSERT_EQ(ids.size(), 3u);
  const json mixed = Call("BatchDeleteClusterNodes",
                          {{"ClusterName", "batch"}, {"NodeIds", {ids[0], kMissingNode}}});
  EXPECT_EQ(
      mixed,
      json({{"Successful", {ids[0]}},
            {"Failed",
             {{{"Code", "NodeIdNotFound"},
               {"NodeId", kMissingNode},
               {"Message", std::string("Node ") + kMissingNode + " was not found in cluster " +
                               Describe("batch")["ClusterArn"].get<std::string>() + "."}}}}}));
  const json group = Describe("batch")["InstanceGroups"][0];
  EXPECT_EQ(group["TargetCount"], 2);
  EXPECT_EQ(group["CurrentCount"], 2);
  EXPECT_EQ(NodeIds("batch"), (std::vector<std::string>{ids[1], ids[2]}));
  EXPECT_EQ(ClusterHoldings()[0]["count"], 2);

  // Only failures: no Successful member at all.
  const json failed_only =
      Call("BatchDeleteClusterNodes", {{"ClusterName", "batch"}, {"NodeIds", {ids[0]}}});
  EXPECT_FALSE(failed_only.contains("Successful"));
  ASSERT_EQ(failed_only["Failed"].size(), 1u);
  EXPECT_EQ(failed_only["Failed"][0]["Code"], "NodeIdNotFound");

  // Only successes: no Failed member.
  const json succeeded =
      Call("BatchDeleteClusterNodes", {{"ClusterName", "batch"}, {"NodeIds", {ids[1], ids[2]}}});
  EXPECT_EQ(succeeded, json({{"Successful", {ids[1], ids[2]}}}));
  EXPECT_EQ(Describe("batch")["InstanceGroups"][0]["TargetCount"], 0);
  EXPECT_EQ(ClusterHoldings(), json::array());

  const json logical = Call("BatchDeleteClusterNodes",
                            {{"ClusterName", "batch"}, {"NodeLogicalIds", {"node-1"}}}, 400);
  EXPECT_EQ(logical["__type"], "ValidationException");
  EXPECT_EQ(logical["message"], "NodeLogicalIds is not supported by this emulator; give NodeIds.");
}

// ------------------------------------------------------------------------------ UpdateCluster

TEST_F(ClustersTest, UpdateScalesAddsAndDeletesGroups) {
  Create("updated", {Group("workers", kG5, 2), Group("old", kM5, 1)});
  const std::vector<std::string> first =
      NodeIds("updated", {{"InstanceGroupNameContains", "work"}});

  const json answer =
      Update("updated", {Group("workers", kG5, 3), Group("extra", kM5, 2)}, {"old"});
  EXPECT_EQ(answer["ClusterArn"], Describe("updated")["ClusterArn"]);
  json cluster = Describe("updated");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  ASSERT_EQ(cluster["InstanceGroups"].size(), 2u);
  EXPECT_EQ(cluster["InstanceGroups"][0]["InstanceGroupName"], "workers");
  EXPECT_EQ(cluster["InstanceGroups"][0]["CurrentCount"], 3);
  EXPECT_EQ(cluster["InstanceGroups"][0]["TargetCount"], 3);
  EXPECT_EQ(cluster["InstanceGroups"][1]["InstanceGroupName"], "extra");
  EXPECT_EQ(cluster["InstanceGroups"][1]["CurrentCount"], 2);
  EXPECT_EQ(cluster["InstanceGroups"][1]["Status"], "InService");
  EXPECT_EQ(Nodes("updated", {{"InstanceGroupNameContains", "old"}}), json::array());

  // Scaling down keeps the oldest nodes: one of the two launched with the cluster.
  Update("updated", {Group("workers", kG5, 1)});
  const std::vector<std::string> kept = NodeIds("updated", {{"InstanceGroupNameContains", "work"}});
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_THAT(first, ::testing::Contains(kept[0]));
  EXPECT_EQ(Describe("updated")["InstanceGroups"][0]["TargetCount"], 1);

  // Growth beyond the pool (4 on-demand g5) is refused and changes nothing.
  const json refused = Update("updated", {Group("workers", kG5, 5)}, {}, 400);
  EXPECT_EQ(refused["__type"], "ResourceLimitExceeded");
  EXPECT_EQ(refused["message"],
            "Unable to provision requested ML compute capacity. Please retry using a different ML "
            "instance type.");
  EXPECT_EQ(Describe("updated")["InstanceGroups"][0]["TargetCount"], 1);

  const json type_change = Update("updated", {Group("workers", kM5, 1)}, {}, 400);
  EXPECT_EQ(type_change["__type"], "ValidationException");
  EXPECT_EQ(type_change["message"],
            "The instance type of instance group workers cannot be changed from ml.g5.12xlarge to "
            "ml.m5.xlarge.");
  const json all_gone = Update("updated", json::array(), {"workers", "extra"}, 400);
  EXPECT_EQ(all_gone["__type"], "ValidationException");
  EXPECT_THAT(all_gone["message"].get<std::string>(),
              HasSubstr(" must keep at least one instance group."));
  const json nothing = Call("UpdateCluster", {{"ClusterName", "updated"}}, 400);
  EXPECT_EQ(nothing["__type"], "ValidationException");
  EXPECT_EQ(nothing["message"],
            "The update changes nothing: give InstanceGroups, InstanceGroupsToDelete or "
            "NodeRecovery.");
  Call("UpdateCluster", {{"ClusterName", "updated"}, {"NodeRecovery", "None"}});
  EXPECT_EQ(Describe("updated")["NodeRecovery"], "None");
}

TEST_F(ClustersTest, UpdatingOnAPlanStaysWithinIt) {
  const std::string plan = BuyPlan("two", 2);
  Create("gpu", {Group("gpu", kP5, 1, plan)});
  Update("gpu", {Group("gpu", kP5, 2, plan)});
  EXPECT_EQ(Describe("gpu")["InstanceGroups"][0]["CurrentCount"], 2);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "two"}})["InUseInstanceCount"], 2);
  const json refused = Update("gpu", {Group("gpu", kP5, 3, plan)}, {}, 400);
  EXPECT_EQ(refused["__type"], "ResourceLimitExceeded");
  EXPECT_EQ(
      refused["message"],
      "Requested instance count (3) exceeds available capacity (2) in training plan " + plan + ".");
  const json moved = Update("gpu", {Group("gpu", kP5, 2)}, {}, 400);
  EXPECT_EQ(moved["message"], "The training plan of instance group gpu cannot be changed.");
}

class ProvisionedClustersTest : public ClustersTest {
 protected:
  ProvisionedClustersTest() { Reopen(Millis{600'000}); }
};

TEST_F(ProvisionedClustersTest, ChangesFallDueAfterTheDelayAndConflictMeanwhile) {
  const std::string arn = CreateArn("slow", {Group("workers", kG5, 2)});
  EXPECT_EQ(Describe("slow")["ClusterStatus"], "Creating");
  EXPECT_EQ(Describe("slow")["InstanceGroups"][0]["Status"], "Creating");
  EXPECT_EQ(Describe("slow")["InstanceGroups"][0]["CurrentCount"], 0);
  EXPECT_EQ(Nodes("slow"), json::array());
  const json creating = Update("slow", {Group("workers", kG5, 3)}, {}, 400);
  EXPECT_EQ(creating["__type"], "ConflictException");
  EXPECT_EQ(creating["message"],
            "Cluster " + arn + " is Creating; it can be updated only while it is InService.");

  Advance(599);
  EXPECT_EQ(Describe("slow")["ClusterStatus"], "Creating");
  Advance(1);
  EXPECT_EQ(Describe("slow")["ClusterStatus"], "InService");
  EXPECT_EQ(Nodes("slow")[0]["LaunchTime"], kStartSeconds + 600);

  Update("slow", {Group("workers", kG5, 3)});
  json cluster = Describe("slow");
  EXPECT_EQ(cluster["ClusterStatus"], "Updating");
  EXPECT_EQ(cluster["InstanceGroups"][0]["Status"], "Updating");
  EXPECT_EQ(cluster["InstanceGroups"][0]["TargetCount"], 3);
  EXPECT_EQ(cluster["InstanceGroups"][0]["CurrentCount"], 2);
  EXPECT_EQ(ClusterHoldings()[0]["count"], 3) << "growth is held from the request";
  const json updating = Update("slow", {Group("workers", kG5, 4)}, {}, 400);
  EXPECT_EQ(updating["__type"], "ConflictException");
  EXPECT_THAT(updating["message"].get<std::string>(), HasSubstr(" is Updating; "));
  Advance(600);
  cluster = Describe("slow");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  EXPECT_EQ(cluster["InstanceGroups"][0]["CurrentCount"], 3);

  // A deleted node shuts down for the delay; deleting it again is InvalidNodeStatus.
  const std::string node = NodeIds("slow")[0];
  Call("BatchDeleteClusterNodes", {{"ClusterName", "slow"}, {"NodeIds", {node}}});
  EXPECT_EQ(Nodes("slow")[0]["InstanceStatus"]["Status"], "ShuttingDown");
  const json again =
      Call("BatchDeleteClusterNodes", {{"ClusterName", "slow"}, {"NodeIds", {node}}});
  ASSERT_EQ(again["Failed"].size(), 1u);
  EXPECT_EQ(again["Failed"][0]["Code"], "InvalidNodeStatus");
  EXPECT_EQ(again["Failed"][0]["Message"], "Node " + node + " is already being deleted.");
  Advance(600);
  EXPECT_EQ(Nodes("slow").size(), 2u);

  Call("DeleteCluster", {{"ClusterName", "slow"}});
  EXPECT_EQ(Describe("slow")["ClusterStatus"], "Deleting");
  for (const json& summary : Nodes("slow")) {
    EXPECT_EQ(summary["InstanceStatus"]["Status"], "ShuttingDown");
  }
  const json twice = Call("DeleteCluster", {{"ClusterName", "slow"}}, 400);
  EXPECT_EQ(twice["__type"], "ConflictException");
  EXPECT_EQ(twice["message"], "Cluster " + arn + " is already being deleted.");
  EXPECT_EQ(ClusterHoldings()[0]["count"], 2) << "held until the nodes are gone";
  Advance(599);
  EXPECT_EQ(Describe("slow")["ClusterStatus"], "Deleting");
  Advance(1);
  EXPECT_EQ(Describe("slow", 400)["message"], "Cluster slow not found.");
  EXPECT_EQ(ClusterHoldings(), json::array());
}

TEST_F(ClustersTest, DeleteClusterWithoutADelayIsGoneAtOnce) {
  Create("short-lived", {Group("g", kG5, 4)});
  EXPECT_EQ(Call("DeleteCluster", {{"ClusterName", "short-lived"}})["ClusterArn"].size() > 0, true);
  EXPECT_EQ(Describe("short-lived", 400)["__type"], "ResourceNotFound");
  EXPECT_EQ(Call("ListClusters", json::object())["ClusterSummaries"], json::array());
  // Its four g5 are free again.
  Create("next", {Group("g", kG5, 4)});
  EXPECT_EQ(Describe("next")["ClusterStatus"], "InService");
}

TEST_F(ProvisionedClustersTest, APlanGroupHoldsItsInstancesWhileTheClusterIsCreating) {
  const std::string plan = BuyPlan("hp", 2);
  Create("first", {Group("gpu", kP5, 2, plan)});
  EXPECT_EQ(Describe("first")["ClusterStatus"], "Creating");
  const json refused = Create("second", {Group("gpu", kP5, 1, plan)}, 400);
  EXPECT_EQ(refused["__type"], "ResourceLimitExceeded");
  EXPECT_EQ(refused["message"],
            "Requested instance count (1) of instance group gpu exceeds available capacity (0) in "
            "training plan " +
                plan + ".");
  Advance(600);
  EXPECT_EQ(Describe("first")["ClusterStatus"], "InService");
  EXPECT_EQ(Describe("first")["InstanceGroups"][0]["CurrentCount"], 2);
}

// Provisioning falls due in the order it was asked for, whatever the names and kinds: when the
// clock jumps past both, the cluster created first takes the last on-demand p5.
TEST_F(ProvisionedClustersTest, TheFirstClusterDueTakesTheLastOnDemandInstance) {
  Create("z-first", {Group("gpu", kP5, 1)});
  Advance(10);
  Create("a-second", {Group("gpu", kP5, 1)});
  Advance(1000);
  EXPECT_EQ(Describe("z-first")["ClusterStatus"], "InService");
  EXPECT_EQ(Describe("a-second")["ClusterStatus"], "Failed");
}

TEST_F(ProvisionedClustersTest, AClusterDueBeforeAnEndpointTakesTheLastOnDemandInstance) {
  Create("first", {Group("gpu", kP5, 1)});
  Advance(10);
  OnDemandEndpoint("second", kP5);
  Advance(1000);
  EXPECT_EQ(Describe("first")["ClusterStatus"], "InService");
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "second"}})["EndpointStatus"], "Failed");
}

// A restart rebuilds what clusters hold from the store, and every cluster reads back as it was.
TEST_F(ProvisionedClustersTest, ClustersAndWhatTheyHoldSurviveARestart) {
  const std::string plan = BuyPlan("later", 1, kStartSeconds + kDay);
  json cpu = Group("cpu", kP5, 1);
  cpu["ThreadsPerCore"] = 1;
  Create("kept", {cpu, Group("gpu", kP5, 1, plan)}, 200, {{"NodeRecovery", "None"}});
  Advance(600);
  Update("kept", {Group("gpu", kP5, 0, plan)});  // Updating for 600 s, nodes shutting down
  const json cluster = Describe("kept");
  ASSERT_EQ(cluster["ClusterStatus"], "Updating");
  const json nodes = Nodes("kept");
  const json held = ClusterHoldings();
  ASSERT_EQ(held.size(), 2u);

  // The fixture's clock starts at kStart again after the restart: the update falls due 1200 s on.
  Reopen(Millis{600'000});
  EXPECT_EQ(Describe("kept"), cluster);
  EXPECT_EQ(Nodes("kept"), nodes);
  EXPECT_EQ(ClusterHoldings(), held);
  OnDemandEndpoint("starved", kP5);  // the cluster still holds the only on-demand p5
  Advance(1200);
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "starved"}})["EndpointStatus"], "Failed");
  EXPECT_EQ(Describe("kept")["ClusterStatus"], "InService");
  EXPECT_EQ(Nodes("kept").size(), 1u);
}

// ------------------------------------------------------------------------------ competition

TEST_F(ClustersTest, AClusterOnTheLastOnDemandP5StarvesEndpointsAndJobs) {
  Create("takes-it", {Group("gpu", kP5, 1)});
  EXPECT_EQ(Describe("takes-it")["ClusterStatus"], "InService");

  OnDemandEndpoint("starved", kP5);
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "starved"}})["FailureReason"],
            "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
            "error. Please retry using a different ML instance type or after some time.");
  Call("CreateTrainingJob", TrainingJob("waits", kP5, 1));
  EXPECT_EQ(Call("DescribeTrainingJob", {{"TrainingJobName", "waits"}})["SecondaryStatus"],
            "Pending");
  // A second cluster fails at provisioning with the real message.
  Create("too-late", {Group("gpu", kP5, 1)});
  json late = Describe("too-late");
  EXPECT_EQ(late["ClusterStatus"], "Failed");
  EXPECT_EQ(late["FailureMessage"], kNoCapacity);
  EXPECT_EQ(late["InstanceGroups"][0]["Status"], "Failed");
  EXPECT_EQ(late["InstanceGroups"][0]["CurrentCount"], 0);

  Advance(30);
  Call("DeleteCluster", {{"ClusterName", "takes-it"}});
  const json job = Call("DescribeTrainingJob", {{"TrainingJobName", "waits"}});
  EXPECT_EQ(job["TrainingStartTime"], kStartSeconds + 30);
  // A failed cluster can be deleted.
  Call("DeleteCluster", {{"ClusterName", "too-late"}});
  Describe("too-late", 400);
}

TEST_F(ClustersTest, AnEndpointOnTheLastOnDemandP5FailsANewCluster) {
  OnDemandEndpoint("holder", kP5);
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "holder"}})["EndpointStatus"], "InService");
  Create("starved", {Group("gpu", kP5, 1)});
  EXPECT_EQ(Describe("starved")["FailureMessage"], kNoCapacity);
  EXPECT_EQ(ClusterHoldings(), json::array());
}

// ------------------------------------------------------------------------------ tags, admin

TEST_F(ClustersTest, ClustersTakeTags) {
  const std::string arn = Create("tagged", {Group("g", kM5, 1)}, 200,
                                 {{"Tags", {{{"Key", "team"}, {"Value", "ml"}}}}})["ClusterArn"];
  EXPECT_EQ(Call("ListTags", {{"ResourceArn", arn}})["Tags"],
            json({{{"Key", "team"}, {"Value", "ml"}}}));
  Call("AddTags", {{"ResourceArn", arn}, {"Tags", {{{"Key", "env"}, {"Value", "test"}}}}});
  EXPECT_EQ(Call("ListTags", {{"ResourceArn", arn}})["Tags"],
            json({{{"Key", "team"}, {"Value", "ml"}}, {{"Key", "env"}, {"Value", "test"}}}));
  Call("DeleteTags", {{"ResourceArn", arn}, {"TagKeys", {"team"}}});
  EXPECT_EQ(Call("ListTags", {{"ResourceArn", arn}})["Tags"],
            json({{{"Key", "env"}, {"Value", "test"}}}));
  Call("DeleteCluster", {{"ClusterName", "tagged"}});
  const json gone = Call("ListTags", {{"ResourceArn", arn}}, 400);
  EXPECT_EQ(gone["__type"], "ValidationException");
  EXPECT_EQ(gone["message"], "Could not find resource \"" + arn + "\".");
}

TEST_F(ClustersTest, TheAdminCapacityViewListsWhatAClusterHolds) {
  const std::string plan = BuyPlan("hp", 1);
  const std::string arn = CreateArn("held", {Group("gpu", kP5, 1, plan), Group("cpu", kG5, 2)});
  const json expected = {{{"arn", arn},
                          {"kind", "cluster"},
                          {"region", "us-west-2"},
                          {"instance_type", kP5},
                          {"count", 1},
                          {"training_plan_arn", plan}},
                         {{"arn", arn},
                          {"kind", "cluster"},
                          {"region", "us-west-2"},
                          {"instance_type", kG5},
                          {"count", 2},
                          {"on_demand", true}}};
  EXPECT_EQ(Capacity()["in_use"], expected);
  // Another account sees none of it; deleting the cluster gives everything back.
  const std::string other_account =
      "AWS4-HMAC-SHA256 Credential=210987654321/20270125/us-west-2/sagemaker/aws4_request, "
      "SignedHeaders=host, Signature=0";
  EXPECT_EQ(Admin("GET", "/_emulator/capacity?region=us-west-2", "",
                  {{"Authorization", other_account}})["in_use"],
            json::array());
  Call("DeleteCluster", {{"ClusterName", "held"}});
  EXPECT_EQ(Capacity()["in_use"], json::array());
}

// A null member reads as an absent one (as AWS reads it), in every operation.
TEST_F(ClustersTest, NullMembersReadAsAbsent) {
  json group = Group("g", kM5, 1);
  group["TrainingPlanArn"] = nullptr;
  group["ThreadsPerCore"] = nullptr;
  Create("nulls", {group}, 200, {{"VpcConfig", nullptr}, {"NodeRecovery", nullptr}});
  const json cluster = Describe("nulls");
  EXPECT_FALSE(cluster.contains("VpcConfig"));
  EXPECT_EQ(cluster["NodeRecovery"], "Automatic");
  EXPECT_FALSE(cluster["InstanceGroups"][0].contains("ThreadsPerCore"));
  EXPECT_FALSE(cluster["InstanceGroups"][0].contains("TrainingPlanArn"));
  EXPECT_EQ(Call("ListClusters", {{"TrainingPlanArn", nullptr}})["ClusterSummaries"].size(), 1u);
  EXPECT_EQ(
      Call("ListClusterNodes", {{"ClusterName", "nulls"},
                                {"InstanceGroupNameContains", nullptr}})["ClusterNodeSummaries"]
          .size(),
      1u);
  const json no_ids =
      Call("BatchDeleteClusterNodes", {{"ClusterName", "nulls"}, {"NodeIds", nullptr}}, 400);
  EXPECT_EQ(no_ids["__type"], "ValidationException");
  EXPECT_EQ(no_ids["message"], "NodeIds must be given.");
  const json no_node =
      Call("DescribeClusterNode", {{"ClusterName", "nulls"}, {"NodeId", nullptr}}, 400);
  EXPECT_EQ(no_node["message"], "Either NodeId or NodeLogicalId must be given.");
  const json update = Call("UpdateCluster", {{"ClusterName", "nulls"},
                                             {"InstanceGroups", json::array({Group("g", kM5, 2)})},
                                             {"InstanceGroupsToDelete", nullptr}});
  EXPECT_TRUE(update.contains("ClusterArn"));
}

// On a frozen clock a cluster deleted and created again under its name gets a new ARN.
TEST_F(ClustersTest, AClusterCreatedAgainGetsANewArn) {
  const std::string first = CreateArn("again", {Group("g", kM5, 1)});
  Call("DeleteCluster", {{"ClusterName", "again"}});
  Describe("again", 400);
  const std::string second = CreateArn("again", {Group("g", kM5, 1)});
  EXPECT_NE(first, second);
  EXPECT_THAT(second, ::testing::MatchesRegex(kClusterArn));
}

}  // namespace
}  // namespace smemu
