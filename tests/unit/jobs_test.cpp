// Training and processing jobs: validation of instance options, and the scheduler on the clock
// (order, fallback, queueing, first come first served, pending time, run time, plans).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;
using ::testing::HasSubstr;

// us-west-2: one on-demand ml.p5.48xlarge (and 2 + 1 reservable), two on-demand ml.g5.12xlarge,
// one on-demand ml.m5.xlarge (a CPU type).
constexpr const char* kJobCapacity = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 2, "on_demand": 1},
                   "ml.g5.12xlarge": {"reservable": 0, "on_demand": 2},
                   "ml.m5.xlarge": {"reservable": 0, "on_demand": 1}},
    "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0},
             "ml.g5.12xlarge": {"on_demand_hourly": 7.09, "plan_hourly": 5.0},
             "ml.m5.xlarge": {"on_demand_hourly": 0.23, "plan_hourly": 0.2}}})";

class JobsTest : public EmulatorFixture {
 protected:
  JobsTest() {
    router_.reset();
    emulator_.reset();
    capacity_ = kJobCapacity;
    Open();
  }

  // A training job request; `resources` is its ResourceConfig.
  static json TrainingJob(const std::string& name, json resources, int run_seconds = 100,
                          json stopping = json::object()) {
    json job = {
        {"TrainingJobName", name},
        {"RoleArn", "arn:aws:iam::123456789012:role/r"},
        {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
        {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
        {"ResourceConfig", std::move(resources)},
        {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
    if (!stopping.empty()) job["StoppingCondition"] = std::move(stopping);
    return job;
  }

  static json Plain(const std::string& type, int count) {
    return {{"InstanceType", type}, {"InstanceCount", count}, {"VolumeSizeInGB", 50}};
  }

  static json Preference(const std::string& type, int count = 0, const std::string& plan = "") {
    json preference = {{"InstanceType", type}};
    if (count > 0) preference["InstanceCount"] = count;
    if (!plan.empty()) preference["TrainingPlanArns"] = {plan};
    return preference;
  }

  static json Preferences(std::vector<json> list, int job_count = 0) {
    json resources = {{"InstancePreferences", std::move(list)}, {"VolumeSizeInGB", 50}};
    if (job_count > 0) resources["InstanceCount"] = job_count;
    return resources;
  }

  json Job(const std::string& name) {
    return Call("DescribeTrainingJob", {{"TrainingJobName", name}});
  }

  std::string BuyTrainingPlan(const std::string& name, int count, long long start_after,
                              int days = 7) {
    const json offering = Call("SearchTrainingPlanOfferings",
                               {{"InstanceType", kP5},
                                {"InstanceCount", count},
                                {"DurationHours", days * 24},
                                {"StartTimeAfter", start_after},
                                {"TargetResources", {"training-job"}}})["TrainingPlanOfferings"][0];
    return BuyThenStartTheDay(name, offering);
  }

  long long PlanEnd(const std::string& name) {
    return Call("DescribeTrainingPlan", {{"TrainingPlanName", name}})["EndTime"].get<long long>();
  }

  std::string Refusal(const json& job) {
    const json error = Call("CreateTrainingJob", job, 400);
    EXPECT_EQ(error["__type"], "ValidationException");
    return error["message"];
  }

  void SetOnDemand(const std::string& type, int count) {
    Admin("POST", "/_emulator/capacity",
          json{{"region", "us-west-2"},
               {"availability_zone", "us-west-2a"},
               {"instance_type", type},
               {"on_demand", count}}
              .dump());
  }
};

std::vector<std::string> Statuses(const json& job) {
  std::vector<std::string> statuses;
  for (const json& transition : job["SecondaryStatusTransitions"]) {
    statuses.push_back(transition["Status"]);
  }
  return statuses;
}

TEST_F(JobsTest, APlainJobRunsThroughItsSecondaryStatusesAndCompletes) {
  const json created = Call("CreateTrainingJob", TrainingJob("plain", Plain(kM5, 1)));
  EXPECT_EQ(created["TrainingJobArn"],
            "arn:aws:sagemaker:us-west-2:123456789012:training-job/plain");
  json job = Job("plain");
  EXPECT_EQ(job["TrainingJobStatus"], "InProgress");
  EXPECT_EQ(job["SecondaryStatus"], "Starting");
  EXPECT_EQ(job["ResourceConfig"]["SelectedInstanceType"], kM5);
  EXPECT_EQ(job["ResourceConfig"]["SelectedInstanceCount"], 1);
  EXPECT_EQ(job["TrainingStartTime"], kStartSeconds);
  // The times are reported once the job has ended (the model's minimum is 1 second).
  EXPECT_FALSE(job.contains("TrainingTimeInSeconds"));
  EXPECT_FALSE(job.contains("BillableTimeInSeconds"));
  EXPECT_EQ(job["StoppingCondition"]["MaxRuntimeInSeconds"], 86400);
  EXPECT_EQ(job["ModelArtifacts"]["S3ModelArtifacts"], "s3://bucket/out/plain/output/model.tar.gz");
  Advance(15);
  EXPECT_EQ(Job("plain")["SecondaryStatus"], "Downloading");
  Advance(10);
  EXPECT_EQ(Job("plain")["SecondaryStatus"], "Training");
  Advance(70);
  EXPECT_EQ(Job("plain")["SecondaryStatus"], "Uploading");
  Advance(5);
  job = Job("plain");
  EXPECT_EQ(job["TrainingJobStatus"], "Completed");
  EXPECT_EQ(job["SecondaryStatus"], "Completed");
  EXPECT_EQ(job["TrainingEndTime"], kStartSeconds + 100);
  EXPECT_EQ(job["LastModifiedTime"], kStartSeconds + 100);
  EXPECT_EQ(job["BillableTimeInSeconds"], 100);
  EXPECT_EQ(Statuses(job), (std::vector<std::string>{"Starting", "Downloading", "Training",
                                                     "Uploading", "Completed"}));
  EXPECT_EQ(job["SecondaryStatusTransitions"][2]["StartTime"], kStartSeconds + 20);
  EXPECT_EQ(job["SecondaryStatusTransitions"][2]["EndTime"], kStartSeconds + 90);
}

// DescribeTrainingJob shows back what CreateTrainingJob was given, but only the members its own
// output shape has (the fixture checks every answer against the model).
TEST_F(JobsTest, DescribeShowsBackOnlyTheMembersItsOutputShapeHas) {
  json job = TrainingJob("chained", Plain("ml.m5.xlarge", 1));
  job["SessionChainingConfig"] = {{"EnableSessionTagChaining", true}};
  job["RetryStrategy"] = {{"MaximumRetryAttempts", 2}};
  job["Tags"] = json::array({{{"Key", "team"}, {"Value", "ml"}}});
  Call("CreateTrainingJob", job);
  const json described = Job("chained");
  EXPECT_EQ(described["RetryStrategy"], job["RetryStrategy"]);
  EXPECT_FALSE(described.contains("SessionChainingConfig"));
  EXPECT_FALSE(described.contains("Tags"));
}

TEST_F(JobsTest, PreferencesAreTriedInOrderAndTheSelectionIsRecorded) {
  // Two p5 are wanted but only one is on demand: the second preference runs.
  Call("CreateTrainingJob",
       TrainingJob("fallback", Preferences({Preference(kP5), Preference(kG5)}, 2)));
  const json fallback = Job("fallback");
  EXPECT_EQ(fallback["ResourceConfig"]["SelectedInstanceType"], kG5);
  EXPECT_EQ(fallback["ResourceConfig"]["SelectedInstanceCount"], 2);
  EXPECT_EQ(fallback["ResourceConfig"]["InstancePreferences"].size(), 2u);  // echoed as given
  // With per-preference counts the first fits.
  Call("CreateTrainingJob",
       TrainingJob("first", Preferences({Preference(kP5, 1), Preference(kG5, 1)})));
  EXPECT_EQ(Job("first")["ResourceConfig"]["SelectedInstanceType"], kP5);
}

TEST_F(JobsTest, WaitingJobsStartFirstComeFirstServedWhenInstancesAreReleased) {
  Call("CreateTrainingJob", TrainingJob("one", Plain(kP5, 1), 100));
  Advance(1);
  Call("CreateTrainingJob", TrainingJob("two", Plain(kP5, 1), 100));
  Advance(1);
  Call("CreateTrainingJob", TrainingJob("three", Preferences({Preference(kP5, 1)}), 100));
  EXPECT_EQ(Job("two")["SecondaryStatus"], "Pending");
  EXPECT_FALSE(Job("two")["ResourceConfig"].contains("SelectedInstanceType"));
  Advance(500);  // one ends at +100, two runs +100..+200, three +200..+300
  const json two = Job("two");
  EXPECT_EQ(two["TrainingStartTime"], kStartSeconds + 100);
  EXPECT_EQ(two["TrainingEndTime"], kStartSeconds + 200);
  EXPECT_EQ(Statuses(two).front(), "Pending");
  EXPECT_EQ(two["SecondaryStatusTransitions"][0]["EndTime"], kStartSeconds + 100);
  EXPECT_EQ(Job("three")["TrainingStartTime"], kStartSeconds + 200);
  EXPECT_EQ(Job("three")["TrainingJobStatus"], "Completed");
}

TEST_F(JobsTest, StoppingAJobReleasesItsInstancesToTheNextInLine) {
  Call("CreateTrainingJob", TrainingJob("long", Plain(kP5, 1), 10000));
  Call("CreateTrainingJob", TrainingJob("next", Plain(kP5, 1), 100));
  Advance(50);
  Call("StopTrainingJob", {{"TrainingJobName", "long"}});
  const json stopped = Job("long");
  EXPECT_EQ(stopped["TrainingJobStatus"], "Stopped");
  EXPECT_EQ(stopped["SecondaryStatus"], "Stopped");
  EXPECT_EQ(stopped["TrainingEndTime"], kStartSeconds + 50);
  EXPECT_EQ(Job("next")["TrainingStartTime"], kStartSeconds + 50);
  EXPECT_EQ(Call("StopTrainingJob", {{"TrainingJobName", "long"}}, 400)["message"],
            "The request was rejected because the training job is in status Stopped.");
  EXPECT_EQ(stopped["TrainingTimeInSeconds"], 50);
  EXPECT_EQ(stopped["BillableTimeInSeconds"], 50);
  Call("StopTrainingJob", {{"TrainingJobName", "next"}});  // a running job; a pending one below
  // Stopped in the second it started: billed the model's minimum of one second, not 0.
  EXPECT_EQ(Job("next")["TrainingTimeInSeconds"], 1);
  EXPECT_EQ(Job("next")["BillableTimeInSeconds"], 1);
  Call("CreateTrainingJob", TrainingJob("a", Plain(kP5, 1)));
  Call("CreateTrainingJob", TrainingJob("b", Plain(kP5, 1)));
  Call("StopTrainingJob", {{"TrainingJobName", "b"}});
  EXPECT_EQ(Job("b")["TrainingJobStatus"], "Stopped");
  EXPECT_FALSE(Job("b").contains("TrainingStartTime"));
}

// As on SageMaker, a stop passes through Stopping (status and secondary status) while the
// instances shut down, for the provisioning delay; the instances are held until Stopped.
TEST_F(JobsTest, AStoppedJobIsStoppingForTheProvisioningDelayAndRecordsEveryStep) {
  router_.reset();
  emulator_.reset();
  hosting_.provisioning_delay = Millis{30'000};
  Open();
  Call("CreateTrainingJob", TrainingJob("long", Plain(kP5, 1), 10000));
  Call("CreateTrainingJob", TrainingJob("next", Plain(kP5, 1), 100));
  Advance(50);
  Call("StopTrainingJob", {{"TrainingJobName", "long"}});
  json stopping = Job("long");
  EXPECT_EQ(stopping["TrainingJobStatus"], "Stopping");
  EXPECT_EQ(stopping["SecondaryStatus"], "Stopping");
  EXPECT_FALSE(stopping.contains("TrainingEndTime"));
  EXPECT_EQ(Statuses(stopping), (std::vector<std::string>{"Starting", "Stopping"}));
  EXPECT_EQ(stopping["SecondaryStatusTransitions"][0]["EndTime"], kStartSeconds + 50);
  EXPECT_EQ(stopping["SecondaryStatusTransitions"][1]["StartTime"], kStartSeconds + 50);
  EXPECT_FALSE(stopping["SecondaryStatusTransitions"][1].contains("EndTime"));
  EXPECT_EQ(Call("StopTrainingJob", {{"TrainingJobName", "long"}}, 400)["message"],
            "The request was rejected because the training job is in status Stopping.");
  const json listed = Call("ListTrainingJobs", {{"StatusEquals", "Stopping"}});
  ASSERT_EQ(listed["TrainingJobSummaries"].size(), 1u);
  EXPECT_EQ(listed["TrainingJobSummaries"][0]["SecondaryStatus"], "Stopping");
  EXPECT_EQ(Job("next")["SecondaryStatus"], "Pending") << "a stopping job holds its instances";

  Advance(30);
  const json stopped = Job("long");
  EXPECT_EQ(stopped["TrainingJobStatus"], "Stopped");
  EXPECT_EQ(stopped["SecondaryStatus"], "Stopped");
  EXPECT_EQ(stopped["TrainingEndTime"], kStartSeconds + 80);
  EXPECT_EQ(Statuses(stopped), (std::vector<std::string>{"Starting", "Stopping", "Stopped"}));
  const json& steps = stopped["SecondaryStatusTransitions"];
  EXPECT_EQ(steps[1]["EndTime"], kStartSeconds + 80);
  EXPECT_EQ(steps[2]["StartTime"], kStartSeconds + 80);
  EXPECT_EQ(steps[2]["EndTime"], kStartSeconds + 80);
  for (const json& step : steps) EXPECT_TRUE(step.contains("EndTime")) << step;
  EXPECT_EQ(Job("next")["TrainingStartTime"], kStartSeconds + 80);

  // A job stopped while it waits, and a processing job, pass through Stopping too.
  Call("CreateTrainingJob", TrainingJob("waiting", Plain(kP5, 1)));
  Call("StopTrainingJob", {{"TrainingJobName", "waiting"}});
  EXPECT_EQ(Statuses(Job("waiting")), (std::vector<std::string>{"Pending", "Stopping"}));
  Call("CreateProcessingJob",
       {{"ProcessingJobName", "proc"},
        {"RoleArn", "arn:aws:iam::123456789012:role/r"},
        {"AppSpecification", {{"ImageUri", "img:1"}}},
        {"ProcessingResources",
         {{"ClusterConfig",
           {{"VolumeSizeInGB", 30}, {"InstanceType", kM5}, {"InstanceCount", 1}}}}}});
  Call("StopProcessingJob", {{"ProcessingJobName", "proc"}});
  EXPECT_EQ(Call("DescribeProcessingJob", {{"ProcessingJobName", "proc"}})["ProcessingJobStatus"],
            "Stopping");
  Advance(30);
  EXPECT_EQ(Statuses(Job("waiting")), (std::vector<std::string>{"Pending", "Stopping", "Stopped"}));
  EXPECT_EQ(Call("DescribeProcessingJob", {{"ProcessingJobName", "proc"}})["ProcessingJobStatus"],
            "Stopped");
}

TEST_F(JobsTest, MaxRuntimeStopsAJob) {
  Call("CreateTrainingJob",
       TrainingJob("capped", Plain(kM5, 1), 1000, {{"MaxRuntimeInSeconds", 100}}));
  Advance(100);
  const json job = Job("capped");
  EXPECT_EQ(job["TrainingJobStatus"], "Stopped");
  EXPECT_EQ(job["SecondaryStatus"], "MaxRuntimeExceeded");
  EXPECT_EQ(job["TrainingEndTime"], kStartSeconds + 100);
}

TEST_F(JobsTest, AJobWaitsForItsPlanWithoutSpendingPendingTime) {
  const std::string plan = BuyTrainingPlan("later", 1, kStartSeconds + 2 * kDay);
  Call("CreateTrainingJob", TrainingJob("on-plan", Preferences({Preference(kP5, 1, plan)}), 100,
                                        {{"MaxPendingTimeInSeconds", 7200}}));
  EXPECT_EQ(Job("on-plan")["SecondaryStatus"], "Pending");
  // Listed with its plan while it waits for it.
  EXPECT_EQ(
      Call("ListTrainingJobs", {{"TrainingPlanArnEquals", plan}})["TrainingJobSummaries"].size(),
      1u);
  Advance(2 * kDay - 1);  // far beyond 7200 s, but the plan has not started: nothing counts
  EXPECT_EQ(Job("on-plan")["TrainingJobStatus"], "InProgress");
  Advance(1);
  const json job = Job("on-plan");
  EXPECT_EQ(job["TrainingStartTime"], kPlanStartSeconds + 2 * kDay);
  EXPECT_EQ(job["ResourceConfig"]["SelectedInstanceType"], kP5);
  const json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "later"}});
  EXPECT_EQ(described["InUseInstanceCount"], 1);
  EXPECT_EQ(described["AvailableInstanceCount"], 0);
  const json listed = Call("ListTrainingJobs", {{"TrainingPlanArnEquals", plan}});
  ASSERT_EQ(listed["TrainingJobSummaries"].size(), 1u);
  EXPECT_EQ(listed["TrainingJobSummaries"][0]["TrainingPlanArn"], plan);
}

// "The job waits only if the list includes at least one accelerated computing instance type, such
// as ml.p, ml.g, or ml.trn. A CPU-only list is evaluated once: the job starts if one of the types
// has capacity, and otherwise fails with a capacity error without being re-evaluated."
// (instance preferences for training jobs)
TEST_F(JobsTest, PendingTimeRunsOutOnAcceleratedListsAndACpuListIsEvaluatedOnce) {
  SetOnDemand(kP5, 0);
  SetOnDemand(kM5, 0);
  Call("CreateTrainingJob",
       TrainingJob("gpu", Plain(kP5, 1), 100, {{"MaxPendingTimeInSeconds", 7200}}));
  Call("CreateTrainingJob",
       TrainingJob("cpu", Plain(kM5, 1), 100, {{"MaxPendingTimeInSeconds", 7200}}));
  const json cpu = Job("cpu");
  EXPECT_EQ(cpu["TrainingJobStatus"], "Failed");
  EXPECT_EQ(cpu["FailureReason"],
            "InsufficientCapacityError: Unable to provision requested ML compute capacity. Please "
            "retry using a different ML instance type.");
  EXPECT_EQ(cpu["LastModifiedTime"], kStartSeconds);
  EXPECT_FALSE(cpu.contains("TrainingStartTime"));
  Call("CreateTrainingJob",
       TrainingJob("cpu-list", Preferences({Preference(kM5, 1), Preference("ml.c5.xlarge", 1)}),
                   100));
  EXPECT_EQ(Job("cpu-list")["ResourceConfig"]["SelectedInstanceType"], "ml.c5.xlarge")
      << "a type the capacity file does not limit has capacity";
  Advance(7199);
  EXPECT_EQ(Job("gpu")["TrainingJobStatus"], "InProgress");
  Advance(10);
  const json gpu = Job("gpu");
  EXPECT_EQ(gpu["TrainingJobStatus"], "Failed");
  EXPECT_EQ(gpu["SecondaryStatus"], "Failed");
  EXPECT_EQ(gpu["FailureReason"],
            "InsufficientCapacityError: No instance preference got capacity within "
            "MaxPendingTimeInSeconds (7200 seconds).");
  EXPECT_EQ(gpu["LastModifiedTime"], kStartSeconds + 7200);
  EXPECT_FALSE(gpu.contains("TrainingStartTime"));
}

// "If the required capacity is not immediately available for a training job, the job waits until it
// becomes available, or until the StoppingCondition is met, or the job has been Pending for
// capacity for 2 days, whichever comes first. [...] If a job has been pending for 2 days, it is
// terminated with an InsufficientCapacityError." (training plans for training jobs). The two days
// count as MaxPendingTimeInSeconds does: not while the plan has yet to start.
TEST_F(JobsTest, AJobPendingOnAPlanForTwoDaysFailsWithInsufficientCapacity) {
  const long long plan_start = kPlanStartSeconds + 3 * kDay;
  const std::string plan = BuyTrainingPlan("week", 1, plan_start, 7);
  Call("CreateTrainingJob", TrainingJob("holder", Preferences({Preference(kP5, 1, plan)}), 6 * kDay,
                                        {{"MaxRuntimeInSeconds", 7 * kDay}}));
  Call("CreateTrainingJob", TrainingJob("waiter", Preferences({Preference(kP5, 1, plan)}), 100));
  Advance(3 * kDay);  // the plan starts; the holder takes its one instance
  ASSERT_EQ(Job("holder")["TrainingStartTime"], plan_start);
  Advance(2 * kDay - 1);
  EXPECT_EQ(Job("waiter")["SecondaryStatus"], "Pending") << "the three Scheduled days do not count";
  Advance(1);
  const json waiter = Job("waiter");
  EXPECT_EQ(waiter["TrainingJobStatus"], "Failed");
  EXPECT_EQ(waiter["FailureReason"],
            "InsufficientCapacityError: The job was pending for capacity on its training plan for "
            "2 days.");
  EXPECT_EQ(waiter["LastModifiedTime"], plan_start + 2 * kDay);
  // A MaxPendingTimeInSeconds shorter than two days wins, with its own words.
  Call("CreateTrainingJob", TrainingJob("impatient", Preferences({Preference(kP5, 1, plan)}), 100,
                                        {{"MaxPendingTimeInSeconds", 7200}}));
  Advance(7200);
  EXPECT_EQ(Job("impatient")["FailureReason"],
            "InsufficientCapacityError: No instance preference got capacity within "
            "MaxPendingTimeInSeconds (7200 seconds).");
}

// "You have full access to all reserved instances until 30 minutes before the Reserved Capacity
// end time. When there are 30 minutes remaining in your Reserved Capacity, SageMaker training
// plans begin the process of terminating any running instances within that Reserved Capacity."
// (training plans for training jobs)
TEST_F(JobsTest, AJobOnAPlanIsStoppedThirtyMinutesBeforeThePlanEnds) {
  const std::string plan = BuyTrainingPlan("day", 1, kStartSeconds, 1);
  const long long plan_end = PlanEnd("day");
  Call("CreateTrainingJob", TrainingJob("too-long", Preferences({Preference(kP5, 1, plan)}),
                                        3 * 86400, {{"MaxRuntimeInSeconds", 5 * 86400}}));
  Advance(plan_end - kPlanStartSeconds - 1801);  // BuyTrainingPlan left the clock at 11:30
  EXPECT_EQ(Job("too-long")["TrainingJobStatus"], "InProgress");
  Advance(1);
  const json job = Job("too-long");
  EXPECT_EQ(job["TrainingJobStatus"], "Failed");
  EXPECT_EQ(job["FailureReason"],
            "The job was stopped 30 minutes before the end of training plan " + plan +
                ", when the plan terminates its instances.");
  EXPECT_EQ(job["TrainingEndTime"], plan_end - 1800);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "day"}})["InUseInstanceCount"], 0);
  // In the last 30 minutes no job starts on the plan: it waits until the plan ends, then fails.
  Call("CreateTrainingJob", TrainingJob("late", Preferences({Preference(kP5, 1, plan)}), 60));
  EXPECT_EQ(Job("late")["SecondaryStatus"], "Pending");
  Advance(1800);
  EXPECT_EQ(Job("late")["FailureReason"],
            "Every instance preference of the job is on a training plan that has ended.");
}

