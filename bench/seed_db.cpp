// seed_db: writes a sagemaker-emulator database holding many training plans, endpoints, jobs and
// HyperPod clusters, for the reads, growth, start-up and memory measurements of bench/run. It is
// the server minus the sockets: the same Emulator and Router, fed the same awsJson1_1 requests a
// client would send over HTTP (searches at random start times, buying each search's offerings as
// bench/seed.py does; on-demand model + config + endpoint; training and processing jobs; clusters),
// so the file holds exactly what the server would have written. Only the commits are batched (one
// per 10,000 requests instead of one per request), which changes no row.
//
//   seed_db DB CAPACITY_JSON PLANS ENDPOINTS [JOBS [CLUSTERS]]
//
//   PLANS      bench-plan-N, bought as bench/seed.py buys them; the first (up to) 10 plans are
//              then extended once each where an extension offering is found
//   ENDPOINTS  bench-model-N, bench-config-N, bench-endpoint-N (one on-demand ml.m5.xlarge each)
//   JOBS       bench-training-job-N (the first half, rounded up) and bench-processing-job-N (the
//              rest), one on-demand ml.m5.xlarge each: jobs 0-4 of each kind InProgress, every
//              tenth of the others Stopped, the rest Completed (see CreateJob below)
//   CLUSTERS   bench-cluster-N, on demand: a "controller" group of 1 and a "workers" group of 99
//              ml.m5.xlarge (100 nodes each)
//
// Every resource gets two tags (team=bench, index=N). ml.m5.xlarge is absent from bench/seed.py's
// capacity file, and a type absent from it has unlimited on-demand instances. The clock is frozen
// at bench/seed.py's CLOCK_START; serve the file with the same --capacity.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "apimodel/embedded_models.hpp"
#include "config/capacity_config.hpp"
#include "domain/time_format.hpp"
#include "ops/emulator.hpp"
#include "protocol/router.hpp"
#include "store/state_store.hpp"

namespace smemu {
namespace {

using nlohmann::json;

constexpr const char* kAccount = "123456789012";
constexpr const char* kRegion = "us-east-1";
constexpr const char* kPlanType = "ml.p5.48xlarge";
// The quantities training plans are sold in that the seeded plans use (AWS sells 1, 2, 4 ... 64).
constexpr int kPlanCounts[] = {1, 2, 4};
constexpr const char* kEndpointType = "ml.m5.xlarge";
constexpr long long kClockStartEpoch = 1798761600;  // 2027-01-01T00:00:00Z
constexpr long long kDay = 86400;
constexpr int kRequestsPerCommit = 10000;
constexpr int kPlansExtended = 10;
constexpr int kWorkersPerCluster = 99;
constexpr int kLiveJobsPerKind = 5;

std::string Role() { return std::string("arn:aws:iam::") + kAccount + ":role/bench"; }

json Tags(int index) {
  return json::array({{{"Key", "team"}, {"Value", "bench"}},
                      {{"Key", "index"}, {"Value", std::to_string(index)}}});
}

class Seeder {
 public:
  Seeder(const std::string& db, const std::string& capacity_path)
      : store_(db),
        emulator_(store_, clock_,
                  ops::ClockStart{TimePoint{Millis{kClockStartEpoch * 1000}}, /*frozen=*/true},
                  config::LoadCapacityConfig(capacity_path)),
        router_(emulator_, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(), {}) {
    writes_ = std::make_unique<store::StateStore::WriteScope>(store_);
  }

  json Call(const std::string& operation, const json& body) {
    const protocol::HttpRequest request{
        "POST",
        "/",
        {{"Content-Type", "application/x-amz-json-1.1"},
         {"X-Amz-Target", "SageMaker." + operation},
         {"Authorization", std::string("AWS4-HMAC-SHA256 Credential=") + kAccount + "/20261129/" +
                               kRegion +
                               "/sagemaker/aws4_request, SignedHeaders=host, Signature=00"}},
        body.dump()};
    const protocol::HttpResponse response = router_.Handle(request);
    if (response.status != 200) {
      throw std::runtime_error(operation + " answered " + std::to_string(response.status) + ": " +
                               response.body);
    }
    if (++requests_ % kRequestsPerCommit == 0) {
      writes_->Commit();
      writes_ = std::make_unique<store::StateStore::WriteScope>(store_);
    }
    return json::parse(response.body);
  }

  void Finish() {
    writes_->Commit();
    writes_.reset();
  }

