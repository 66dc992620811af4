// The dashboard's two admin routes: GET /_emulator/ui (the page compiled into the binary) and
// GET /_emulator/state (everything the page shows, in one answer, settled to the clock).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;
using ::testing::HasSubstr;

constexpr const char* kOtherAccount = "210987654321";

class DashboardTest : public EmulatorFixture {
 protected:
  void Reopen(std::string token) {
    router_.reset();
    emulator_.reset();
    router_config_.admin_token = std::move(token);
    Open();
  }

  json CallAs(const std::string& authorization, const std::string& operation, const json& input) {
    const auto response = router_->Handle(
        {"POST",
         "/",
         {{"X-Amz-Target", "SageMaker." + operation}, {"Authorization", authorization}},
         input.dump()});
    EXPECT_EQ(response.status, 200) << operation << " " << response.body;
    return json::parse(response.body);
  }

  std::string BuyPlan(const std::string& authorization, const std::string& name, int count,
                      const std::string& target = "endpoint") {
    const json offering = CallAs(authorization, "SearchTrainingPlanOfferings",
                                 {{"InstanceType", "ml.p5.48xlarge"},
                                  {"InstanceCount", count},
                                  {"DurationHours", 168},
                                  {"StartTimeAfter", kPlanStartSeconds},
                                  {"TargetResources", {target}}})["TrainingPlanOfferings"][0];
    const std::string arn =
        CallAs(authorization, "CreateTrainingPlan",
               {{"TrainingPlanName", name},
                {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
    // The plan starts at 11:30 UTC; what a test does next happens from its first minute on.
    AdvanceTo(kPlanStartSeconds);
    return arn;
  }

  json State(protocol::Headers headers = {}, const std::string& query = "") {
    const auto response = router_->Handle({"GET", "/_emulator/state" + query, headers, ""});
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body);
  }
};

TEST_F(DashboardTest, TheUiIsTheEmbeddedPage) {
  const auto page = router_->Handle({"GET", "/_emulator/ui", {}, ""});
  EXPECT_EQ(page.status, 200);
  ASSERT_NE(protocol::FindHeader(page.headers, "Content-Type"), nullptr);
  EXPECT_EQ(*protocol::FindHeader(page.headers, "Content-Type"), "text/html; charset=utf-8");
  ASSERT_NE(protocol::FindHeader(page.headers, "Content-Security-Policy"), nullptr);
  EXPECT_THAT(*protocol::FindHeader(page.headers, "Content-Security-Policy"),
              HasSubstr("connect-src 'self'"));
  EXPECT_THAT(page.body, HasSubstr("<!doctype html>"));
  EXPECT_THAT(page.body, HasSubstr("/_emulator/state"));
  EXPECT_THAT(page.body, ::testing::Not(HasSubstr("http://"))) << "no external resources";
  EXPECT_THAT(page.body, ::testing::Not(HasSubstr("https://")));
  EXPECT_EQ(router_->Handle({"POST", "/_emulator/ui", {}, ""}).status, 405);
  EXPECT_EQ(router_->Handle({"POST", "/_emulator/state", {}, ""}).status, 405);
}

TEST_F(DashboardTest, TheUiFollowsTheAdminAccessRules) {
  constexpr const char* kRemotePeer = "203.0.113.7";  // not loopback (no peer_scope: elsewhere)
  EXPECT_EQ(router_->Handle({"GET", "/_emulator/ui", {}, "", kRemotePeer}).status, 403);
  EXPECT_EQ(router_->Handle({"GET", "/_emulator/state", {}, "", kRemotePeer}).status, 403);
  EXPECT_EQ(router_->Handle({"GET", "/_emulator/ui?token=", {}, "", kRemotePeer}).status, 403);

  Reopen("s3cret/token");
  const auto refused = router_->Handle({"GET", "/_emulator/ui", {}, ""});
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["__type"], "AccessDeniedException");
  EXPECT_EQ(router_->Handle({"GET", "/_emulator/ui?token=wrong", {}, ""}).status, 403);
  EXPECT_EQ(router_->Handle({"GET", "/_emulator/ui?token=s3cret%2Ftoken", {}, ""}).status, 200)
      << "a browser opens the page with the token in its address";
  EXPECT_EQ(
      router_->Handle({"GET", "/_emulator/ui", {{"X-Emulator-Admin-Token", "s3cret/token"}}, ""})
          .status,
      200);
  EXPECT_EQ(router_->Handle({"GET", "/_emulator/state?token=s3cret%2Ftoken", {}, ""}).status, 403)
      << "the page sends the token in its header; only the page itself takes it in the address";
  EXPECT_EQ(
      router_->Handle({"GET", "/_emulator/state", {{"Authorization", "Bearer s3cret/token"}}, ""})
          .status,
      200);
}

TEST_F(DashboardTest, TheStateShowsEverythingSettledToTheClock) {
  const std::string plan = BuyPlan(kAuth, "p5-week", 2);
  Call("CreateModel", {{"ModelName", "m"}});
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "on-plan"},
        {"ProductionVariants",
         {{{"VariantName", "AllTraffic"},
           {"ModelName", "m"},
           {"InstanceType", "ml.p5.48xlarge"},
           {"InitialInstanceCount", 1},
           {"CapacityReservationConfig",
            {{"CapacityReservationPreference", "capacity-reservations-only"},
             {"MlReservationArn", plan}}}}}}});
  Call("CreateEndpoint", {{"EndpointName", "ep"}, {"EndpointConfigName", "on-plan"}});
  Call("CreateTrainingJob",
       {{"TrainingJobName", "job"},
        {"RoleArn", "arn:aws:iam::123456789012:role/r"},
        {"AlgorithmSpecification", {{"TrainingImage", "img"}, {"TrainingInputMode", "File"}}},
        {"OutputDataConfig", {{"S3OutputPath", "s3://b/o"}}},
        {"ResourceConfig",
         {{"InstanceType", "ml.p5.48xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 10}}},
        {"StoppingCondition", {{"MaxRuntimeInSeconds", 86400}}}});

  const json state = State();
  EXPECT_EQ(state["clock"]["now"], "2027-01-25T11:30:00Z");
  EXPECT_EQ(state["clock"]["frozen"], true);
  ASSERT_EQ(state["pools"].size(), 2u);
  EXPECT_EQ(state["pools"][0],
            json::parse(R"({"region": "us-west-2", "availability_zone": "us-west-2a",
              "instance_type": "ml.p5.48xlarge", "reservable": 2, "on_demand": 1,
              "free_reservable": [{"from": "2027-01-25T11:30:00Z", "free": 0},
                                  {"from": "2027-02-01T11:30:00Z", "free": 2}]})"));
  EXPECT_EQ(state["on_demand"], json::parse(R"([{"region": "us-west-2",
              "instance_type": "ml.p5.48xlarge", "total": 1, "in_use": 1}])"))
      << "the job holds the one on-demand p5";
  ASSERT_EQ(state["plans"].size(), 1u);
  EXPECT_EQ(state["plans"][0],
            json({{"name", "p5-week"},
                  {"arn", plan},
                  {"account", "123456789012"},
                  {"region", "us-west-2"},
                  {"availability_zone", "us-west-2a"},
                  {"instance_type", "ml.p5.48xlarge"},
                  {"instance_count", 2},
                  {"in_use", 1},
                  {"start", "2027-01-25T11:30:00Z"},
                  {"end", "2027-02-01T11:30:00Z"},
                  {"status", "Active"},
                  {"target_resources", {"endpoint"}},
                  {"reserved_capacities", state["plans"][0]["reserved_capacities"]}}));
  EXPECT_EQ(state["plans"][0]["reserved_capacities"].size(), 1u);
  EXPECT_EQ(state["plans"][0]["reserved_capacities"][0]["start"], "2027-01-25T11:30:00Z");
  EXPECT_EQ(state["plans"][0]["reserved_capacities"][0]["status"], "Active");
  ASSERT_EQ(state["endpoints"].size(), 1u);
  EXPECT_EQ(state["endpoints"][0]["status"], "InService");
  EXPECT_EQ(state["endpoints"][0]["variants"],
            json::parse(R"([{"name": "AllTraffic", "instance_type": "ml.p5.48xlarge",
              "current_instance_count": 1, "desired_instance_count": 1,
              "training_plan_arn": ")" +
                        plan + R"(", "training_plan_status": "Active"}])"));
  ASSERT_EQ(state["jobs"].size(), 1u);
  const json& job = state["jobs"][0];
  EXPECT_EQ(job["name"], "job");
  EXPECT_EQ(job["kind"], "training-job");
  EXPECT_EQ(job["status"], "InProgress");
  EXPECT_EQ(job["secondary_status"], "Starting");
  EXPECT_EQ(job["instance_type"], "ml.p5.48xlarge");
  EXPECT_EQ(job["instance_count"], 1);
  EXPECT_EQ(job["waiting_seconds"], 0);
  EXPECT_FALSE(job.contains("training_plan_arn"));
  // Its preference list (here one on-demand option) and when it started, for the timeline.
  EXPECT_EQ(job["options"], json::parse(R"([{"instance_type": "ml.p5.48xlarge",
              "instance_count": 1, "on_demand": true}])"));
  EXPECT_EQ(job["started"], "2027-01-25T11:30:00Z");
  EXPECT_FALSE(job.contains("ended"));

  // The version changes only when something was written or the clock moved; ?since= the current
  // one answers just the clock.
  EXPECT_EQ(state["unchanged"], false);
  const std::string version = state["version"];
  EXPECT_EQ(State()["version"], version);
  const json same = State({}, "?since=" + version);
  EXPECT_EQ(same, json({{"version", version}, {"unchanged", true}, {"clock", state["clock"]}}));
  Call("CreateModel", {{"ModelName", "another"}});
  const std::string after_write = State({}, "?since=" + version)["version"];
  EXPECT_NE(after_write, version);
  EXPECT_EQ(State({}, "?since=" + after_write)["unchanged"], true);

  Advance(7 * kDay);
  const json later = State({}, "?since=" + version);
  EXPECT_NE(later["version"], version);
  EXPECT_EQ(later["clock"]["now"], "2027-02-01T11:30:00Z");
  EXPECT_EQ(later["plans"][0]["status"], "Expired");
  EXPECT_EQ(later["endpoints"][0]["status"], "InService")
      << "it stays, its invocations fail until it moves to other capacity";
  EXPECT_EQ(later["jobs"][0]["status"], "Completed");
}

