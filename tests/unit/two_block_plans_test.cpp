// Plans of two reserved capacities through the router, on the virtual clock: the search that
// offers them, the purchase, what DescribeTrainingPlan, DescribeReservedCapacity and
// ListTrainingPlans show before, inside, between and after the blocks, and the jobs and HyperPod
// nodes that lose their instances at a block's end and get them back at the next block's start.
//
// AWS: "SageMaker training plans don't return a 'no capacity' result if a single continuous
// Reserved Capacity block meeting all criteria is unavailable. Instead, it automatically attempts
// to fulfill the request using two separate Reserved Capacity blocks"; "Multiple Reserved Capacity
// blocks in a single training plan may be discontinuous" (Reserve training plans); "For plans with
// multiple discontinuous reserved capacities, the status reverts to Scheduled between active
// periods, until the start date of the next reserved capacity" (View training plan details).
#include <string>

#include "emulator_fixture.hpp"

namespace smemu::testing {
namespace {

// One zone of one ml.p5.48xlarge, and an on-demand type for jobs that need none.
constexpr const char* kOneInstance = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}})";

using testing::kP5;

// The start of plan day `day`: 0 is the first, kPlanStartSeconds.
long long Day(int day) { return kPlanStartSeconds + day * kDay; }

class TwoBlockPlansTest : public EmulatorFixture {
 protected:
  TwoBlockPlansTest() {
    router_.reset();
    emulator_.reset();
    capacity_ = kOneInstance;
    Open();
  }

  json SearchFor(const std::string& target, int days, long long after, long long before) {
    return Call("SearchTrainingPlanOfferings",
                {{"InstanceType", kP5},
                 {"InstanceCount", 1},
                 {"DurationHours", days * 24},
                 {"StartTimeAfter", after},
                 {"EndTimeBefore", before},
                 {"TargetResources", {target}}})["TrainingPlanOfferings"];
  }

  // Another plan takes the one instance on plan day 2, so that three days from day 0 that end by
  // day 5 fit in no single block: days 0 and 1, then day 3.
  json SplitOffering(const std::string& target) {
    const json day_two = SearchFor(target, 1, Day(2), Day(3));
    EXPECT_EQ(day_two.size(), 1u);
    EXPECT_EQ(day_two[0]["ReservedCapacityOfferings"][0]["StartTime"], Day(2));
    Call("CreateTrainingPlan", {{"TrainingPlanName", "day-two"},
                                {"TrainingPlanOfferingId", day_two[0]["TrainingPlanOfferingId"]}});
    const json offerings = SearchFor(target, 3, Day(0), Day(5));
    EXPECT_EQ(offerings.size(), 1u) << offerings.dump();
    return offerings.at(0);
  }

