// --init FILE: the seeded scenarios in examples/scenarios/ applied by the real binary (and, for the
// HyperPod one, followed past its plan's end), a failing step named in the start-up error, and a
// populated database left alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e/http_client.hpp"
#include "e2e/process.hpp"
#include "test_support.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::HttpClient;
using testing::ListeningPort;
using testing::Process;

std::string Scenario(const std::string& name) {
  return std::string(SMEMU_SOURCE_DIR) + "/examples/scenarios/" + name;
}

// An AWS call as a client in `region` of `account` (default: the server's) makes it.
json Call(HttpClient& client, const std::string& operation, const json& input,
          const std::string& region, const std::string& account = "000000000000") {
  const auto reply = client.Send(
      "POST", "/", input.dump(),
      {{"X-Amz-Target", "SageMaker." + operation},
       {"Content-Type", "application/x-amz-json-1.1"},
       {"Authorization", "AWS4-HMAC-SHA256 Credential=" + account + "/20270101/" + region +
                             "/sagemaker/aws4_request, SignedHeaders=host, Signature=0"}});
  EXPECT_EQ(reply.status, 200) << operation << ": " << reply.body;
  return json::parse(reply.body, nullptr, false);
}

TEST(Scenario, TheWalkthroughLeavesAnEndpointInServiceOnItsPlan) {
  Process server({"--port", "0", "--db", ":memory:", "--init", Scenario("walkthrough.json")});
  HttpClient client(ListeningPort(server));
  const json plan =
      Call(client, "DescribeTrainingPlan", {{"TrainingPlanName", "p5-endpoint-plan"}}, "us-west-2");
  EXPECT_EQ(plan["Status"], "Active");
  EXPECT_EQ(plan["TotalInstanceCount"], 2);
  EXPECT_EQ(plan["StartTime"], 1800444600);  // 2027-01-20T11:30:00Z, where the clock was moved
  const json endpoint =
      Call(client, "DescribeEndpoint", {{"EndpointName", "demo-endpoint"}}, "us-west-2");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 2);
  EXPECT_EQ(
      plan["TrainingPlanArn"].get<std::string>(),
      Call(client, "DescribeEndpointConfig", {{"EndpointConfigName", "config-v1"}},
           "us-west-2")["ProductionVariants"][0]["CapacityReservationConfig"]["MlReservationArn"]
          .get<std::string>());
  const json clock = json::parse(client.Send("GET", "/_emulator/clock", "").body);
  EXPECT_EQ(clock["now"], "2027-01-20T11:30:00Z");
  EXPECT_EQ(clock["frozen"], true);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0);
  EXPECT_THAT(server.output(), HasSubstr("scenario applied"));
}

TEST(Scenario, TheCapacityCrunchQueuesJobsUntilCapacityComes) {
  Process server({"--port", "0", "--db", ":memory:", "--init", Scenario("capacity-crunch.json")});
  HttpClient client(ListeningPort(server));
  for (const char* name : {"llm-pretrain", "finetune-small"}) {
    const json job = Call(client, "DescribeTrainingJob", {{"TrainingJobName", name}}, "us-east-1");
    EXPECT_EQ(job["TrainingJobStatus"], "InProgress") << name;
    EXPECT_EQ(job["SecondaryStatus"], "Pending") << name;
  }
  EXPECT_EQ(Call(client, "DescribeProcessingJob", {{"ProcessingJobName", "eval-batch"}},
                 "us-east-1")["ProcessingJobStatus"],
            "InProgress");
  // Neither of its preferences has on-demand instances in the region: it waits too.
  const json state = json::parse(client.Send("GET", "/_emulator/state", "").body);
  for (const json& job : state["jobs"]) {
    EXPECT_EQ(job["secondary_status"], "Pending") << job;
  }
  EXPECT_EQ(state["jobs"].size(), 3u);
  // The plan starts two days later, at 11:30 UTC: the big job starts on it.
  ASSERT_EQ(client.Send("POST", "/_emulator/clock", R"({"now": "2027-01-03T11:29:59Z"})").status,
            200);
  EXPECT_EQ(Call(client, "DescribeTrainingJob", {{"TrainingJobName", "llm-pretrain"}},
                 "us-east-1")["SecondaryStatus"],
            "Pending");
  ASSERT_EQ(client.Send("POST", "/_emulator/clock", R"({"now": "2027-01-03T11:30:00Z"})").status,
            200);
  const json started =
      Call(client, "DescribeTrainingJob", {{"TrainingJobName", "llm-pretrain"}}, "us-east-1");
  EXPECT_NE(started["SecondaryStatus"], "Pending");
  EXPECT_EQ(started["ResourceConfig"]["SelectedInstanceType"], "ml.p5.48xlarge");
}

