// A database written by an earlier release opens, migrates and answers exactly as that release
// did. tests/fixtures/before-kind-registry/ holds a state file written by the release before the
// kind registry (resources of every kind in every status, tags, a frozen clock) and every answer
// that release gave to the Describe and List operations, the tag listings and the admin views,
// read back from it. The test opens a copy of the file and asks the same questions: any change in
// how records are stored or decoded that a client could see fails here, byte for byte.
//
// `unit_tests --gtest_also_run_disabled_tests --gtest_filter=StoredReleaseFixture.DISABLED_Record`
// writes the fixture again (the database and the answers). Do that only to add a fixture for a new
// release, in a new folder: the point of the old one is that the code that wrote it is gone.
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

const fs::path kFixture = fs::path(SMEMU_SOURCE_DIR) / "tests/fixtures/before-kind-registry";

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

constexpr long long kProvisioningSeconds = 600;

// A database file of this test process's own.
fs::path Scratch(const std::string& name) {
  return fs::temp_directory_path() / (name + "-" + std::to_string(::getpid()) + ".db");
}

class StoredReleaseTest : public EmulatorFixture {
 protected:
  explicit StoredReleaseTest(const std::string& db) : EmulatorFixture(db, Unopened{}) {}
};

// ---- Writing the fixture (SMEMU_RECORD_STORED_RELEASE=1)

class StoryWriter : public StoredReleaseTest {
 protected:
  StoryWriter() : StoredReleaseTest(Scratch("stored-release-story").string()) {
    capacity_ = kStoredCapacity;
    hosting_.provisioning_delay = Millis{kProvisioningSeconds * 1000};
    Open();
  }