// "To achieve this, you can use the SAGEMAKER_CURRENT_CAPACITY_BLOCK_EXPIRATION_TIMESTAMP
// environment variable. This variable helps determine when to initiate the checkpointing
// process." AWS's sample reads it as whole epoch seconds. The emulator runs no training container:
// the dashboard's state shows what one would find.
TEST_F(JobsTest, AJobOnAPlanIsToldWhenItsCapacityBlockExpires) {
  const std::string plan = BuyTrainingPlan("week", 1, kStartSeconds, 7);
  const long long plan_end = PlanEnd("week");
  Call("CreateTrainingJob", TrainingJob("on-plan", Preferences({Preference(kP5, 1, plan)}), 3600));
  SetOnDemand(kM5, 1);
  Call("CreateTrainingJob", TrainingJob("on-demand", Plain(kM5, 1), 3600));
  std::map<std::string, json> jobs;
  const json state = Admin("GET", "/_emulator/state");
  for (const json& job : state["jobs"]) {
    jobs[job["name"].get<std::string>()] = job;
  }
  EXPECT_EQ(
      jobs["on-plan"]["environment"],
      json({{"SAGEMAKER_CURRENT_CAPACITY_BLOCK_EXPIRATION_TIMESTAMP", std::to_string(plan_end)}}));
  EXPECT_FALSE(jobs["on-demand"].contains("environment"));
}

