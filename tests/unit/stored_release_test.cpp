// A database written by an earlier release opens, migrates and answers exactly as that release
// did. Each folder of tests/fixtures/ holds a state file written by one release (resources of
// every kind in every status, tags, a frozen clock) and every answer that release gave to the
// Describe and List operations, the tag listings and the admin views, read back from it. The test
// opens a copy of the file and asks the same questions: any change in how records are stored or
// decoded that a client could see fails here, byte for byte.
//
// - before-kind-registry/: written by the release before the kind registry.
// - before-one-state/: written by the release before the operations and the store shared one
//   state (ab9e4cc): the story below, which adds to the first one's the purchases whose payment
//   fails or is still Pending, UltraServer and two-block plans, extensions, jobs that fail for
//   want of capacity, by a fault rule or for waiting too long, endpoints on instance pools and
//   on a plan whose payment failed, failed cluster nodes, changed quotas and pools, and removed
//   tags. Fault rules live in memory (docs/faults.md): the database keeps what they did, not them.
//
// `unit_tests --gtest_also_run_disabled_tests --gtest_filter=StoredReleaseFixture.DISABLED_Record`
// writes the newest fixture again (kRecorded: the database and the answers). Do that only to add
// a fixture for a new release, in a new folder (a new StoredFixture, and kRecorded pointing at
// it): the point of the old ones is that the code that wrote them is gone.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(SMEMU_SOURCE_DIR) / "tests/fixtures";

// Every pool a story needs: a plan pool per target, limited on-demand pools for refusals and
// waits, and types the configuration does not limit.
constexpr const char* kStoredCapacity = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 8, "on_demand": 0},
                   "ml.g5.12xlarge": {"reservable": 0, "on_demand": 2}},
    "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0},
             "ml.g5.12xlarge": {"on_demand_hourly": 7.09, "plan_hourly": 5.0},
             "ml.m5.xlarge": {"on_demand_hourly": 0.23, "plan_hourly": 0.2}}})";

// The same, with one reservable ml.p4d.24xlarge (a plan of two blocks, around another plan's day)
// and one UltraServer of 18 ml.p6e-gb200.36xlarge.
constexpr const char* kOneStateCapacity = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 8, "on_demand": 0},
                   "ml.g5.12xlarge": {"reservable": 0, "on_demand": 2}},
    "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0},
                   "ml.p4d.24xlarge": {"reservable": 1, "on_demand": 0}},
    "us-west-2-dfw-2a": {"ml.p6e-gb200.36xlarge": {"reservable": 18, "on_demand": 0,
        "ultraserver_type": "ml.u-p6e-gb200x72", "instances_per_ultraserver": 18}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0},
             "ml.g5.12xlarge": {"on_demand_hourly": 7.09, "plan_hourly": 5.0},
             "ml.m5.xlarge": {"on_demand_hourly": 0.23, "plan_hourly": 0.2},
             "ml.p4d.24xlarge": {"on_demand_hourly": 37.69, "plan_hourly": 21.0},
             "ml.p6e-gb200.36xlarge": {"on_demand_hourly": 188.62, "plan_hourly": 105.63}}})";

constexpr long long kProvisioningSeconds = 600;

// Members the emulator has added to its answers since a release, by design (each with the change
// that added it): the recorded answers predate them, so they are left out of today's answers
// before the comparison. Everything else must still match byte for byte.
struct AddedMember {
  const char* name;
  const char* only_in;  // the one question's target whose answers have it; nullptr: any
};

// One stored release: its folder, the configuration it ran with (the database does not keep it),
// what has been added to the answers since, and the statuses its answers must show.
struct StoredFixture {
  const char* folder;
  const char* capacity;
  Millis plan_payment_delay;
  std::vector<AddedMember> added_since;
  std::vector<std::string> statuses;
};

// The statuses of every kind with a lifecycle, as the first fixture has them.
const std::vector<std::string> kEveryLifecycleStatus = {
    "DescribeEndpoint Creating",       "DescribeEndpoint InService",
    "DescribeEndpoint Updating",       "DescribeEndpoint Deleting",
    "DescribeEndpoint Failed",         "DescribeTrainingPlan Scheduled",
    "DescribeTrainingPlan Active",     "DescribeTrainingPlan Expired",
    "DescribeTrainingJob InProgress",  "DescribeTrainingJob Completed",
    "DescribeTrainingJob Failed",      "DescribeTrainingJob Stopping",
    "DescribeTrainingJob Stopped",     "DescribeProcessingJob InProgress",
    "DescribeProcessingJob Completed", "DescribeProcessingJob Stopping",
    "DescribeProcessingJob Stopped",   "DescribeCluster Creating",
    "DescribeCluster InService",       "DescribeCluster Updating",
    "DescribeCluster Deleting",        "DescribeCluster Failed"};

