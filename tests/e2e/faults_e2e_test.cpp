// The executable's fault rules and request rates: `--faults FILE` (or SAGEMAKER_EMULATOR_FAULTS)
// is in force from the first request and kept by a reset, a faults step of an --init scenario
// adds rules, latency is held back without holding the server, a rule the model cannot answer
// stops the start naming the file, and `--rate-limits aws` throttles at AWS's rates.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>

#include "e2e/http_client.hpp"
#include "e2e/process.hpp"
#include "test_support.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::HttpClient;
using testing::Process;

using testing::TempFile;

constexpr const char* kFaults = R"({"rules": [
  {"id": "busy", "operation": "ListModels", "every": 2, "error": "ThrottlingException"}]})";

void ExpectEverySecondListModelsThrottled(Process& server) {
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0) << server.output();
  HttpClient client(port);
  for (int round = 0; round < 2; ++round) {  // a reset keeps the file's rule, and starts it over
    EXPECT_EQ(client.Aws("ListModels", "{}").status, 200);
    const auto throttled = client.Aws("ListModels", "{}");
    EXPECT_EQ(throttled.status, 400);
    EXPECT_EQ(json::parse(throttled.body)["__type"], "ThrottlingException");
    EXPECT_EQ(client.Send("POST", "/_emulator/reset", "{}").status, 200);
  }
  const json rules = json::parse(client.Send("GET", "/_emulator/faults", "").body)["rules"];
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]["source"], "file");
}

TEST(FaultsBinary, TheFaultsFileIsInForceAndKeptByAReset) {
  const TempFile faults(kFaults);
  Process server({"--port", "0", "--db", ":memory:", "--faults", faults.str()});
  ExpectEverySecondListModelsThrottled(server);
}

TEST(FaultsBinary, TheEnvironmentVariableWorksAsTheFlag) {
  const TempFile faults(kFaults);
  const std::string path = faults.str();
  Process server({"--port", "0", "--db", ":memory:"}, /*merge_stderr=*/true,
                 [&path] { setenv("SAGEMAKER_EMULATOR_FAULTS", path.c_str(), 1); });
  ExpectEverySecondListModelsThrottled(server);
}

TEST(FaultsBinary, ARuleTheModelCannotAnswerStopsTheStartNamingTheFile) {
  const TempFile faults(R"({"rules": [{"operation": "ListModels", "error": "ModelError"}]})");
  Process server({"--port", "0", "--db", ":memory:", "--faults", faults.str()});
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 1) << server.output();
  EXPECT_THAT(server.output(), HasSubstr("cannot start: " + faults.str() +
                                         ": Fault rule 1: ListModels cannot answer ModelError"));
}

TEST(FaultsBinary, AScenarioStepAddsRules) {
  const TempFile scenario(R"([
    {"faults": {"operation": "DescribeEndpoint", "error": "ServiceUnavailable"}},
    {"operation": "CreateModel", "input": {"ModelName": "m"}}])");
  Process server({"--port", "0", "--db", ":memory:", "--init", scenario.str()});
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0) << server.output();
  HttpClient client(port);
  EXPECT_EQ(client.Aws("DescribeEndpoint", R"({"EndpointName": "e"})").status, 503);
}

// A latency rule holds its answer back in real time while other requests are served.
TEST(FaultsBinary, LatencyHoldsOneAnswerNotTheServer) {
  Process server({"--port", "0", "--db", ":memory:", "--threads", "1"});
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0);
  HttpClient admin(port);
  ASSERT_EQ(admin
                .Send("POST", "/_emulator/faults",
                      R"({"operation": "DescribeEndpoint", "latency_ms": 1500})")
                .status,
            200);
  const auto started = std::chrono::steady_clock::now();
  auto slow = std::async(std::launch::async, [port] {
    HttpClient client(port);
    return client.Aws("DescribeEndpoint", R"({"EndpointName": "e"})").status;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  HttpClient other(port);
  EXPECT_EQ(other.Aws("ListModels", "{}").status, 200);
  const auto quick = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(slow.get(), 400);  // the endpoint does not exist: answered, late
  const auto held = std::chrono::steady_clock::now() - started;
  EXPECT_LT(quick, held) << "the other request was answered first";
  EXPECT_GE(held, std::chrono::milliseconds(1500));
}

TEST(FaultsBinary, AwsRatesThrottleListTrainingJobsAtTwoPerSecond) {
  Process server({"--port", "0", "--db", ":memory:", "--rate-limits", "aws"});
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0) << server.output();
  HttpClient client(port);
  int refused = 0;
  for (int i = 0; i < 5; ++i) refused += client.Aws("ListTrainingJobs", "{}").status == 400;
  EXPECT_GE(refused, 2);  // two go at once; a few more only if the requests took a second
}

}  // namespace
}  // namespace smemu