TEST_F(JobsTest, EndpointsAndJobsCompeteForTheSameInstances) {
  Call("CreateModel", {{"ModelName", "m"}});
  Call("CreateEndpointConfig", {{"EndpointConfigName", "c"},
                                {"ProductionVariants",
                                 {{{"VariantName", "AllTraffic"},
                                   {"ModelName", "m"},
                                   {"InstanceType", kP5},
                                   {"InitialInstanceCount", 1}}}}});
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "c"}});
  Call("CreateTrainingJob", TrainingJob("waits", Plain(kP5, 1)));
  EXPECT_EQ(Job("waits")["SecondaryStatus"], "Pending");
  Advance(30);
  Call("DeleteEndpoint", {{"EndpointName", "e"}});
  EXPECT_EQ(Job("waits")["TrainingStartTime"], kStartSeconds + 30);
  // And the other way round: the running job leaves no on-demand p5 for an endpoint.
  Call("CreateEndpoint", {{"EndpointName", "e2"}, {"EndpointConfigName", "c"}});
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "e2"}})["EndpointStatus"], "Failed");
}

TEST_F(JobsTest, TheAdminCapacityViewShowsWhoHoldsWhichInstances) {
  const std::string plan = BuyTrainingPlan("held", 1, kStartSeconds);
  Call("CreateTrainingJob", TrainingJob("on-plan", Preferences({Preference(kP5, 1, plan)})));
  Call("CreateTrainingJob", TrainingJob("on-demand", Plain(kG5, 2)));
  const json view =
      Admin("GET", "/_emulator/capacity?region=us-west-2", "", {{"Authorization", kAuth}});
  const json on_plan = {{"arn", "arn:aws:sagemaker:us-west-2:123456789012:training-job/on-plan"},
                        {"kind", "training-job"},
                        {"region", "us-west-2"},
                        {"instance_type", kP5},
                        {"count", 1},
                        {"training_plan_arn", plan}};
  const json on_demand = {
      {"arn", "arn:aws:sagemaker:us-west-2:123456789012:training-job/on-demand"},
      {"kind", "training-job"},
      {"region", "us-west-2"},
      {"instance_type", kG5},
      {"count", 2},
      {"on_demand", true}};
  EXPECT_EQ(view["in_use"], json({on_demand, on_plan}));  // endpoints, then jobs by name
  EXPECT_EQ(Admin("GET", "/_emulator/capacity?region=us-west-2")["in_use"].size(), 2u)
      << "the local operator (no credentials, no token configured) sees everything";
  EXPECT_EQ(Admin("GET", "/_emulator/capacity?instance_type=ml.g5.12xlarge", "",
                  {{"Authorization", kAuth}})["in_use"]
                .size(),
            1u);
  // Without the admin token, another account sees the pools but none of these plans or holders.
  const std::string other_account =
      "AWS4-HMAC-SHA256 Credential=210987654321/20270125/us-west-2/sagemaker/aws4_request, "
      "SignedHeaders=host, Signature=0";
  const json other =
      Admin("GET", "/_emulator/capacity?region=us-west-2", "", {{"Authorization", other_account}});
  EXPECT_EQ(other["in_use"], json::array());
  EXPECT_FALSE(other["pools"].empty());
  for (const json& pool : other["pools"]) EXPECT_EQ(pool["reservations"], json::array());
  Advance(100);  // both completed: nothing held
  EXPECT_EQ(Admin("GET", "/_emulator/capacity", "", {{"Authorization", kAuth}})["in_use"],
            json::array());
}