std::vector<std::string> WithStatuses(std::vector<std::string> statuses,
                                      const std::vector<std::string>& more) {
  statuses.insert(statuses.end(), more.begin(), more.end());
  return statuses;
}

const StoredFixture kBeforeKindRegistry = {
    "before-kind-registry",
    kStoredCapacity,
    Millis{0},  // paid at once: payments took no time yet
    {
        {"AvailabilityZoneId", nullptr},  // reserved capacities, extensions, node placements (29)
        // The state view's running jobs on plans: the block's expiry (29).
        {"environment", nullptr},
        {"StatusMessage", "DescribeTrainingPlan"},  // "Payment confirmed, training plan scheduled."
        {"StatusMessage", "ListTrainingPlans"},
        {"reserved_capacities", nullptr},  // the state view's plans: each reserved capacity (29)
        {"faults", "/_emulator/state"},    // the state view's fault rules (30)
    },
    kEveryLifecycleStatus};

const StoredFixture kBeforeOneState = {
    "before-one-state",
    kOneStateCapacity,
    kDefaultPlanPaymentDelay,
    {},
    WithStatuses(
        kEveryLifecycleStatus,
        {"DescribeTrainingPlan Pending", "DescribeTrainingPlan Failed",
         "DescribeProcessingJob Failed", "DescribeReservedCapacity Pending",
         "DescribeReservedCapacity Scheduled", "DescribeReservedCapacity Active",
         "DescribeReservedCapacity Expired", "DescribeReservedCapacity Failed",
         "Extension Pending/Pending", "Extension Failed/Failed", "Extension Scheduled/Completed",
         "Node Running", "Node ShuttingDown", "Node Failure", "UltraServer Impaired"})};

// The fixture DISABLED_Record writes: the newest one.
const StoredFixture& kRecorded = kBeforeOneState;

// A database file of this test process's own.
fs::path Scratch(const std::string& name) {
  return fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".db");
}

class StoredReleaseTest : public EmulatorFixture {
 protected:
  explicit StoredReleaseTest(const std::string& db) : EmulatorFixture(db, Unopened{}) {}
};

// ---- Writing the fixture (DISABLED_Record)

class StoryWriter : public StoredReleaseTest {
 protected:
  StoryWriter() : StoredReleaseTest(Scratch("stored-release-story").string()) {
    capacity_ = kRecorded.capacity;
    hosting_.provisioning_delay = Millis{kProvisioningSeconds * 1000};
    hosting_.plan_payment_delay = kRecorded.plan_payment_delay;
    Open();
  }

