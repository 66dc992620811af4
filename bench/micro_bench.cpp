// Micro-benchmarks of the request path, each reported as a ratio to a baseline measured in the same
// run (bench/run prints the table): parsing and re-serialising the same JSON body is the floor any
// JSON API server pays per request.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "apimodel/embedded_models.hpp"
#include "apimodel/validator.hpp"
#include "domain/training_plan.hpp"
#include "ops/emulator.hpp"
#include "protocol/router.hpp"
#include "store/state_store.hpp"

namespace smemu {
namespace {

const std::string kCreateModelBody = R"({"ModelName":"bench-model",
  "ExecutionRoleArn":"arn:aws:iam::123456789012:role/bench",
  "PrimaryContainer":{"Image":"123456789012.dkr.ecr.us-east-1.amazonaws.com/bench:1",
    "ModelDataUrl":"s3://bucket/model.tar.gz","Environment":{"A":"1","B":"2"}},
  "Tags":[{"Key":"team","Value":"ml"},{"Key":"env","Value":"ci"}]})";

void BM_Baseline_JsonParseAndDump(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(nlohmann::json::parse(kCreateModelBody).dump());
  }
}
BENCHMARK(BM_Baseline_JsonParseAndDump);

void BM_ValidateCreateModel(benchmark::State& state) {
  const auto& shape = *apimodel::ControlPlaneModel().FindOperation("CreateModel")->input;
  const auto body = nlohmann::json::parse(kCreateModelBody);
  for (auto _ : state) benchmark::DoNotOptimize(apimodel::ValidateRequest(shape, body).ok());
}
BENCHMARK(BM_ValidateCreateModel);

const std::string kCreateEndpointConfigBody = R"({"EndpointConfigName":"bench-config",
  "ProductionVariants":[{"VariantName":"AllTraffic","ModelName":"bench-model",
    "InstanceType":"ml.p5.48xlarge","InitialInstanceCount":2,"InitialVariantWeight":1.0,
    "CapacityReservationConfig":{"CapacityReservationPreference":"capacity-reservations-only",
      "MlReservationArn":"arn:aws:sagemaker:us-east-1:123456789012:training-plan/bench-plan"}}],
  "Tags":[{"Key":"team","Value":"ml"}]})";

void BM_ValidateCreateEndpointConfig(benchmark::State& state) {
  const auto& shape = *apimodel::ControlPlaneModel().FindOperation("CreateEndpointConfig")->input;
  const auto body = nlohmann::json::parse(kCreateEndpointConfigBody);
  for (auto _ : state) benchmark::DoNotOptimize(apimodel::ValidateRequest(shape, body).ok());
}
BENCHMARK(BM_ValidateCreateEndpointConfig);

// A whole DescribeModel through the router (JSON parse, validation, store read, rendering, log).
void BM_RouterDescribeModel(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  SystemClock base;
  store::StateStore store(":memory:");
  ops::Emulator emulator(store, base, ops::ClockStart{});
  protocol::Router router(emulator, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(), {});
  const protocol::HttpRequest create{
      "POST", "/", {{"X-Amz-Target", "SageMaker.CreateModel"}}, kCreateModelBody};
  if (router.Handle(create).status != 200) state.SkipWithError("CreateModel failed");
  const protocol::HttpRequest describe{
      "POST", "/", {{"X-Amz-Target", "SageMaker.DescribeModel"}}, R"({"ModelName":"bench-model"})"};
  for (auto _ : state) benchmark::DoNotOptimize(router.Handle(describe).status);
}
BENCHMARK(BM_RouterDescribeModel);

// An emulator with one on-demand endpoint (model, config, endpoint), for DescribeEndpoint.
struct EndpointFixture {
  SystemClock base;
  store::StateStore store{":memory:"};
  ops::Emulator emulator{store, base, ops::ClockStart{}};
  protocol::Router router{emulator, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(), {}};
  const protocol::HttpRequest describe{"POST",
                                       "/",
                                       {{"X-Amz-Target", "SageMaker.DescribeEndpoint"}},
                                       R"({"EndpointName":"bench-endpoint"})"};

  bool Create() {
    spdlog::set_level(spdlog::level::off);
    const std::pair<const char*, const char*> requests[] = {
        {"CreateModel", kCreateModelBody.c_str()},
        {"CreateEndpointConfig",
         R"({"EndpointConfigName":"bench-config","ProductionVariants":[{"VariantName":
         "AllTraffic","ModelName":"bench-model","InstanceType":"ml.m5.xlarge",
         "InitialInstanceCount":1}]})"},
        {"CreateEndpoint", R"({"EndpointName":"bench-endpoint","EndpointConfigName":
         "bench-config"})"}};
    for (const auto& [operation, body] : requests) {
      const protocol::HttpRequest create{
          "POST", "/", {{"X-Amz-Target", std::string("SageMaker.") + operation}}, body};
      if (router.Handle(create).status != 200) return false;
    }
    return router.Handle(describe).status == 200;
  }
};