TEST_F(JobsTest, EveryInstancePreferenceRuleIsChecked) {
  const std::string endpoint_plan = [&] {
    const json offering = Call("SearchTrainingPlanOfferings",
                               {{"InstanceType", kP5},
                                {"InstanceCount", 1},
                                {"DurationHours", 24},
                                {"TargetResources", {"endpoint"}}})["TrainingPlanOfferings"][0];
    return Call("CreateTrainingPlan",
                {{"TrainingPlanName", "for-endpoints"},
                 {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"]
        .get<std::string>();
  }();
  const std::string plan = BuyTrainingPlan("mine", 1, kStartSeconds);
  const auto job = [](json resources) { return TrainingJob("j", std::move(resources)); };

  json with_type = Preferences({Preference(kP5, 1)});
  with_type["InstanceType"] = kP5;
  EXPECT_EQ(Refusal(job(with_type)),
            "InstancePreferences cannot be combined with ResourceConfig.InstanceType.");
  json with_groups = Preferences({Preference(kP5, 1)});
  with_groups["InstanceGroups"] = {
      {{"InstanceType", kP5}, {"InstanceCount", 1}, {"InstanceGroupName", "g"}}};
  EXPECT_EQ(Refusal(job(with_groups)),
            "InstancePreferences cannot be combined with ResourceConfig.InstanceGroups.");
  json with_placement = Preferences({Preference(kP5, 1)});
  with_placement["InstancePlacementConfig"] = {{"EnableMultipleJobs", true}};
  EXPECT_EQ(Refusal(job(with_placement)),
            "InstancePreferences cannot be combined with ResourceConfig.InstancePlacementConfig.");
  json spot = job(Preferences({Preference(kP5, 1)}));
  spot["EnableManagedSpotTraining"] = true;
  EXPECT_EQ(Refusal(spot),
            "InstancePreferences cannot be combined with EnableManagedSpotTraining.");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5, 1), Preference(kP5, 2)}))),
            "Instance type ml.p5.48xlarge appears more than once in InstancePreferences.");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5, 1), Preference(kG5)}))),
            "InstanceCount must be specified on every instance preference or on none of them.");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5, 1)}, 1))),
            "Specify InstanceCount either on every instance preference or in ResourceConfig, not "
            "both.");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5)}))),
            "Specify InstanceCount on every instance preference or in ResourceConfig.");
  json both_plans = Preferences({Preference(kP5, 1, plan)});
  both_plans["TrainingPlanArn"] = plan;
  EXPECT_EQ(Refusal(job(both_plans)),
            "TrainingPlanArns in InstancePreferences cannot be combined with "
            "ResourceConfig.TrainingPlanArn.");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kG5, 1, plan)}))),
            "Instance type ml.g5.12xlarge does not match the instance type of training plan " +
                plan + " (ml.p5.48xlarge).");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5, 1, endpoint_plan)}))),
            "Training plan " + endpoint_plan +
                " was not bought for training jobs (its TargetResources do not include "
                "training-job).");
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5, 2, plan)}))),
            "Requested instance count (2) exceeds reserved capacity (1) for training plan.");
  // An unknown plan is the operation's modelled ResourceNotFound, not a ValidationException.
  const std::string missing = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/nope";
  for (const json& resources :
       {Preferences({Preference(kP5, 1, missing)}), json{{"InstanceType", kP5},
                                                         {"InstanceCount", 1},
                                                         {"VolumeSizeInGB", 50},
                                                         {"TrainingPlanArn", missing}}}) {
    const json error = Call("CreateTrainingJob", job(resources), 400);
    EXPECT_EQ(error["__type"], "ResourceNotFound");
    EXPECT_EQ(error["message"],
              "Training plan " + missing + " does not exist in this account and region.");
  }
  EXPECT_THAT(
      Refusal(job(Preferences({Preference(kP5, 1), Preference(kG5, 1), Preference(kM5, 1),
                               Preference("ml.c5.xlarge", 1), Preference("ml.c5.2xlarge", 1),
                               Preference("ml.c5.4xlarge", 1)}))),
      HasSubstr("Member must have length less than or equal to 5"));
  EXPECT_EQ(Refusal(job({{"VolumeSizeInGB", 50}})),
            "ResourceConfig must have InstanceType and InstanceCount, or InstancePreferences.");
  Advance(8 * kDay);
  EXPECT_EQ(Refusal(job(Preferences({Preference(kP5, 1, plan)}))),
            "Training plan " + plan + " has expired.");
}