  std::string Buy(const std::string& name, const json& search, json more = json::object()) {
    const json offerings = Call("SearchTrainingPlanOfferings", search);
    EXPECT_FALSE(offerings["TrainingPlanOfferings"].empty()) << search.dump();
    json input = {
        {"TrainingPlanName", name},
        {"TrainingPlanOfferingId", offerings["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]},
        {"Tags", {{{"Key", "team"}, {"Value", name}}}}};
    input.update(more);
    return Call("CreateTrainingPlan", input)["TrainingPlanArn"];
  }

  std::string BuyPlan(const std::string& name, const std::string& target, long long start_after,
                      int days, int count = 1) {
    return Buy(name, {{"InstanceType", kP5},
                      {"InstanceCount", count},
                      {"DurationHours", days * 24},
                      {"StartTimeAfter", start_after},
                      {"TargetResources", {target}}});
  }

  // Buys the first extension offered for the plan `arn`.
  void Extend(const std::string& arn) {
    const json offerings = Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}});
    ASSERT_FALSE(offerings["TrainingPlanExtensionOfferings"].empty()) << arn;
    Call("ExtendTrainingPlan",
         {{"TrainingPlanExtensionOfferingId",
           offerings["TrainingPlanExtensionOfferings"][0]["TrainingPlanExtensionOfferingId"]}});
  }

  // An admin call that must succeed.
  void AdminOk(const std::string& method, const std::string& target, const json& body) {
    const protocol::HttpResponse response = router_->Handle({method, target, {}, body.dump()});
    EXPECT_EQ(response.status, 200) << target << " " << body.dump() << ": " << response.body;
  }

  void Config(const std::string& name, const std::string& type, int count,
              const std::string& plan = "") {
    json variant = {{"VariantName", "AllTraffic"},
                    {"ModelName", "model-v1"},
                    {"InstanceType", type},
                    {"InitialInstanceCount", count}};
    if (!plan.empty()) {
      variant["CapacityReservationConfig"] = {
          {"CapacityReservationPreference", "capacity-reservations-only"},
          {"MlReservationArn", plan}};
    }
    Call("CreateEndpointConfig", {{"EndpointConfigName", name},
                                  {"ProductionVariants", {variant}},
                                  {"Tags", {{{"Key", "config"}, {"Value", name}}}}});
  }

  void Endpoint(const std::string& name, const std::string& config) {
    Call("CreateEndpoint", {{"EndpointName", name},
                            {"EndpointConfigName", config},
                            {"Tags", {{{"Key", "owner"}, {"Value", "fixture"}}}}});
  }

  static json TrainingJob(const std::string& name, json resources, int run_seconds,
                          json stopping = json::object()) {
    json job = {
        {"TrainingJobName", name},
        {"RoleArn", kRole},
        {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
        {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
        {"ResourceConfig", std::move(resources)},
        {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}},
        {"Tags", {{{"Key", "job"}, {"Value", name}}}}};
    if (!stopping.empty()) job["StoppingCondition"] = std::move(stopping);
    return job;
  }

  static json ProcessingJob(const std::string& name, json cluster, int run_seconds) {
    return {{"ProcessingJobName", name},
            {"RoleArn", kRole},
            {"AppSpecification", {{"ImageUri", "img:1"}}},
            {"ProcessingResources", {{"ClusterConfig", std::move(cluster)}}},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
  }

  static json Plain(const std::string& type, int count) {
    return {{"InstanceType", type}, {"InstanceCount", count}, {"VolumeSizeInGB", 50}};
  }

  static json OnPlan(const std::string& type, const std::string& plan) {
    return {{"InstanceType", type},
            {"InstanceCount", 1},
            {"VolumeSizeInGB", 50},
            {"TrainingPlanArn", plan}};
  }

  static json Group(const std::string& name, const std::string& type, int count,
                    const std::string& plan = "") {
    json group = {{"InstanceGroupName", name},
                  {"InstanceType", type},
                  {"InstanceCount", count},
                  {"ExecutionRole", kRole},
                  {"LifeCycleConfig",
                   {{"SourceS3Uri", "s3://bucket/lifecycle"}, {"OnCreate", "on_create.sh"}}}};
    if (!plan.empty()) group["TrainingPlanArn"] = plan;
    return group;
  }

  void Cluster(const std::string& name, std::vector<json> groups,
               const json& settings = json::object()) {
    json input = {{"ClusterName", name},
                  {"InstanceGroups", std::move(groups)},
                  {"Tags", {{{"Key", "cluster"}, {"Value", name}}}}};
    input.update(settings);
    Call("CreateCluster", input);
  }

  // The story: plans that expire, run, wait, are paid for or not, and are extended; endpoints,
  // jobs and clusters that end, run, fail (for want of capacity, by a fault rule, on a plan whose
  // payment failed) and are caught mid-transition when the clock stops; the admin API's changes.
  // The clock stops at 2027-01-27T00:21:00Z. (before-kind-registry was written by the part of it
  // without payment delays, fault rules, the ml.p4d.24xlarge and UltraServer plans, extensions and
  // admin changes.)
  void Write() {
    // What the fault rules make fail. The rules themselves are not stored; what they did is.
    AdminOk("POST", "/_emulator/faults",
            {{"rules",
              {{{"id", "declined"},
                {"operation", "CreateTrainingPlan"},
                {"resource", "plan-payment-failed"},
                {"payment", {{"status_message", "The payment method was declined."}}}},
               {{"id", "extension-declined"},
                {"operation", "ExtendTrainingPlan"},
                {"resource", "plan-clusters"},
                {"payment", json::object()}},
               {{"operation", "CreateTrainingJob"},
                {"resource", "tj-no-capacity"},
                {"no_capacity", json::object()}},
               {{"operation", "CreateProcessingJob"},
                {"resource", "pj-no-capacity"},
                {"no_capacity", json::object()}},
               {{"operation", "CreateEndpoint"},
                {"resource", "ep-no-capacity"},
                {"no_capacity", json::object()}},
               {{"operation", "CreateCluster"},
                {"resource", "cl-no-capacity"},
                {"no_capacity", json::object()}},
               {{"operation", "CreateTrainingJob"},
                {"resource", "tj-fault"},
                {"job_failure",
                 {{"after_seconds", 300},
                  {"failure_reason", "CapacityError: Insufficient capacity to continue."}}}},
               {{"operation", "CreateProcessingJob"},
                {"resource", "pj-fault"},
                {"job_failure", {{"after_seconds", 120}}}}}}});

    Call("CreateModel",
         {{"ModelName", "model-v1"},
          {"PrimaryContainer", {{"Image", "img:1"}, {"Environment", {{"STAGE", "one"}}}}},
          {"ExecutionRoleArn", kRole},
          {"Tags", {{{"Key", "model"}, {"Value", "v1"}}}}});
    Call("CreateModel", {{"ModelName", "model-v2"}});

    const std::string expiring = BuyPlan("plan-expired", "training-job", kStartSeconds, 1);
    const std::string endpoints_plan = BuyPlan("plan-endpoints", "endpoint", kStartSeconds, 14, 2);
    const std::string jobs_plan = BuyPlan("plan-jobs", "training-job", kStartSeconds, 14);
    const std::string clusters_plan =
        BuyPlan("plan-clusters", "hyperpod-cluster", kStartSeconds, 14, 2);
    BuyPlan("plan-scheduled", "hyperpod-cluster", kStartSeconds + 20 * kDay, 3);
    // Pending for 30 seconds, then Failed: the endpoint that named it meanwhile fails with it.
    const std::string failing_plan =
        BuyPlan("plan-payment-failed", "endpoint", kStartSeconds + 3 * kDay, 2);
    // One UltraServer for three days from 11:30, one spare.
    const std::string ultra_plan =
        Buy("plan-ultraserver", {{"UltraServerType", "ml.u-p6e-gb200x72"},
                                 {"UltraServerCount", 1},
                                 {"DurationHours", 72},
                                 {"TargetResources", {"hyperpod-cluster"}}});
    // The one ml.p4d.24xlarge: day 1 is sold, so three days from day 0 are two blocks (days 0,
    // then 2 and 3), and the clock stops between them.
    const json p4d = {{"InstanceType", "ml.p4d.24xlarge"},
                      {"InstanceCount", 1},
                      {"TargetResources", {"training-job"}}};
    json day_one = p4d;
    day_one.update({{"DurationHours", 24},
                    {"StartTimeAfter", kPlanStartSeconds + kDay},
                    {"EndTimeBefore", kPlanStartSeconds + 2 * kDay}});
    Buy("plan-day-one", day_one);
    json split = p4d;
    split.update({{"DurationHours", 72},
                  {"StartTimeAfter", kPlanStartSeconds},
                  {"EndTimeBefore", kPlanStartSeconds + 4 * kDay}});
    const std::string two_blocks = Buy("plan-two-blocks", split);

    // Ended before the clock stops.
    Call("CreateTrainingJob", TrainingJob("tj-completed", Plain(kM5, 1), 100));
    // Runs until its plan ends (more than a day: the plan starts half an hour from now).
    Call("CreateTrainingJob", TrainingJob("tj-plan-ended", OnPlan(kP5, expiring), 10 * 86400,
                                          {{"MaxRuntimeInSeconds", 5 * 86400}}));
    Call("CreateTrainingJob",
         TrainingJob("tj-max-runtime", Plain(kM5, 1), 10000, {{"MaxRuntimeInSeconds", 300}}));
    Call("CreateTrainingJob", TrainingJob("tj-stopped", Plain(kM5, 2), 10000));
    Call("CreateTrainingJob", TrainingJob("tj-no-capacity", Plain(kM5, 1), 100));
    Call("CreateTrainingJob", TrainingJob("tj-fault", Plain(kM5, 1), 1000));
    // Both ml.g5.12xlarge for three hours: the next one waits, and gives up after two.
    Call("CreateTrainingJob", TrainingJob("tj-g5-first", Plain(kG5, 2), 3 * 3600));
    Call("CreateTrainingJob",
         TrainingJob("tj-pending-timeout", Plain(kG5, 1), 100,
                     {{"MaxRuntimeInSeconds", 3600}, {"MaxPendingTimeInSeconds", 7200}}));
    // Waits for its plan's first block, runs in it, and waits for the second when the clock stops.
    Call("CreateTrainingJob", TrainingJob("tj-two-blocks", OnPlan("ml.p4d.24xlarge", two_blocks),
                                          2 * 86400, {{"MaxRuntimeInSeconds", 5 * 86400}}));
    Call("CreateProcessingJob",
         ProcessingJob("pj-completed",
                       {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}}, 100));
    Call("CreateProcessingJob",
         ProcessingJob("pj-stopped",
                       {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}},
                       10000));
    Call("CreateProcessingJob",
         ProcessingJob("pj-no-capacity",
                       {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}}, 100));
    Call(
        "CreateProcessingJob",
        ProcessingJob("pj-fault",
                      {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}}, 1000));
    Config("config-on-demand", "ml.g5.xlarge", 1);
    Config("config-plan", kP5, 1, endpoints_plan);
    Config("config-none-free", kP5, 1);  // no on-demand ml.p5.48xlarge: the endpoint fails
    Config("config-payment-failed", kP5, 1, failing_plan);
    Endpoint("ep-deleted-later", "config-on-demand");
    Endpoint("ep-no-capacity", "config-on-demand");
    Endpoint("ep-payment-failed", "config-payment-failed");
    Cluster("cl-deleted", {Group("workers", kM5, 1)});
    Cluster("cl-no-capacity", {Group("workers", kM5, 1)});
    Advance(kProvisioningSeconds);
    Call("StopTrainingJob", {{"TrainingJobName", "tj-stopped"}});
    Call("StopProcessingJob", {{"ProcessingJobName", "pj-stopped"}});
    Call("DeleteEndpoint", {{"EndpointName", "ep-deleted-later"}});
    Call("DeleteCluster", {{"ClusterName", "cl-deleted"}});
    Advance(2 * kDay);  // plan-expired ends, and the job on it with it

    // Settled, running and failed.
    const long long settled = kStartSeconds + kProvisioningSeconds + 2 * kDay;
    AdminOk("POST", "/_emulator/quotas",
            {{"quotas",
              {{{"name", "ml.g5.12xlarge for training job usage"}, {"value", 4}},
               {{"name", "Number of training plans per Region"}, {"value", 20}},
               {{"name", "ml.p5.48xlarge for endpoint usage"},
                {"value", 8},
                {"account", kAccount},
                {"region", kRegion}}}}});
    Extend(jobs_plan);      // paid 30 seconds later
    Extend(clusters_plan);  // its payment fails
    Endpoint("ep-in-service", "config-on-demand");
    Endpoint("ep-on-plan", "config-plan");
    Endpoint("ep-failed", "config-none-free");
    Endpoint("ep-updating", "config-on-demand");
    Endpoint("ep-deleting", "config-on-demand");
    Endpoint("ep-weights", "config-on-demand");
    // No on-demand ml.p5.48xlarge: the variant falls back to its second pool.
    Call("CreateEndpointConfig", {{"EndpointConfigName", "config-pools"},
                                  {"ProductionVariants",
                                   {{{"VariantName", "AllTraffic"},
                                     {"ModelName", "model-v2"},
                                     {"InitialInstanceCount", 1},
                                     {"InstancePools",
                                      {{{"InstanceType", kP5}, {"Priority", 1}},
                                       {{"InstanceType", "ml.g5.xlarge"}, {"Priority", 2}}}}}}}});
    Endpoint("ep-pools", "config-pools");
    Cluster("cl-in-service", {Group("workers", kM5, 2)});
    Cluster("cl-on-plan", {Group("gpus", kP5, 2, clusters_plan), Group("cpus", kM5, 1)});
    Cluster("cl-failed", {Group("gpus", kP5, 1)});  // no on-demand ml.p5.48xlarge
    Cluster("cl-updating", {Group("workers", kM5, 1)});
    Cluster("cl-deleting", {Group("workers", kM5, 1)});
    Cluster("cl-ultraserver", {Group("gpus", "ml.p6e-gb200.36xlarge", 4, ultra_plan)});
    Cluster("cl-no-recovery", {Group("workers", kM5, 2)}, {{"NodeRecovery", "None"}});
    // A node of each fails half a minute after they are all running: the UltraServer's is replaced
    // (a spare stands in), the other stays in Failure.
    AdminOk("POST", "/_emulator/faults",
            {{"rules",
              {{{"id", "bad-gpu"},
                {"resource", "cl-ultraserver"},
                {"node_failure", {{"at", settled + kProvisioningSeconds + 30}}}},
               {{"id", "bad-host"},
                {"resource", "cl-no-recovery"},
                {"node_failure", {{"at", settled + kProvisioningSeconds + 30}}}}}}});
    Call("CreateTrainingJob", TrainingJob("tj-on-plan", OnPlan(kP5, jobs_plan), 10 * 86400));
    Call("CreateTrainingJob", TrainingJob("tj-g5-running", Plain(kG5, 2), 86400));
    Call("CreateTrainingJob",
         TrainingJob("tj-waiting",
                     {{"InstancePreferences", {{{"InstanceType", kG5}, {"InstanceCount", 1}}}},
                      {"VolumeSizeInGB", 50}},
                     100));
    Call(
        "CreateProcessingJob",
        ProcessingJob("pj-running",
                      {{"InstanceCount", 1},
                       {"VolumeSizeInGB", 30},
                       {"InstancePreferences", {{{"InstanceType", kG5}}, {{"InstanceType", kM5}}}}},
                      86400));
    Call("CreateProcessingJob", ProcessingJob("pj-waiting",
                                              {{"InstanceCount", 1},
                                               {"VolumeSizeInGB", 30},
                                               {"InstancePreferences", {{{"InstanceType", kG5}}}}},
                                              100));
    Call("CreateTrainingJob", TrainingJob("tj-stopping", Plain(kM5, 1), 86400));
    Call("CreateProcessingJob",
         ProcessingJob("pj-stopping",
                       {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}},
                       86400));
    Advance(kProvisioningSeconds);

    // Caught mid-transition when the clock stops.
    Config("config-on-demand-2", "ml.g5.xlarge", 2);
    Call("UpdateEndpoint",
         {{"EndpointName", "ep-updating"}, {"EndpointConfigName", "config-on-demand-2"}});
    Call(
        "UpdateEndpointWeightsAndCapacities",
        {{"EndpointName", "ep-weights"},
         {"DesiredWeightsAndCapacities",
          {{{"VariantName", "AllTraffic"}, {"DesiredWeight", 2.0}, {"DesiredInstanceCount", 3}}}}});
    Call("DeleteEndpoint", {{"EndpointName", "ep-deleting"}});
    Endpoint("ep-creating", "config-on-demand");
    Call("UpdateCluster",
         {{"ClusterName", "cl-updating"}, {"InstanceGroups", {Group("workers", kM5, 3)}}});
    Call("DeleteCluster", {{"ClusterName", "cl-deleting"}});
    Cluster("cl-creating", {Group("workers", kM5, 1)});
    const json nodes = Call("ListClusterNodes", {{"ClusterName", "cl-in-service"}});
    Call("BatchDeleteClusterNodes",
         {{"ClusterName", "cl-in-service"},
          {"NodeIds", {nodes["ClusterNodeSummaries"][0]["InstanceId"]}}});
    Call("StopTrainingJob", {{"TrainingJobName", "tj-stopping"}});
    Call("StopProcessingJob", {{"ProcessingJobName", "pj-stopping"}});
    Call("AddTags",
         {{"ResourceArn", expiring}, {"Tags", {{{"Key", "added"}, {"Value", "later"}}}}});
    const std::string model_v1 = Call("DescribeModel", {{"ModelName", "model-v1"}})["ModelArn"];
    Call("AddTags", {{"ResourceArn", model_v1}, {"Tags", {{{"Key", "stage"}, {"Value", "two"}}}}});
    Call("DeleteTags", {{"ResourceArn", model_v1}, {"TagKeys", {"model"}}});
    AdminOk("POST", "/_emulator/capacity",
            {{"region", kRegion},
             {"availability_zone", "us-west-2a"},
             {"instance_type", "ml.c5.xlarge"},
             {"on_demand", 3}});
    Advance(60);

    // Bought as the clock stops: Pending.
    BuyPlan("plan-pending", "training-job", kStartSeconds + 6 * kDay, 2);
    Extend(endpoints_plan);
  }
};