// The statuses of a cluster's nodes, by group, in launch order.
std::map<std::string, std::vector<std::string>> NodeStatuses(HttpClient& client,
                                                             const std::string& cluster) {
  const json nodes = Call(client, "ListClusterNodes", {{"ClusterName", cluster}}, "us-west-2");
  std::map<std::string, std::vector<std::string>> statuses;
  for (const json& node : nodes["ClusterNodeSummaries"]) {
    statuses[node["InstanceGroupName"]].push_back(node["InstanceStatus"]["Status"]);
  }
  return statuses;
}

TEST(Scenario, AHyperPodClusterFollowsItsPlanThroughTheWindow) {
  Process server({"--port", "0", "--db", ":memory:", "--init", Scenario("hyperpod-on-plan.json")});
  HttpClient client(ListeningPort(server));
  const json plan =
      Call(client, "DescribeTrainingPlan", {{"TrainingPlanName", "hyperpod-week"}}, "us-west-2");
  EXPECT_EQ(plan["Status"], "Active");
  EXPECT_EQ(plan["TargetResources"], json::array({"hyperpod-cluster"}));
  EXPECT_EQ(plan["StartTime"], 1799321400);  // 2027-01-07T11:30:00Z, where the clock was moved
  EXPECT_EQ(plan["EndTime"], 1799926200);    // 2027-01-14T11:30:00Z
  EXPECT_EQ(plan["InUseInstanceCount"], 4);

  // After the scenario: scaled to the whole plan, every node running.
  json cluster = Call(client, "DescribeCluster", {{"ClusterName", "llm-cluster"}}, "us-west-2");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  ASSERT_EQ(cluster["InstanceGroups"].size(), 2u) << cluster;
  json workers = cluster["InstanceGroups"][0];
  EXPECT_EQ(workers["InstanceGroupName"], "workers");
  EXPECT_EQ(workers["CurrentCount"], 4);
  EXPECT_EQ(workers["TargetCount"], 4);
  EXPECT_EQ(workers["TrainingPlanArn"], plan["TrainingPlanArn"]);
  EXPECT_EQ(workers["TrainingPlanStatus"], "Active");
  EXPECT_EQ(cluster["InstanceGroups"][1]["CurrentCount"], 1);
  using Statuses = std::vector<std::string>;
  auto nodes = NodeStatuses(client, "llm-cluster");
  EXPECT_EQ(nodes["workers"], Statuses(4, "Running"));
  EXPECT_EQ(nodes["controller"], Statuses{"Running"});
  const json listed = Call(client, "ListClusters", {{"TrainingPlanArn", plan["TrainingPlanArn"]}},
                           "us-west-2")["ClusterSummaries"];
  ASSERT_EQ(listed.size(), 1u) << listed;
  EXPECT_EQ(listed[0]["ClusterName"], "llm-cluster");

  // An hour before the plan ends the workers shut down, still holding their instances.
  ASSERT_EQ(client.Send("POST", "/_emulator/clock", R"({"now": "2027-01-14T10:30:00Z"})").status,
            200);
  nodes = NodeStatuses(client, "llm-cluster");
  EXPECT_EQ(nodes["workers"], Statuses(4, "ShuttingDown"));
  EXPECT_EQ(nodes["controller"], Statuses{"Running"});
  EXPECT_EQ(Call(client, "DescribeCluster", {{"ClusterName", "llm-cluster"}},
                 "us-west-2")["InstanceGroups"][0]["CurrentCount"],
            0);

  // Past the plan's end they are gone; the on-demand controller stays.
  ASSERT_EQ(client.Send("POST", "/_emulator/clock", R"({"now": "2027-01-14T11:30:01Z"})").status,
            200);
  cluster = Call(client, "DescribeCluster", {{"ClusterName", "llm-cluster"}}, "us-west-2");
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  workers = cluster["InstanceGroups"][0];
  EXPECT_EQ(workers["CurrentCount"], 0);
  EXPECT_EQ(workers["TargetCount"], 4);
  EXPECT_EQ(workers["TrainingPlanStatus"], "Expired");
  nodes = NodeStatuses(client, "llm-cluster");
  EXPECT_EQ(nodes.count("workers"), 0u);
  EXPECT_EQ(nodes["controller"], Statuses{"Running"});
  EXPECT_EQ(Call(client, "DescribeTrainingPlan", {{"TrainingPlanName", "hyperpod-week"}},
                 "us-west-2")["Status"],
            "Expired");
  const json capacity = json::parse(
      client.Send("GET", "/_emulator/capacity?region=us-west-2&instance_type=ml.p5.48xlarge", "")
          .body);
  EXPECT_EQ(capacity["in_use"], json::array()) << capacity;
}