TEST_F(JobsTest, NamesAreUniqueAndMissingJobsAreValidationErrors) {
  Call("CreateTrainingJob", TrainingJob("dup", Plain(kM5, 1)));
  const json duplicate = Call("CreateTrainingJob", TrainingJob("dup", Plain(kM5, 1)), 400);
  EXPECT_EQ(duplicate["__type"], "ResourceInUse");
  EXPECT_EQ(duplicate["message"],
            "Training job names must be unique within an AWS account and region, and a training "
            "job with this name already exists "
            "(arn:aws:sagemaker:us-west-2:123456789012:training-job/dup)");
  const json missing = Call("DescribeTrainingJob", {{"TrainingJobName", "nope"}}, 400);
  EXPECT_EQ(missing["__type"], "ValidationException");
  EXPECT_EQ(missing["message"], "Requested resource not found.");
  EXPECT_EQ(Call("StopTrainingJob", {{"TrainingJobName", "nope"}}, 400)["message"],
            "Requested resource not found.");
}

TEST_F(JobsTest, ListTrainingJobsFiltersAndPages) {
  SetOnDemand(kP5, 1);  // an accelerated type, so that jobs wait for it
  for (const char* name : {"a", "b", "c"}) {
    Call("CreateTrainingJob", TrainingJob(name, Plain(kP5, 1), 100));
    Advance(1);
  }
  Advance(500);  // a, b, c run one after the other
  Call("CreateTrainingJob", TrainingJob("d", Plain(kP5, 1), 100));
  // Newest first: d (running), c, b, a. As AWS documents, MaxResults jobs are taken first and
  // then filtered by StatusEquals: the first page holds c only.
  const json completed =
      Call("ListTrainingJobs", {{"StatusEquals", "Completed"}, {"MaxResults", 2}});
  ASSERT_EQ(completed["TrainingJobSummaries"].size(), 1u);
  EXPECT_EQ(completed["TrainingJobSummaries"][0]["TrainingJobName"], "c");
  EXPECT_EQ(completed["TrainingJobSummaries"][0]["SecondaryStatus"], "Completed");
  const json rest = Call(
      "ListTrainingJobs",
      {{"StatusEquals", "Completed"}, {"MaxResults", 2}, {"NextToken", completed["NextToken"]}});
  ASSERT_EQ(rest["TrainingJobSummaries"].size(), 2u);
  EXPECT_EQ(rest["TrainingJobSummaries"][0]["TrainingJobName"], "b");
  EXPECT_EQ(rest["TrainingJobSummaries"][1]["TrainingJobName"], "a");
  EXPECT_FALSE(rest.contains("NextToken"));
  const json running = Call("ListTrainingJobs", {{"StatusEquals", "InProgress"}});
  ASSERT_EQ(running["TrainingJobSummaries"].size(), 1u);
  EXPECT_EQ(running["TrainingJobSummaries"][0]["SecondaryStatus"], "Starting");
}