// ---- The questions asked of a stored release

struct Question {
  std::string method;  // "POST" for an AWS operation, else the admin API's method
  std::string target;  // the operation, or the admin path
  json input;
};

json Ask(protocol::Router& router, const Question& question) {
  protocol::HttpResponse response =
      question.method == "POST" && question.target.rfind("/", 0) != 0
          ? router.Handle(
                {"POST",
                 "/",
                 {{"X-Amz-Target", "SageMaker." + question.target}, {"Authorization", kAuth}},
                 question.input.dump()})
          : router.Handle({question.method, question.target, {}, ""});
  json body = json::parse(response.body, nullptr, false);
  // The dashboard's version names this run (a random epoch): everything else is compared.
  if (question.target == "/_emulator/state" && body.is_object()) body.erase("version");
  return {{"status", response.status}, {"body", body.is_discarded() ? json(response.body) : body}};
}

// Every item a listing has, page after page.
std::vector<json> AllListed(protocol::Router& router, const std::string& operation,
                            const std::string& items, json input = json::object()) {
  std::vector<json> listed;
  input["MaxResults"] = 100;
  for (int page = 0; page < 100; ++page) {
    const json body = Ask(router, {"POST", operation, input})["body"];
    for (const json& item : body.value(items, json::array())) listed.push_back(item);
    if (!body.contains("NextToken")) break;
    input["NextToken"] = body["NextToken"];
  }
  return listed;
}