 private:
  SystemClock clock_;
  store::StateStore store_;
  ops::Emulator emulator_;
  protocol::Router router_;
  std::unique_ptr<store::StateStore::WriteScope> writes_;
  long long requests_ = 0;
};

void SeedEndpoints(Seeder& seeder, int count) {
  for (int i = 0; i < count; ++i) {
    const std::string n = std::to_string(i);
    seeder.Call(
        "CreateModel",
        {{"ModelName", "bench-model-" + n},
         {"ExecutionRoleArn", std::string("arn:aws:iam::") + kAccount + ":role/bench"},
         {"PrimaryContainer",
          {{"Image", std::string(kAccount) + ".dkr.ecr." + kRegion + ".amazonaws.com/bench:1"}}},
         {"Tags", Tags(i)}});
    seeder.Call("CreateEndpointConfig",
                {{"EndpointConfigName", "bench-config-" + n},
                 {"ProductionVariants", json::array({{{"VariantName", "AllTraffic"},
                                                      {"ModelName", "bench-model-" + n},
                                                      {"InstanceType", kEndpointType},
                                                      {"InitialInstanceCount", 1}}})},
                 {"Tags", Tags(i)}});
    seeder.Call("CreateEndpoint", {{"EndpointName", "bench-endpoint-" + n},
                                   {"EndpointConfigName", "bench-config-" + n},
                                   {"Tags", Tags(i)}});
  }
}

void SeedPlans(Seeder& seeder, int count) {
  std::mt19937 random(1);
  auto uniform = [&random](int low, int high) {
    return std::uniform_int_distribution<int>(low, high)(random);
  };
  int bought = 0;
  int misses = 0;
  const char* targets[] = {"training-job", "endpoint"};
  while (bought < count) {
    const int days = uniform(1, 14);
    // The first plans start within four weeks, so that they can be extended (ExtendPlans); the
    // others within the 56 days ahead that AWS sells plans for.
    const int hours_ahead = bought < kPlansExtended ? 28 * 24 : 55 * 24;
    const long long start =
        kClockStartEpoch + static_cast<long long>(uniform(0, hours_ahead - 1)) * 3600;
    const json offerings = seeder
                               .Call("SearchTrainingPlanOfferings",
                                     {{"InstanceType", kPlanType},
                                      {"InstanceCount", kPlanCounts[uniform(0, 2)]},
                                      {"DurationHours", days * 24},
                                      {"StartTimeAfter", start},
                                      {"EndTimeBefore", start + (days + 28) * kDay},
                                      {"TargetResources", json::array({targets[uniform(0, 1)]})}})
                               .at("TrainingPlanOfferings");
    if (offerings.empty()) {
      if (++misses > 1000 + count) throw std::runtime_error("no capacity left: raise reservable");
      continue;
    }
    // The first offering: the others may overlap it in the same zone.
    seeder.Call("CreateTrainingPlan",
                {{"TrainingPlanName", "bench-plan-" + std::to_string(bought)},
                 {"TrainingPlanOfferingId", offerings.front().at("TrainingPlanOfferingId")},
                 {"Tags", Tags(bought)}});
    ++bought;
  }
}

// Extends the first plans that can be extended once each with the first extension offering found
// (a day or a week from where the plan ends), so DescribeTrainingPlanExtensionHistory has
// something to list. A plan can be extended from 57 days to 1 hour before it ends.
void ExtendPlans(Seeder& seeder, int plans) {
  int extended = 0;
  for (int i = 0; i < plans && extended < kPlansExtended; ++i) {
    const std::string name = "bench-plan-" + std::to_string(i);
    const json plan = seeder.Call("DescribeTrainingPlan", {{"TrainingPlanName", name}});
    const long long ends_in = plan.at("EndTime").get<long long>() - kClockStartEpoch;
    if (ends_in < 3600 || ends_in > 57 * kDay) continue;
    const json offerings =
        seeder
            .Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", plan.at("TrainingPlanArn")}})
            .at("TrainingPlanExtensionOfferings");
    if (offerings.empty()) continue;
    seeder.Call("ExtendTrainingPlan", {{"TrainingPlanExtensionOfferingId",
                                        offerings[0].at("TrainingPlanExtensionOfferingId")}});
    ++extended;
  }
}

// Job N of each kind: the first kLiveJobsPerKind run for a day (InProgress on the frozen clock),
// every tenth of the others is stopped once it runs (Stopped), the rest run for 0 seconds
// (Completed). Live jobs are few, as in an account's history: while any job is live, every request
// settles all of them (and every endpoint and cluster), so a database of 1,000 live jobs took 50 s
// to write instead of 5. The finished jobs are written first, the live ones after the endpoints
// and plans: creating a job copies the holdings of every endpoint (10,000 jobs written after
// 10,000 endpoints took 300 s instead of 10).
bool Live(int index) { return index < kLiveJobsPerKind; }
bool Stopped(int index) { return !Live(index) && index % 10 == 9; }

void CreateJob(Seeder& seeder, bool training, int index) {
  const std::string n = std::to_string(index);
  const json run = {
      {"SAGEMAKER_EMULATOR_RUN_SECONDS", Live(index) || Stopped(index) ? "86400" : "0"}};
  const std::string image = std::string(kAccount) + ".dkr.ecr." + kRegion + ".amazonaws.com/bench";
  const json stopping = {{"MaxRuntimeInSeconds", 86400}};
  if (training) {
    const std::string name = "bench-training-job-" + n;
    seeder.Call("CreateTrainingJob",
                {{"TrainingJobName", name},
                 {"RoleArn", Role()},
                 {"AlgorithmSpecification",
                  {{"TrainingImage", image + "-train:1"}, {"TrainingInputMode", "File"}}},
                 {"OutputDataConfig", {{"S3OutputPath", "s3://bench-bucket/out"}}},
                 {"ResourceConfig",
                  {{"InstanceType", kEndpointType}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}}},
                 {"StoppingCondition", stopping},
                 {"Environment", run},
                 {"Tags", Tags(index)}});
    if (Stopped(index)) seeder.Call("StopTrainingJob", {{"TrainingJobName", name}});
  } else {
    const std::string name = "bench-processing-job-" + n;
    seeder.Call(
        "CreateProcessingJob",
        {{"ProcessingJobName", name},
         {"RoleArn", Role()},
         {"AppSpecification", {{"ImageUri", image + "-prep:1"}}},
         {"ProcessingResources",
          {{"ClusterConfig",
            {{"InstanceType", kEndpointType}, {"InstanceCount", 1}, {"VolumeSizeInGB", 30}}}}},
         {"StoppingCondition", stopping},
         {"Environment", run},
         {"Tags", Tags(index)}});
    if (Stopped(index)) seeder.Call("StopProcessingJob", {{"ProcessingJobName", name}});
  }
}

// `count` jobs, the first half (rounded up) training jobs; only the live ones or only the others.
void SeedJobs(Seeder& seeder, int count, bool live) {
  const int training = (count + 1) / 2;
  for (int i = 0; i < training; ++i) {
    if (Live(i) == live) CreateJob(seeder, true, i);
  }
  for (int i = 0; i < count - training; ++i) {
    if (Live(i) == live) CreateJob(seeder, false, i);
  }
}

void SeedClusters(Seeder& seeder, int count) {
  const auto group = [](const char* name, int instances) {
    return json{{"InstanceGroupName", name},
                {"InstanceType", kEndpointType},
                {"InstanceCount", instances},
                {"ExecutionRole", Role()},
                {"LifeCycleConfig",
                 {{"SourceS3Uri", "s3://bench-bucket/lifecycle/"}, {"OnCreate", "on_create.sh"}}}};
  };
  for (int i = 0; i < count; ++i) {
    seeder.Call("CreateCluster",
                {{"ClusterName", "bench-cluster-" + std::to_string(i)},
                 {"InstanceGroups",
                  json::array({group("controller", 1), group("workers", kWorkersPerCluster)})},
                 {"Tags", Tags(i)}});
  }
}

int Run(int argc, char** argv) {
  if (argc < 5 || argc > 7) {
    std::cerr << "usage: seed_db DB CAPACITY_JSON PLANS ENDPOINTS [JOBS [CLUSTERS]]\n";
    return 2;
  }
  spdlog::set_level(spdlog::level::off);
  Seeder seeder(argv[1], argv[2]);
  const int plans = std::stoi(argv[3]);
  const int jobs = argc > 5 ? std::stoi(argv[5]) : 0;
  SeedJobs(seeder, jobs, /*live=*/false);  // first: see CreateJob
  SeedEndpoints(seeder, std::stoi(argv[4]));
  SeedPlans(seeder, plans);
  ExtendPlans(seeder, plans);
  SeedJobs(seeder, jobs, /*live=*/true);
  SeedClusters(seeder, argc > 6 ? std::stoi(argv[6]) : 0);
  seeder.Finish();
  return 0;
}

}  // namespace
}  // namespace smemu

int main(int argc, char** argv) {
  try {
    return smemu::Run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "seed_db: " << e.what() << "\n";
    return 1;
  }
}