  std::string BuySplit(const std::string& target) {
    return Call("CreateTrainingPlan",
                {{"TrainingPlanName", "split"},
                 {"TrainingPlanOfferingId",
                  SplitOffering(target)["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  }

  json Plan() { return Call("DescribeTrainingPlan", {{"TrainingPlanName", "split"}}); }

  std::vector<std::string> PlanStatuses() {
    const json plan = Plan();
    std::vector<std::string> statuses{plan["Status"]};
    for (const json& capacity : plan["ReservedCapacitySummaries"]) {
      statuses.push_back(capacity["Status"]);
    }
    return statuses;
  }

  std::vector<std::string> PlansListedAs(const std::string& status) {
    std::vector<std::string> names;
    const json plans =
        Call("ListTrainingPlans", {{"Filters", {{{"Name", "Status"}, {"Value", status}}}}});
    for (const json& plan : plans["TrainingPlanSummaries"]) {
      names.push_back(plan["TrainingPlanName"]);
    }
    return names;
  }

  static json TrainingJob(const std::string& name, const std::string& plan, int run_seconds) {
    return {{"TrainingJobName", name},
            {"RoleArn", "arn:aws:iam::123456789012:role/r"},
            {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
            {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
            {"ResourceConfig",
             {{"InstanceType", kP5},
              {"InstanceCount", 1},
              {"VolumeSizeInGB", 50},
              {"TrainingPlanArn", plan}}},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 5 * kDay}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
  }

  json Job(const std::string& name) {
    return Call("DescribeTrainingJob", {{"TrainingJobName", name}});
  }

  std::vector<std::string> NodeStatuses(const std::string& cluster) {
    std::vector<std::string> statuses;
    const json nodes = Call("ListClusterNodes", {{"ClusterName", cluster}});
    for (const json& node : nodes["ClusterNodeSummaries"]) {
      statuses.push_back(node["InstanceStatus"]["Status"]);
    }
    return statuses;
  }
};

using Names = std::vector<std::string>;

TEST_F(TwoBlockPlansTest, TheSearchOffersTwoBlocksWhenNoSingleOneFits) {
  const json offering = SplitOffering("training-job");
  const json& blocks = offering["ReservedCapacityOfferings"];
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0]["StartTime"], Day(0));
  EXPECT_EQ(blocks[0]["EndTime"], Day(2));
  EXPECT_EQ(blocks[0]["DurationHours"], 48);
  EXPECT_EQ(blocks[1]["StartTime"], Day(3));
  EXPECT_EQ(blocks[1]["EndTime"], Day(4));
  EXPECT_EQ(blocks[1]["DurationHours"], 24);
  for (const json& block : blocks) {
    EXPECT_EQ(block["AvailabilityZone"], "us-west-2a");
    EXPECT_EQ(block["InstanceType"], kP5);
    EXPECT_EQ(block["InstanceCount"], 1);
  }
  // The plan's hours are the blocks' together, as asked; the fee pays for them, not the gap.
  EXPECT_EQ(offering["DurationHours"], 72);
  EXPECT_EQ(offering["DurationMinutes"], 0);
  EXPECT_EQ(offering["UpfrontFee"], "3960.00");  // 72 h x 55.00
}

TEST_F(TwoBlockPlansTest, APlanIsActiveInEachBlockAndScheduledBetweenThem) {
  const std::string arn = BuySplit("training-job");
  const json plan = Plan();
  EXPECT_EQ(plan["StartTime"], Day(0));
  EXPECT_EQ(plan["EndTime"], Day(4));
  EXPECT_EQ(plan["DurationHours"], 72);
  const json& capacities = plan["ReservedCapacitySummaries"];
  ASSERT_EQ(capacities.size(), 2u);
  EXPECT_NE(capacities[0]["ReservedCapacityArn"], capacities[1]["ReservedCapacityArn"]);
  EXPECT_EQ(capacities[1]["StartTime"], Day(3));
  EXPECT_EQ(capacities[1]["TotalInstanceCount"], 1);

  // Each reserved capacity answers for itself.
  const json second = Call("DescribeReservedCapacity",
                           {{"ReservedCapacityArn", capacities[1]["ReservedCapacityArn"]}});
  EXPECT_EQ(second["StartTime"], Day(3));
  EXPECT_EQ(second["EndTime"], Day(4));
  EXPECT_EQ(second["Status"], "Scheduled");

  EXPECT_EQ(PlanStatuses(), (Names{"Scheduled", "Scheduled", "Scheduled"}));
  AdvanceTo(Day(0));
  EXPECT_EQ(PlanStatuses(), (Names{"Active", "Active", "Scheduled"}));
  AdvanceTo(Day(2));
  EXPECT_EQ(PlanStatuses(), (Names{"Scheduled", "Expired", "Scheduled"}));
  EXPECT_THAT(PlansListedAs("Scheduled"), ::testing::Contains("split"));
  EXPECT_THAT(PlansListedAs("Active"), ::testing::Not(::testing::Contains("split")));
  AdvanceTo(Day(3));
  EXPECT_EQ(PlanStatuses(), (Names{"Active", "Expired", "Active"}));
  EXPECT_THAT(PlansListedAs("Active"), ::testing::Contains("split"));
  AdvanceTo(Day(4));
  EXPECT_EQ(PlanStatuses(), (Names{"Expired", "Expired", "Expired"}));
  EXPECT_THAT(PlansListedAs("Expired"), ::testing::Contains("split"));
  EXPECT_FALSE(arn.empty());
}

TEST_F(TwoBlockPlansTest, EachBlockIsReservedInTheLedgerAndStaysSoAfterARestart) {
  BuySplit("training-job");
  const json before = Admin("GET", "/_emulator/state")["pools"][0]["free_reservable"];
  // Day 0 to day 4 taken (day 2 by the other plan), free again from day 4.
  EXPECT_EQ(before, json::parse(R"([{"from": "2027-01-25T00:00:00Z", "free": 1},
                                    {"from": "2027-01-25T11:30:00Z", "free": 0},
                                    {"from": "2027-01-29T11:30:00Z", "free": 1}])"));
  router_.reset();
  emulator_.reset();
  Open();  // the ledger is rebuilt from the store
  EXPECT_EQ(Admin("GET", "/_emulator/state")["pools"][0]["free_reservable"], before);
  EXPECT_EQ(Plan()["ReservedCapacitySummaries"].size(), 2u);
}

// "When there are 30 minutes remaining in your Reserved Capacity, SageMaker training plans begin
// the process of terminating any running instances within that Reserved Capacity"; checkpoints let
// training "resume from the last saved point if your job is interrupted between two reserved
// capacities" (Training plans utilization for SageMaker training jobs). A job of two days' run
// time started with the first block is interrupted 30 minutes before it ends, waits through the
// gap (its pending time not counting) and finishes its last 30 minutes in the second block; a job
// created in the gap waits behind it.
TEST_F(TwoBlockPlansTest, AJobInterruptedAtTheFirstBlocksEndGoesOnInTheSecond) {
  const std::string plan = BuySplit("training-job");
  AdvanceTo(Day(0));
  Call("CreateTrainingJob", TrainingJob("long", plan, 2 * static_cast<int>(kDay)));
  EXPECT_EQ(Job("long")["TrainingStartTime"], Day(0));
  AdvanceTo(Day(2) - 1800);
  json long_job = Job("long");
  EXPECT_EQ(long_job["TrainingJobStatus"], "InProgress");
  EXPECT_EQ(long_job["SecondaryStatus"], "Interrupted");
  EXPECT_EQ(Plan()["InUseInstanceCount"], 0);

  AdvanceTo(Day(2));  // between the blocks
  Call("CreateTrainingJob", TrainingJob("waiting", plan, 100));
  EXPECT_EQ(Job("waiting")["SecondaryStatus"], "Pending");
  AdvanceTo(Day(3));
  EXPECT_EQ(Job("long")["SecondaryStatus"], "Uploading") << "the last 30 minutes of its run";
  EXPECT_EQ(Plan()["InUseInstanceCount"], 1);
  EXPECT_EQ(Job("waiting")["SecondaryStatus"], "Pending") << "the plan's one instance is taken";
  // The job checkpoints by the end of the block it runs in.
  auto expiry_of = [&](const std::string& name) {
    const json state = Admin("GET", "/_emulator/state");
    for (const json& job : state["jobs"]) {
      if (job["name"] == name)
        return job["environment"].value("SAGEMAKER_CURRENT_CAPACITY_BLOCK_EXPIRATION_TIMESTAMP",
                                        "");
    }
    return std::string();
  };
  EXPECT_EQ(expiry_of("long"), std::to_string(Day(4)));

  AdvanceTo(Day(3) + 1800);
  long_job = Job("long");
  EXPECT_EQ(long_job["TrainingJobStatus"], "Completed");
  EXPECT_EQ(long_job["TrainingEndTime"], Day(3) + 1800);
  EXPECT_EQ(long_job["TrainingTimeInSeconds"], 2 * kDay) << "the gap is not training time";
  std::vector<std::string> secondary;
  for (const json& step : long_job["SecondaryStatusTransitions"]) {
    secondary.push_back(step["Status"].get<std::string>() + "@" +
                        std::to_string(step["StartTime"].get<long long>()));
  }
  // Uploading (the last tenth of the run) had begun when the block's end interrupted it; it
  // resumes with the job.
  EXPECT_EQ(secondary, (Names{"Starting@" + std::to_string(Day(0)),
                              "Downloading@" + std::to_string(Day(0) + kDay / 5),
                              "Training@" + std::to_string(Day(0) + 2 * kDay / 5),
                              "Uploading@" + std::to_string(Day(0) + 2 * kDay * 9 / 10),
                              "Interrupted@" + std::to_string(Day(2) - 1800),
                              "Uploading@" + std::to_string(Day(3)),
                              "Completed@" + std::to_string(Day(3) + 1800)}));
  EXPECT_EQ(Job("waiting")["TrainingStartTime"], Day(3) + 1800);
}

// HyperPod takes a block's instances back from its last hour; between the blocks the group waits
// with pending nodes, which run when the next block opens.
// "The endpoint only functions during the reservation window specified in the training plan"
// (Using training plans for SageMaker inference endpoints): between the blocks it answers a
// capacity error, and it serves again when the second block opens.
TEST_F(TwoBlockPlansTest, AnEndpointServesInEachBlockAndNotBetweenThem) {
  const std::string plan = BuySplit("endpoint");
  AdvanceTo(Day(0));
  Call("CreateModel", {{"ModelName", "m"},
                       {"PrimaryContainer", {{"Image", "img:1"}}},
                       {"ExecutionRoleArn", "arn:aws:iam::123456789012:role/r"}});
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "on-plan"},
        {"ProductionVariants",
         {{{"VariantName", "AllTraffic"},
           {"ModelName", "m"},
           {"InstanceType", kP5},
           {"InitialInstanceCount", 1},
           {"CapacityReservationConfig",
            {{"CapacityReservationPreference", "capacity-reservations-only"},
             {"MlReservationArn", plan}}}}}}});
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "on-plan"}});
  Advance(600);
  auto invoke = [this] {
    return router_->Handle({"POST", "/endpoints/e/invocations", {{"Authorization", kAuth}}, "x"});
  };
  EXPECT_EQ(invoke().status, 200);
  AdvanceTo(Day(2) + 60);
  const auto between = invoke();
  EXPECT_EQ(between.status, 424);
  EXPECT_EQ(json::parse(between.body)["__type"], "ModelError");
  EXPECT_EQ(json::parse(between.body)["message"],
            "Endpoint capacity reservation is not active until 2027-01-28T11:30:00Z. Please "
            "retry then.");
  AdvanceTo(Day(3));
  EXPECT_EQ(invoke().status, 200);
  AdvanceTo(Day(4));
  EXPECT_EQ(invoke().status, 424);
}