// Every Describe and List the stored resources answer, their tags and nodes, the plans' reserved
// capacities, extensions and UltraServers, and the admin views.
std::vector<Question> QuestionsFor(protocol::Router& router) {
  std::vector<Question> questions;
  auto add = [&questions](std::string operation, json input) {
    questions.push_back({"POST", std::move(operation), std::move(input)});
  };
  struct Family {
    const char* list;
    const char* items;
    const char* describe;
    const char* name_member;
    const char* arn_member;
  };
  const Family families[] = {
      {"ListModels", "Models", "DescribeModel", "ModelName", "ModelArn"},
      {"ListEndpointConfigs", "EndpointConfigs", "DescribeEndpointConfig", "EndpointConfigName",
       "EndpointConfigArn"},
      {"ListEndpoints", "Endpoints", "DescribeEndpoint", "EndpointName", "EndpointArn"},
      {"ListTrainingPlans", "TrainingPlanSummaries", "DescribeTrainingPlan", "TrainingPlanName",
       "TrainingPlanArn"},
      {"ListTrainingJobs", "TrainingJobSummaries", "DescribeTrainingJob", "TrainingJobName",
       "TrainingJobArn"},
      {"ListProcessingJobs", "ProcessingJobSummaries", "DescribeProcessingJob", "ProcessingJobName",
       "ProcessingJobArn"},
      {"ListClusters", "ClusterSummaries", "DescribeCluster", "ClusterName", "ClusterArn"},
  };
  for (const Family& family : families) {
    add(family.list, json::object());
    add(family.list, {{"SortOrder", "Ascending"}, {"MaxResults", 3}});
    add(family.list, {{"MaxResults", 100}});
    for (const json& item : AllListed(router, family.list, family.items)) {
      add(family.describe, {{family.name_member, item[family.name_member]}});
      add("ListTags", {{"ResourceArn", item[family.arn_member]}});
      const std::string describe = family.describe;
      if (describe == "DescribeCluster") {
        add("ListClusterNodes", {{"ClusterName", item["ClusterName"]}});
        for (const json& node : AllListed(router, "ListClusterNodes", "ClusterNodeSummaries",
                                          {{"ClusterName", item["ClusterName"]}})) {
          add("DescribeClusterNode",
              {{"ClusterName", item["ClusterName"]}, {"NodeId", node["InstanceId"]}});
        }
      }
      if (describe == "DescribeTrainingPlan") {
        add("DescribeTrainingPlanExtensionHistory", {{"TrainingPlanArn", item["TrainingPlanArn"]}});
        const json plan = Ask(router, {"POST",
                                       "DescribeTrainingPlan",
                                       {{"TrainingPlanName", item["TrainingPlanName"]}}})["body"];
        for (const json& reserved : plan.value("ReservedCapacitySummaries", json::array())) {
          add("DescribeReservedCapacity",
              {{"ReservedCapacityArn", reserved["ReservedCapacityArn"]}});
          if (reserved.value("ReservedCapacityType", "") == "UltraServer") {
            add("ListUltraServersByReservedCapacity",
                {{"ReservedCapacityArn", reserved["ReservedCapacityArn"]}});
          }
        }
      }
    }
  }
  // Filters and sorts that read the columns the store keeps beside each document.
  add("ListEndpoints", {{"StatusEquals", "InService"}, {"SortBy", "Name"}});
  add("ListEndpoints", {{"StatusEquals", "Failed"}, {"SortBy", "Name"}});
  add("ListEndpoints", {{"NameContains", "ing"}, {"SortBy", "Status"}});
  add("ListTrainingJobs", {{"StatusEquals", "Stopped"}});
  add("ListTrainingJobs", {{"StatusEquals", "Failed"}, {"SortBy", "Name"}});
  add("ListTrainingJobs", {{"StatusEquals", "InProgress"}, {"SortBy", "Name"}});
  add("ListTrainingJobs", {{"SortBy", "Status"}, {"SortOrder", "Ascending"}});
  add("ListProcessingJobs", {{"StatusEquals", "InProgress"}, {"SortBy", "Name"}});
  add("ListProcessingJobs", {{"StatusEquals", "Failed"}, {"SortBy", "Name"}});
  add("ListClusters", {{"SortBy", "NAME"}, {"SortOrder", "Ascending"}});
  add("ListTrainingPlans", {{"SortBy", "StartTime"}, {"SortOrder", "Ascending"}});
  add("ListTrainingPlans", {{"SortBy", "Status"}});
  for (const char* status : {"Active", "Pending", "Scheduled", "Expired", "Failed"}) {
    add("ListTrainingPlans",
        {{"Filters", {{{"Name", "Status"}, {"Value", status}}}}, {"MaxResults", 100}});
  }
  add("ListEndpointConfigs", {{"NameContains", "plan"}});
  for (const char* path :
       {"/_emulator/clock", "/_emulator/capacity", "/_emulator/state", "/_emulator/costs",
        "/_emulator/quotas", "/_emulator/quotas?account=123456789012&region=us-west-2"}) {
    questions.push_back({"GET", path, json()});
  }
  return questions;
}