// The shipped scenarios are one timeline in name order: the crunch from 2027-01-01, the HyperPod
// week from 2027-01-05, the walkthrough from 2027-01-15. So `--init examples/scenarios` (and the
// image's copy of the folder) starts with all three, each clock step moving forward.
TEST(Scenario, TheShippedFolderLoadsTogetherOnOneTimeline) {
  Process server({"--port", "0", "--db", ":memory:", "--init",
                  std::string(SMEMU_SOURCE_DIR) + "/examples/scenarios"});
  HttpClient client(ListeningPort(server));
  const json clock = json::parse(client.Send("GET", "/_emulator/clock", "").body);
  EXPECT_EQ(clock["now"], "2027-01-20T11:30:00Z") << "where the last scenario left it";
  EXPECT_EQ(Call(client, "DescribeEndpoint", {{"EndpointName", "demo-endpoint"}},
                 "us-west-2")["EndpointStatus"],
            "InService");
  EXPECT_EQ(Call(client, "DescribeTrainingPlan", {{"TrainingPlanName", "p5-endpoint-plan"}},
                 "us-west-2")["Status"],
            "Active");
  // The earlier stories went on while the clock moved: their plans have ended.
  EXPECT_EQ(Call(client, "DescribeTrainingPlan", {{"TrainingPlanName", "hyperpod-week"}},
                 "us-west-2")["Status"],
            "Expired");
  EXPECT_EQ(Call(client, "DescribeCluster", {{"ClusterName", "llm-cluster"}},
                 "us-west-2")["ClusterStatus"],
            "InService");
  EXPECT_EQ(Call(client, "DescribeTrainingPlan", {{"TrainingPlanName", "crunch-relief"}},
                 "us-east-1")["Status"],
            "Expired");
  EXPECT_EQ(
      Call(client, "ListTrainingJobs", json::object(), "us-east-1")["TrainingJobSummaries"].size(),
      2u);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0);
}

TEST(Scenario, AFailingStepStopsTheStartNamingTheStep) {
  testing::TempDbPath scenario;
  std::ofstream(scenario.str()) << R"([
    {"operation": "CreateModel", "input": {"ModelName": "fine"}},
    {"id": "bought", "operation": "CreateTrainingPlan",
     "input": {"TrainingPlanName": "p", "TrainingPlanOfferingId": "tpo-0000"}}
  ])";
  Process server({"--port", "0", "--db", ":memory:", "--init", scenario.str()});
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 1);
  EXPECT_THAT(server.output(),
              HasSubstr("cannot start: " + scenario.str() +
                        ": step 2 (CreateTrainingPlan): ResourceNotFound: Training plan "
                        "offering tpo-0000 was not found or has expired; search again."));

  std::ofstream(scenario.str()) << R"([{"operation": "CreateModel",
      "input": {"ModelName": "${nothing:/ModelName}"}}])";
  Process dangling({"--port", "0", "--db", ":memory:", "--init", scenario.str()});
  EXPECT_EQ(dangling.Wait(std::chrono::seconds(10)), 1);
  EXPECT_THAT(dangling.output(),
              HasSubstr(": step 1 (CreateModel): refers to \"nothing\", which no earlier step "
                        "has as its id"));

  std::ofstream(scenario.str()) << R"([{"clock": "2027-01-01T00:00:00Z", "oops": 1}])";
  Process unknown({"--port", "0", "--db", ":memory:", "--init", scenario.str()});
  EXPECT_EQ(unknown.Wait(std::chrono::seconds(10)), 1);
  EXPECT_THAT(unknown.output(), HasSubstr(": step 1: unknown member 'oops'"));

  std::ofstream(scenario.str()) << R"({"not": "a list"})";
  Process not_a_list({"--port", "0", "--db", ":memory:", "--init", scenario.str()});
  EXPECT_EQ(not_a_list.Wait(std::chrono::seconds(10)), 1);
  EXPECT_THAT(not_a_list.output(), HasSubstr(scenario.str() + ": must be a JSON list of steps"));
}