// A whole DescribeEndpoint through the router.
void BM_RouterDescribeEndpoint(benchmark::State& state) {
  EndpointFixture fixture;
  if (!fixture.Create()) state.SkipWithError("creating the endpoint failed");
  for (auto _ : state) benchmark::DoNotOptimize(fixture.router.Handle(fixture.describe).status);
}
BENCHMARK(BM_RouterDescribeEndpoint);

// DescribeEndpoint in the emulator alone: the handler, which writes its answer's text as it goes
// (there is no separate rendering step to measure), without the router's parsing, validation and
// HTTP answer around it.
void BM_EmulatorDescribeEndpoint(benchmark::State& state) {
  EndpointFixture fixture;
  if (!fixture.Create()) state.SkipWithError("creating the endpoint failed");
  const nlohmann::json input{{"EndpointName", "bench-endpoint"}};
  const ops::Caller caller{"000000000000", "us-east-1", "bench"};
  for (auto _ : state) {
    auto output = fixture.emulator.Invoke("DescribeEndpoint", input, caller);
    if (!output) {
      state.SkipWithError("DescribeEndpoint failed");
      break;
    }
    benchmark::DoNotOptimize(std::move(*output).Text());
  }
}
BENCHMARK(BM_EmulatorDescribeEndpoint);

// A region with four zones of one instance type and 100,000 sold plans of 1 to 14 days spread over
// a year: the ledger a busy demo server holds.
struct LoadedLedger {
  domain::CapacityLedger ledger;
  domain::CapacityConfig config;
  TimePoint start{Millis{1800835200000}};

  explicit LoadedLedger(int plans) {
    config.prices["ml.p5.48xlarge"] = {98.32, 55.0};
    const char* zones[] = {"us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"};
    for (const char* zone : zones) {
      ledger.SetPool({"us-west-2", zone, "ml.p5.48xlarge"}, plans, 0);
    }
    std::mt19937 random(42);
    std::map<std::string, std::vector<domain::Commitment>> sold;
    for (int i = 0; i < plans; ++i) {
      const char* zone = zones[random() % 4];
      const TimePoint from = start + static_cast<int>(random() % (365 * 24)) * domain::kHour;
      const auto length = static_cast<int>(1 + random() % 14) * domain::kDay;
      sold[zone].push_back({{from, from + length}, 1 + static_cast<int>(random() % 4)});
    }
    for (const auto& [zone, commitments] : sold) {
      ledger.Restore({"us-west-2", zone, "ml.p5.48xlarge"}, commitments);
    }
  }
};

// Building a ledger of 1M plans takes seconds; each size is built once per process, not once per
// repetition.
const LoadedLedger& LedgerOf(int plans) {
  static std::map<int, std::unique_ptr<LoadedLedger>> built;
  auto& slot = built[plans];
  if (!slot) slot = std::make_unique<LoadedLedger>(plans);
  return *slot;
}

void BM_SearchOfferings(benchmark::State& state) {
  const LoadedLedger& loaded = LedgerOf(static_cast<int>(state.range(0)));
  domain::SearchInput input;
  input.instance_type = "ml.p5.48xlarge";
  input.instance_count = 8;
  input.duration_hours = 7 * 24;
  input.target_resources = {"training-job"};
  const auto made = domain::MakeOfferingRequest(input, loaded.start + 90 * domain::kDay, {});
  if (!made) {
    state.SkipWithError("the search request was refused");
    return;
  }
  const domain::OfferingRequest& request = *made;
  for (auto _ : state) {
    benchmark::DoNotOptimize(domain::SearchOfferings(loaded.ledger, loaded.config, "000000000000",
                                                     "us-west-2", request));
  }
}
// 1k to 1M plans: the growth with the size of the ledger (bench/run prints the ratios).
BENCHMARK(BM_SearchOfferings)
    ->RangeMultiplier(10)
    ->Range(1000, 1000000)
    ->Unit(benchmark::kMicrosecond);

void BM_LedgerFreeCount(benchmark::State& state) {
  const LoadedLedger& loaded = LedgerOf(static_cast<int>(state.range(0)));
  const domain::PoolKey pool{"us-west-2", "us-west-2a", "ml.p5.48xlarge"};
  const domain::Window week{loaded.start + 100 * domain::kDay, loaded.start + 107 * domain::kDay};
  for (auto _ : state) benchmark::DoNotOptimize(loaded.ledger.FreeReservable(pool, week));
}
BENCHMARK(BM_LedgerFreeCount)->Arg(100000);

}  // namespace
}  // namespace smemu

BENCHMARK_MAIN();