// A copy of a fixture's database (opening migrates it), removed with its log files once the store
// that opened it is closed: a base of StoredRelease before the store's, so destroyed after it. (A
// file removed while open leaves its log behind, for the next test's copy to read as its own.)
class FixtureCopy {
 protected:
  explicit FixtureCopy(const StoredFixture& fixture)
      : copy_(Scratch(std::string("stored-release-") + fixture.folder)) {
    Remove();
    fs::copy_file(kFixtures / fixture.folder / "state.db", copy_);
  }
  ~FixtureCopy() { Remove(); }

  void Remove() const {
    for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(copy_.string() + suffix);
  }

  const fs::path copy_;
};

// Opens a copy of a stored database with its own clock and the configuration its release ran
// with.
class StoredRelease : protected FixtureCopy, public StoredReleaseTest {
 protected:
  explicit StoredRelease(const StoredFixture& fixture)
      : FixtureCopy(fixture), StoredReleaseTest(copy_.string()), fixture_(fixture) {
    capacity_ = fixture.capacity;
    hosting_.provisioning_delay = Millis{kProvisioningSeconds * 1000};
    hosting_.plan_payment_delay = fixture.plan_payment_delay;
    emulator_ = std::make_unique<ops::Emulator>(
        store_, base_clock_, ops::ClockStart{},
        config::ParseCapacityConfig(capacity_, "stored capacity"), hosting_);
    // As the server starts (app/server.cpp), without --quotas: the quotas changed through the
    // admin API come back from the database.
    emulator_->SetStartingQuotas({});
    router_ = std::make_unique<protocol::Router>(*emulator_, apimodel::ControlPlaneModel(),
                                                 apimodel::RuntimeModel(), router_config_);
  }