json ProcessingJob(const std::string& name, json cluster) {
  return {{"ProcessingJobName", name},
          {"RoleArn", "arn:aws:iam::123456789012:role/r"},
          {"AppSpecification", {{"ImageUri", "img:1"}}},
          {"ProcessingResources", {{"ClusterConfig", std::move(cluster)}}},
          {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
          {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", "100"}}}};
}

// A processing job that finds no capacity fails as a training job does: "If a job has been pending
// for 2 days, it is terminated with an InsufficientCapacityError" names the error, and every
// failure for want of capacity starts with it.
TEST_F(JobsTest, AProcessingJobWithoutCapacityFailsWithInsufficientCapacityError) {
  SetOnDemand(kM5, 0);
  Call("CreateProcessingJob",
       ProcessingJob("starved",
                     {{"VolumeSizeInGB", 30}, {"InstanceType", kM5}, {"InstanceCount", 1}}));
  const json job = Call("DescribeProcessingJob", {{"ProcessingJobName", "starved"}});
  EXPECT_EQ(job["ProcessingJobStatus"], "Failed");
  EXPECT_EQ(job["FailureReason"],
            "InsufficientCapacityError: Unable to provision requested ML compute capacity. Please "
            "retry using a different ML instance type.");
}

TEST_F(JobsTest, ProcessingJobsUseTheSamePreferencesWithoutPlans) {
  SetOnDemand(kG5, 0);
  Call("CreateProcessingJob",
       ProcessingJob(
           "prep", {{"VolumeSizeInGB", 30},
                    {"InstanceCount", 1},
                    {"InstancePreferences", {{{"InstanceType", kG5}}, {{"InstanceType", kM5}}}}}));
  json job = Call("DescribeProcessingJob", {{"ProcessingJobName", "prep"}});
  EXPECT_EQ(job["ProcessingJobStatus"], "InProgress");
  EXPECT_EQ(job["ProcessingResources"]["ClusterConfig"]["SelectedInstanceType"], kM5);
  EXPECT_EQ(job["ProcessingResources"]["ClusterConfig"]["SelectedInstanceCount"], 1);
  EXPECT_EQ(job["ProcessingStartTime"], kStartSeconds);
  Advance(100);
  job = Call("DescribeProcessingJob", {{"ProcessingJobName", "prep"}});
  EXPECT_EQ(job["ProcessingJobStatus"], "Completed");
  EXPECT_EQ(job["ProcessingEndTime"], kStartSeconds + 100);
  const json listed = Call("ListProcessingJobs", json::object());
  EXPECT_EQ(listed["ProcessingJobSummaries"][0]["ProcessingJobStatus"], "Completed");

  // ProcessingInstancePreference has no TrainingPlanArns in the model (api-facts: "No
  // TrainingPlanArns here"): like any member the model does not have, one sent is ignored, and the
  // job waits for on-demand ml.g5.12xlarge (none here) like any other.
  Call("CreateProcessingJob",
       ProcessingJob("planned",
                     {{"VolumeSizeInGB", 30},
                      {"InstanceCount", 1},
                      {"InstancePreferences",
                       {{{"InstanceType", kG5},
                         {"TrainingPlanArns",
                          {"arn:aws:sagemaker:us-west-2:123456789012:training-plan/p"}}}}}}));
  const json planned = Call("DescribeProcessingJob", {{"ProcessingJobName", "planned"}});
  EXPECT_EQ(planned["ProcessingResources"]["ClusterConfig"]["InstancePreferences"],
            json::parse(R"([{"InstanceType": "ml.g5.12xlarge"}])"));
  EXPECT_EQ(planned["ProcessingJobStatus"], "InProgress");
  EXPECT_FALSE(planned["ProcessingResources"]["ClusterConfig"].contains("SelectedInstanceType"));
  const json with_type =
      Call("CreateProcessingJob",
           ProcessingJob("typed", {{"VolumeSizeInGB", 30},
                                   {"InstanceType", kM5},
                                   {"InstanceCount", 1},
                                   {"InstancePreferences", {{{"InstanceType", kG5}}}}}),
           400);
  EXPECT_EQ(with_type["message"],
            "InstancePreferences cannot be combined with ClusterConfig.InstanceType.");
  EXPECT_EQ(Call("DescribeProcessingJob", {{"ProcessingJobName", "nope"}}, 400)["message"],
            "Could not find requested job with name nope");
  Call("CreateProcessingJob",
       ProcessingJob("stop-me",
                     {{"VolumeSizeInGB", 30}, {"InstanceType", kM5}, {"InstanceCount", 1}}));
  Call("StopProcessingJob", {{"ProcessingJobName", "stop-me"}});
  EXPECT_EQ(
      Call("DescribeProcessingJob", {{"ProcessingJobName", "stop-me"}})["ProcessingJobStatus"],
      "Stopped");
}

}  // namespace
}  // namespace smemu
