// seed_db: writes a sagemaker-emulator database holding many training plans and endpoints, for the
// start-up and memory measurements of bench/run. It is the server minus the sockets: the same
// Emulator and Router, fed the same awsJson1_1 requests bench/seed.py sends over HTTP (searches at
// random start times, buying each search's offerings; on-demand model + config + endpoint), so
// the file holds exactly what the server would have written. Only the commits are batched (one
// per 10,000 requests instead of one per request), which changes no row.
//
//   seed_db DB CAPACITY_JSON PLANS ENDPOINTS
//
// The clock is frozen at bench/seed.py's CLOCK_START; serve the file with the same --capacity.
#include <spdlog/spdlog.h>

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
constexpr const char* kEndpointType = "ml.m5.xlarge";
constexpr long long kClockStartEpoch = 1798761600;  // 2027-01-01T00:00:00Z
constexpr long long kDay = 86400;
constexpr int kRequestsPerCommit = 10000;

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
          {{"Image", std::string(kAccount) + ".dkr.ecr." + kRegion + ".amazonaws.com/bench:1"}}}});
    seeder.Call("CreateEndpointConfig",
                {{"EndpointConfigName", "bench-config-" + n},
                 {"ProductionVariants", json::array({{{"VariantName", "AllTraffic"},
                                                      {"ModelName", "bench-model-" + n},
                                                      {"InstanceType", kEndpointType},
                                                      {"InitialInstanceCount", 1}}})}});
    seeder.Call("CreateEndpoint", {{"EndpointName", "bench-endpoint-" + n},
                                   {"EndpointConfigName", "bench-config-" + n}});
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
    const long long start =
        kClockStartEpoch + static_cast<long long>(uniform(0, 365 * 24 - 1)) * 3600;
    const json offerings = seeder
                               .Call("SearchTrainingPlanOfferings",
                                     {{"InstanceType", kPlanType},
                                      {"InstanceCount", uniform(1, 4)},
                                      {"DurationHours", days * 24},
                                      {"StartTimeAfter", start},
                                      {"EndTimeBefore", start + (days + 28) * kDay},
                                      {"TargetResources", json::array({targets[uniform(0, 1)]})}})
                               .at("TrainingPlanOfferings");
    if (offerings.empty()) {
      if (++misses > 1000 + count) throw std::runtime_error("no capacity left: raise reservable");
      continue;
    }
    for (const json& offering : offerings) {
      if (bought == count) break;
      seeder.Call("CreateTrainingPlan",
                  {{"TrainingPlanName", "bench-plan-" + std::to_string(bought)},
                   {"TrainingPlanOfferingId", offering.at("TrainingPlanOfferingId")}});
      ++bought;
    }
  }
}

int Run(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: seed_db DB CAPACITY_JSON PLANS ENDPOINTS\n";
    return 2;
  }
  spdlog::set_level(spdlog::level::off);
  Seeder seeder(argv[1], argv[2]);
  SeedEndpoints(seeder, std::stoi(argv[4]));
  SeedPlans(seeder, std::stoi(argv[3]));
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