  void LeaveOutAddedMembers(json& value, const std::string& target) const {
    if (value.is_object()) {
      for (const AddedMember& member : fixture_.added_since) {
        if (member.only_in == nullptr || target == member.only_in) value.erase(member.name);
      }
    }
    if (value.is_structured()) {
      for (json& child : value) LeaveOutAddedMembers(child, target);
    }
  }

  // Asks every recorded question again and compares the answers; then checks that the fixture
  // holds every status it is meant to.
  void AnswersAsRecorded() {
    const fs::path answers = kFixtures / fixture_.folder / "answers.json";
    std::ifstream file(answers);
    ASSERT_TRUE(file) << "missing " << answers;
    const json recorded = json::parse(file);
    ASSERT_GT(recorded.size(), 100u);
    std::set<std::string> statuses;
    for (const json& entry : recorded) {
      const Question question{entry["method"], entry["target"], entry["input"]};
      json answer = Ask(*router_, question);
      LeaveOutAddedMembers(answer, question.target);
      EXPECT_EQ(answer, entry["answer"])
          << question.method << " " << question.target << " " << question.input.dump();
      const json& body = entry["answer"]["body"];
      if (!body.is_object()) continue;
      for (const char* member : {"EndpointStatus", "TrainingJobStatus", "ProcessingJobStatus",
                                 "ClusterStatus", "Status"}) {
        if (body.contains(member)) {
          statuses.insert(question.target + " " + body[member].get<std::string>());
        }
      }
      for (const json& extension : body.value("TrainingPlanExtensions", json::array())) {
        statuses.insert("Extension " + extension.value("Status", "") + "/" +
                        extension.value("PaymentStatus", ""));
      }
      for (const json& node : body.value("ClusterNodeSummaries", json::array())) {
        statuses.insert("Node " + node["InstanceStatus"].value("Status", ""));
      }
      for (const json& ultraserver : body.value("UltraServers", json::array())) {
        statuses.insert("UltraServer " + ultraserver.value("HealthStatus", ""));
      }
    }
    // The fixture is only worth what it holds: every status of every kind with a lifecycle.
    for (const std::string& expected : fixture_.statuses) {
      EXPECT_TRUE(statuses.count(expected)) << "the fixture has no " << expected;
    }
  }