TEST_F(DashboardTest, ASigningCallerSeesItsOwnAccount) {
  const std::string mine = BuyPlan(kAuth, "mine", 2);
  const std::string theirs = BuyPlan(kOtherAuth, "theirs", 1);
  json everything = State();
  ASSERT_EQ(everything["plans"].size(), 2u);

  const json own = State({{"Authorization", kOtherAuth}});
  ASSERT_EQ(own["plans"].size(), 1u);
  EXPECT_EQ(own["plans"][0]["arn"], theirs);
  EXPECT_EQ(own["plans"][0]["account"], kOtherAccount);
  EXPECT_EQ(own["pools"], everything["pools"]) << "capacity is shared: pool counts stay global";
  EXPECT_EQ(own["version"], everything["version"]) << "versions count changes of everything";
  EXPECT_EQ(State({{"Authorization", kAuth}})["plans"][0]["arn"], mine);
}

// A HyperPod cluster: one group on a plan bought for clusters, one on demand. The state shows its
// groups with their nodes by status as the clock moves them, the plan's use, and the quotas in
// force for the caller (unsigned: the server's own account and region) with what they use.
TEST_F(DashboardTest, TheStateShowsClustersAndTheQuotasInForce) {
  router_config_.default_account = "123456789012";
  router_config_.default_region = "us-west-2";
  Reopen("");
  const json set = Admin("POST", "/_emulator/quotas", R"({"quotas": [
      {"name": "ml.p5.48xlarge for cluster usage", "value": 3},
      {"name": "Maximum number instances allowed per SageMaker HyperPod cluster", "value": 4},
      {"name": "Number of training plans per Region", "value": 5, "account": "210987654321"},
      {"name": "ml.p5.48xlarge for endpoint usage", "value": 2, "region": "eu-west-1"}]})");
  ASSERT_EQ(set["quotas"].size(), 4u) << set;
  const std::string plan = BuyPlan(kAuth, "p5-hyperpod", 2, "hyperpod-cluster");
  auto group = [](const std::string& name, int count, const std::string& training_plan) {
    json spec = {{"InstanceGroupName", name},
                 {"InstanceType", "ml.p5.48xlarge"},
                 {"InstanceCount", count},
                 {"ExecutionRole", "arn:aws:iam::123456789012:role/hyperpod"},
                 {"LifeCycleConfig", {{"SourceS3Uri", "s3://b/lc"}, {"OnCreate", "on_create.sh"}}}};
    if (!training_plan.empty()) spec["TrainingPlanArn"] = training_plan;
    return spec;
  };
  const std::string cluster =
      Call("CreateCluster",
           {{"ClusterName", "trainers"},
            {"InstanceGroups", {group("workers", 2, plan), group("head", 1, "")}}})["ClusterArn"];

  const json state = State();
  ASSERT_EQ(state["clusters"].size(), 1u) << state;
  EXPECT_EQ(state["clusters"][0], json::parse(R"({"name": "trainers", "arn": ")" + cluster +
                                              R"(", "account": "123456789012",
      "region": "us-west-2", "status": "InService", "groups": [
        {"name": "workers", "instance_type": "ml.p5.48xlarge", "target_count": 2,
         "current_count": 2, "training_plan_arn": ")" +
                                              plan +
                                              R"(", "training_plan_status": "Active",
         "nodes": {"Pending": 0, "Running": 2, "ShuttingDown": 0}},
        {"name": "head", "instance_type": "ml.p5.48xlarge", "target_count": 1,
         "current_count": 1, "on_demand": true,
         "nodes": {"Pending": 0, "Running": 1, "ShuttingDown": 0}}]})"));
  EXPECT_EQ(state["plans"][0]["in_use"], 2) << "the cluster's workers hold the plan's instances";
  EXPECT_EQ(state["on_demand"][0]["in_use"], 1) << "the head node holds the on-demand p5";
  EXPECT_EQ(state["quotas_for"], json({{"account", "123456789012"}, {"region", "us-west-2"}}));
  EXPECT_EQ(state["quotas"], json::parse(R"([
      {"name": "Maximum number instances allowed per SageMaker HyperPod cluster",
       "value": 4, "used": 3},
      {"name": "ml.p5.48xlarge for cluster usage", "value": 3, "used": 3}])"))
      << "settings for another account or region are not in force here";

  // A signing caller sees its own clusters and its own account's quotas. Its cluster fails: the
  // head node above holds the only on-demand p5.
  CallAs(kOtherAuth, "CreateCluster",
         {{"ClusterName", "late"}, {"InstanceGroups", {group("solo", 1, "")}}});
  const json other = State({{"Authorization", kOtherAuth}});
  ASSERT_EQ(other["clusters"].size(), 1u) << other["clusters"];
  EXPECT_EQ(other["clusters"][0]["name"], "late");
  EXPECT_EQ(other["clusters"][0]["status"], "Failed");
  EXPECT_EQ(other["clusters"][0]["failure_message"],
            "We currently do not have sufficient capacity for the requested instance type(s). "
            "Please try again.");
  EXPECT_EQ(other["clusters"][0]["groups"][0]["nodes"],
            json({{"Pending", 0}, {"Running", 0}, {"ShuttingDown", 0}}));
  EXPECT_EQ(other["quotas_for"], json({{"account", kOtherAccount}, {"region", "us-west-2"}}));
  ASSERT_EQ(other["quotas"].size(), 3u) << other["quotas"];
  EXPECT_EQ(other["quotas"][1], json({{"name", "Number of training plans per Region"},
                                      {"value", 5},
                                      {"used", 0},
                                      {"set_for_account", kOtherAccount}}));
  EXPECT_EQ(other["quotas"][2]["used"], 0) << "the cluster is not theirs";

  // An hour before the plan ends its nodes shut down; the version moves with them. A quota change
  // is a write too.
  const std::string version = state["version"];
  Advance(7 * kDay - 3600);
  const json ending = State({}, "?since=" + version);
  ASSERT_EQ(ending["unchanged"], false);
  EXPECT_EQ(ending["clusters"][0]["groups"][0]["current_count"], 0);
  EXPECT_EQ(ending["clusters"][0]["groups"][0]["nodes"],
            json({{"Pending", 0}, {"Running", 0}, {"ShuttingDown", 2}}))
      << ending["clusters"];
  EXPECT_EQ(ending["quotas"][1]["used"], 3) << "shutting-down nodes still hold their instances";
  Admin("POST", "/_emulator/quotas",
        R"({"quotas": [{"name": "ml.p5.48xlarge for cluster usage", "value": 8}]})");
  const json raised = State({}, "?since=" + ending["version"].get<std::string>());
  ASSERT_EQ(raised["unchanged"], false);
  EXPECT_EQ(raised["quotas"][1]["value"], 8);
  Advance(3600);
  const json ended = State();
  EXPECT_EQ(ended["clusters"][0]["groups"][0]["nodes"],
            json({{"Pending", 0}, {"Running", 0}, {"ShuttingDown", 0}}))
      << "the plan has ended: its nodes are gone";
  EXPECT_EQ(ended["quotas"][1]["used"], 1) << "the head node remains";
}

}  // namespace
}  // namespace smemu