// The README's environment signs as account 123456789012: with --account-id, the shipped scenario
// is that account's, down to the role ARNs (${account} in its inputs).
TEST(Scenario, AScenarioRunsInTheAccountItIsGiven) {
  Process server({"--port", "0", "--db", ":memory:", "--account-id", "123456789012", "--init",
                  Scenario("walkthrough.json")});
  HttpClient client(ListeningPort(server));
  const json model =
      Call(client, "DescribeModel", {{"ModelName", "model-v1"}}, "us-west-2", "123456789012");
  EXPECT_EQ(model["ExecutionRoleArn"], "arn:aws:iam::123456789012:role/demo");
  EXPECT_EQ(model["ModelArn"], "arn:aws:sagemaker:us-west-2:123456789012:model/model-v1");
}

// --init FOLDER applies its *.json files in name order (other files are ignored), as a folder of
// init hooks runs: here the second file's clock is later than the first's, so the wrong order
// would move the clock backwards and stop the start.
TEST(Scenario, AFolderIsAppliedInNameOrder) {
  testing::TempDir folder;
  std::ofstream(folder.path() / "10-later.json") << R"([
    {"clock": "2027-02-01T00:00:00Z", "operation": "CreateModel",
     "input": {"ModelName": "second", "ExecutionRoleArn": "arn:aws:iam::${account}:role/r"}}])";
  std::ofstream(folder.path() / "02-earlier.json") << R"([
    {"clock": {"now": "2027-01-01T00:00:00Z", "frozen": true}, "operation": "CreateModel",
     "input": {"ModelName": "first"}, "region": "${region}"}])";
  std::ofstream(folder.path() / "README.txt") << "not a scenario";
  Process server({"--port", "0", "--db", ":memory:", "--init", folder.path().string()});
  HttpClient client(ListeningPort(server));
  const json models = Call(client, "ListModels", {{"SortBy", "CreationTime"}}, "us-east-1");
  ASSERT_EQ(models["Models"].size(), 2u) << models;
  EXPECT_EQ(models["Models"][0]["ModelName"], "second");
  EXPECT_EQ(models["Models"][1]["ModelName"], "first");
  EXPECT_EQ(
      Call(client, "DescribeModel", {{"ModelName", "second"}}, "us-east-1")["ExecutionRoleArn"],
      "arn:aws:iam::000000000000:role/r");

  testing::TempDir empty;
  Process nothing({"--port", "0", "--db", ":memory:", "--init", empty.path().string()});
  EXPECT_NE(ListeningPort(nothing), 0) << "an empty folder applies nothing";
}

TEST(Scenario, APopulatedDatabaseIsLeftAlone) {
  testing::TempDbPath db;
  {
    Process server({"--port", "0", "--db", db.str()});
    HttpClient client(ListeningPort(server));
    ASSERT_EQ(client.Aws("CreateModel", R"({"ModelName":"mine"})").status, 200);
    server.Signal(SIGTERM);
    ASSERT_EQ(server.Wait(std::chrono::seconds(10)), 0);
  }
  Process server({"--port", "0", "--db", db.str(), "--init", Scenario("walkthrough.json")});
  HttpClient client(ListeningPort(server));
  EXPECT_EQ(client.Aws("DescribeModel", R"({"ModelName":"mine"})").status, 200);
  const json plans = Call(client, "ListTrainingPlans", json::object(), "us-west-2");
  EXPECT_EQ(plans["TrainingPlanSummaries"].size(), 0u);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0);
  EXPECT_THAT(server.output(),
              HasSubstr("the database already holds resources: --init not applied"));
}

}  // namespace
}  // namespace smemu