  const StoredFixture& fixture_;
};

class StoredReleaseBeforeKindRegistry : public StoredRelease {
 protected:
  StoredReleaseBeforeKindRegistry() : StoredRelease(kBeforeKindRegistry) {}
};

class StoredReleaseBeforeOneState : public StoredRelease {
 protected:
  StoredReleaseBeforeOneState() : StoredRelease(kBeforeOneState) {}
};

TEST(StoredReleaseFixture, DISABLED_Record) {
  const fs::path story = Scratch("stored-release-story");
  fs::remove(story);
  {
    class Writer : public StoryWriter {
      void TestBody() override {}

     public:
      using StoryWriter::Write;
    } writer;
    writer.Write();
  }  // closing the store checkpoints its log into the file
  const fs::path folder = kFixtures / kRecorded.folder;
  fs::create_directories(folder);
  fs::copy_file(story, folder / "state.db", fs::copy_options::overwrite_existing);
  fs::remove(story);
  class Reader : public StoredRelease {
    void TestBody() override {}

   public:
    Reader() : StoredRelease(kRecorded) {}
    json Answers() {
      json answers = json::array();
      for (const Question& question : QuestionsFor(*router_)) {
        answers.push_back({{"method", question.method},
                           {"target", question.target},
                           {"input", question.input},
                           {"answer", Ask(*router_, question)}});
      }
      return answers;
    }
  } reader;
  std::ofstream(folder / "answers.json") << reader.Answers().dump(1) << "\n";
}

TEST_F(StoredReleaseBeforeKindRegistry, AnswersEveryQuestionAsTheReleaseThatWroteItDid) {
  AnswersAsRecorded();
}

TEST_F(StoredReleaseBeforeOneState, AnswersEveryQuestionAsTheReleaseThatWroteItDid) {
  AnswersAsRecorded();
}

}  // namespace
}  // namespace smemu