TEST_F(TwoBlockPlansTest, HyperPodNodesLeaveAtABlocksEndAndComeBackWithTheNext) {
  const std::string plan = BuySplit("hyperpod-cluster");
  AdvanceTo(Day(0));
  Call("CreateCluster",
       {{"ClusterName", "c"},
        {"InstanceGroups",
         {{{"InstanceGroupName", "g"},
           {"InstanceType", kP5},
           {"InstanceCount", 1},
           {"ExecutionRole", "arn:aws:iam::123456789012:role/hyperpod"},
           {"TrainingPlanArn", plan},
           {"LifeCycleConfig",
            {{"SourceS3Uri", "s3://bucket/lifecycle"}, {"OnCreate", "on_create.sh"}}}}}}});
  Advance(600);
  EXPECT_EQ(NodeStatuses("c"), (Names{"Running"}));
  AdvanceTo(Day(2) - 3600);
  EXPECT_EQ(NodeStatuses("c"), (Names{"ShuttingDown"}));
  AdvanceTo(Day(2));
  EXPECT_EQ(NodeStatuses("c"), (Names{"Pending"}));
  AdvanceTo(Day(3));
  EXPECT_EQ(NodeStatuses("c"), (Names{"Running"}));
  AdvanceTo(Day(4));
  EXPECT_EQ(NodeStatuses("c"), (Names{}));
}

}  // namespace
}  // namespace smemu::testing