  std::string BuyPlan(const std::string& name, const std::string& target, long long start_after,
                      int days, int count = 1) {
    const json offerings = Call("SearchTrainingPlanOfferings", {{"InstanceType", kP5},
                                                                {"InstanceCount", count},
                                                                {"DurationHours", days * 24},
                                                                {"StartTimeAfter", start_after},
                                                                {"TargetResources", {target}}});
    return Call("CreateTrainingPlan",
                {{"TrainingPlanName", name},
                 {"TrainingPlanOfferingId",
                  offerings["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]},
                 {"Tags", {{{"Key", "team"}, {"Value", name}}}}})["TrainingPlanArn"];
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

  void Cluster(const std::string& name, std::vector<json> groups) {
    Call("CreateCluster", {{"ClusterName", name},
                           {"InstanceGroups", std::move(groups)},
                           {"Tags", {{{"Key", "cluster"}, {"Value", name}}}}});
  }

  // The story: plans that expire, run and wait; endpoints, jobs and clusters that end, run, fail
  // and are caught mid-transition when the clock stops.
  void Write() {
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

    // Ended before the clock stops.
    Call("CreateTrainingJob", TrainingJob("tj-completed", Plain(kM5, 1), 100));
    Call("CreateTrainingJob", TrainingJob("tj-plan-ended",
                                          {{"InstanceType", kP5},
                                           {"InstanceCount", 1},
                                           {"VolumeSizeInGB", 50},
                                           {"TrainingPlanArn", expiring}},
                                          10 * 86400));
    Call("CreateTrainingJob",
         TrainingJob("tj-max-runtime", Plain(kM5, 1), 10000, {{"MaxRuntimeInSeconds", 300}}));
    Call("CreateTrainingJob", TrainingJob("tj-stopped", Plain(kM5, 2), 10000));
    Call("CreateProcessingJob",
         ProcessingJob("pj-completed",
                       {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}}, 100));
    Call("CreateProcessingJob",
         ProcessingJob("pj-stopped",
                       {{"InstanceType", kM5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}},
                       10000));
    Config("config-on-demand", "ml.g5.xlarge", 1);
    Config("config-plan", kP5, 1, endpoints_plan);
    Config("config-none-free", kP5, 1);  // no on-demand ml.p5.48xlarge: the endpoint fails
    Endpoint("ep-deleted-later", "config-on-demand");
    Cluster("cl-deleted", {Group("workers", kM5, 1)});
    Advance(kProvisioningSeconds);
    Call("StopTrainingJob", {{"TrainingJobName", "tj-stopped"}});
    Call("StopProcessingJob", {{"ProcessingJobName", "pj-stopped"}});
    Call("DeleteEndpoint", {{"EndpointName", "ep-deleted-later"}});
    Call("DeleteCluster", {{"ClusterName", "cl-deleted"}});
    Advance(2 * kDay);  // plan-expired ends, and the job on it with it

    // Settled, running and failed.
    Endpoint("ep-in-service", "config-on-demand");
    Endpoint("ep-on-plan", "config-plan");
    Endpoint("ep-failed", "config-none-free");
    Endpoint("ep-updating", "config-on-demand");
    Endpoint("ep-deleting", "config-on-demand");
    Cluster("cl-in-service", {Group("workers", kM5, 2)});
    Cluster("cl-on-plan", {Group("gpus", kP5, 2, clusters_plan), Group("cpus", kM5, 1)});
    Cluster("cl-failed", {Group("gpus", kP5, 1)});  // no on-demand ml.p5.48xlarge
    Cluster("cl-updating", {Group("workers", kM5, 1)});
    Cluster("cl-deleting", {Group("workers", kM5, 1)});
    Call("CreateTrainingJob", TrainingJob("tj-on-plan",
                                          {{"InstanceType", kP5},
                                           {"InstanceCount", 1},
                                           {"VolumeSizeInGB", 50},
                                           {"TrainingPlanArn", jobs_plan}},
                                          10 * 86400));
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
    Call("DeleteEndpoint", {{"EndpointName", "ep-deleting"}});
    Endpoint("ep-creating", "config-on-demand");
    Call("UpdateCluster",
         {{"ClusterName", "cl-updating"}, {"InstanceGroups", {Group("workers", kM5, 3)}}});
    Call("DeleteCluster", {{"ClusterName", "cl-deleting"}});
    Cluster("cl-creating", {Group("workers", kM5, 1)});
    Call("StopTrainingJob", {{"TrainingJobName", "tj-stopping"}});
    Call("StopProcessingJob", {{"ProcessingJobName", "pj-stopping"}});
    Call("AddTags",
         {{"ResourceArn", expiring}, {"Tags", {{{"Key", "added"}, {"Value", "later"}}}}});
    Advance(60);
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

// Every Describe and List the stored resources answer, their tags and nodes, and the admin views.
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
    const json listed = Ask(router, {"POST", family.list, json::object()})["body"];
    for (const json& item : listed[family.items]) {
      add(family.describe, {{family.name_member, item[family.name_member]}});
      add("ListTags", {{"ResourceArn", item[family.arn_member]}});
      if (std::string(family.describe) == "DescribeCluster") {
        add("ListClusterNodes", {{"ClusterName", item["ClusterName"]}});
        const json nodes = Ask(
            router, {"POST", "ListClusterNodes", {{"ClusterName", item["ClusterName"]}}})["body"];
        for (const json& node : nodes["ClusterNodeSummaries"]) {
          add("DescribeClusterNode",
              {{"ClusterName", item["ClusterName"]}, {"NodeId", node["InstanceId"]}});
        }
      }
    }
  }
  // Filters and sorts that read the columns the store keeps beside each document.
  add("ListEndpoints", {{"StatusEquals", "InService"}, {"SortBy", "Name"}});
  add("ListEndpoints", {{"NameContains", "ing"}, {"SortBy", "Status"}});
  add("ListTrainingJobs", {{"StatusEquals", "Stopped"}});
  add("ListTrainingJobs", {{"SortBy", "Status"}, {"SortOrder", "Ascending"}});
  add("ListProcessingJobs", {{"StatusEquals", "InProgress"}, {"SortBy", "Name"}});
  add("ListClusters", {{"SortBy", "NAME"}, {"SortOrder", "Ascending"}});
  add("ListTrainingPlans", {{"SortBy", "StartTime"}, {"SortOrder", "Ascending"}});
  add("ListTrainingPlans", {{"SortBy", "Status"}});
  add("ListTrainingPlans", {{"Filters", {{{"Name", "Status"}, {"Value", "Active"}}}}});
  add("ListEndpointConfigs", {{"NameContains", "plan"}});
  for (const char* path : {"/_emulator/clock", "/_emulator/capacity", "/_emulator/state",
                           "/_emulator/costs", "/_emulator/quotas"}) {
    questions.push_back({"GET", path, json()});
  }
  return questions;
}

// Opens the stored database (a copy: opening migrates it) with its own clock.
class StoredRelease : public StoredReleaseTest {
 protected:
  StoredRelease() : StoredReleaseTest(CopyOfTheFixture()) {
    capacity_ = kStoredCapacity;
    hosting_.provisioning_delay = Millis{kProvisioningSeconds * 1000};
    emulator_ = std::make_unique<ops::Emulator>(
        store_, base_clock_, ops::ClockStart{},
        config::ParseCapacityConfig(capacity_, "stored capacity"), hosting_);
    router_ = std::make_unique<protocol::Router>(*emulator_, apimodel::ControlPlaneModel(),
                                                 apimodel::RuntimeModel(), router_config_);
  }
  ~StoredRelease() override { fs::remove(Scratch("stored-release-copy")); }

  static std::string CopyOfTheFixture() {
    const fs::path copy = Scratch("stored-release-copy");
    fs::copy_file(kFixture / "state.db", copy, fs::copy_options::overwrite_existing);
    return copy.string();
  }
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
  fs::create_directories(kFixture);
  fs::copy_file(story, kFixture / "state.db", fs::copy_options::overwrite_existing);
  fs::remove(story);
  class Reader : public StoredRelease {
    void TestBody() override {}

   public:
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
  std::ofstream(kFixture / "answers.json") << reader.Answers().dump(1) << "\n";
}

// Members the emulator has added to its answers since that release, by design (each with the
// change that added it): the recorded answers predate them, so they are left out of today's
// answers before the comparison. Everything else must still match byte for byte.
struct AddedMember {
  const char* name;
  const char* only_in;  // the one question's target whose answers have it; nullptr: any
};
constexpr AddedMember kAddedSinceTheRelease[] = {
    {"AvailabilityZoneId", nullptr},  // reserved capacities, extensions, node placements (29)
    {"environment", nullptr},  // the state view's running jobs on plans: the block's expiry (29)
    {"StatusMessage", "DescribeTrainingPlan"},  // "Payment confirmed, training plan scheduled."
    {"StatusMessage", "ListTrainingPlans"},
    {"reserved_capacities", nullptr},  // the state view's plans: each reserved capacity (29)
    {"faults", "/_emulator/state"},    // the state view's fault rules (30)
};

void LeaveOutAddedMembers(json& value, const std::string& target) {
  if (value.is_object()) {
    for (const AddedMember& member : kAddedSinceTheRelease) {
      if (member.only_in == nullptr || target == member.only_in) value.erase(member.name);
    }
  }
  if (value.is_structured()) {
    for (json& child : value) LeaveOutAddedMembers(child, target);
  }
}

TEST_F(StoredRelease, AnswersEveryQuestionAsTheReleaseThatWroteItDid) {
  std::ifstream file(kFixture / "answers.json");
  ASSERT_TRUE(file) << "missing " << kFixture / "answers.json";
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
    for (const char* member : {"EndpointStatus", "TrainingJobStatus", "ProcessingJobStatus",
                               "ClusterStatus", "Status"}) {
      if (body.is_object() && body.contains(member)) {
        statuses.insert(question.target + " " + body[member].get<std::string>());
      }
    }
  }
  // The fixture is only worth what it holds: every status of every kind with a lifecycle.
  for (const char* expected :
       {"DescribeEndpoint Creating",       "DescribeEndpoint InService",
        "DescribeEndpoint Updating",       "DescribeEndpoint Deleting",
        "DescribeEndpoint Failed",         "DescribeTrainingPlan Scheduled",
        "DescribeTrainingPlan Active",     "DescribeTrainingPlan Expired",
        "DescribeTrainingJob InProgress",  "DescribeTrainingJob Completed",
        "DescribeTrainingJob Failed",      "DescribeTrainingJob Stopping",
        "DescribeTrainingJob Stopped",     "DescribeProcessingJob InProgress",
        "DescribeProcessingJob Completed", "DescribeProcessingJob Stopping",
        "DescribeProcessingJob Stopped",   "DescribeCluster Creating",
        "DescribeCluster InService",       "DescribeCluster Updating",
        "DescribeCluster Deleting",        "DescribeCluster Failed"}) {
    EXPECT_TRUE(statuses.count(expected)) << "the fixture has no " << expected;
  }
}

}  // namespace
}  // namespace smemu
