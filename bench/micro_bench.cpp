// Micro-benchmarks of the request path, each reported as a ratio to a baseline measured in the same
// run (bench/run prints the table): parsing and re-serialising the same JSON body is the floor any
// JSON API server pays per request.
#include <benchmark/benchmark.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include "apimodel/embedded_models.hpp"
#include "apimodel/validator.hpp"
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

}  // namespace
}  // namespace smemu

BENCHMARK_MAIN();
