// The executable's account service quotas: `--quotas FILE` (or SAGEMAKER_EMULATOR_QUOTAS) is
// enforced from the first request, and a file that cannot be used stops the start naming it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/http_client.hpp"
#include "e2e/process.hpp"
#include "test_support.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::Process;

using testing::TempFile;

const json kTrainingJob = {
    {"TrainingJobName", "gpu"},
    {"RoleArn", "arn:aws:iam::123456789012:role/r"},
    {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
    {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
    {"ResourceConfig",
     {{"InstanceType", "ml.p5.48xlarge"}, {"InstanceCount", 2}, {"VolumeSizeInGB", 50}}}};

// Starts the binary and checks that a p5 training job is refused by the quota the file sets (1
// ml.p5.48xlarge for training jobs) and that GET /_emulator/quotas lists it.
void ExpectQuotasEnforced(Process& server) {
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0);
  testing::HttpClient client(port);
  const auto refused = client.Aws("CreateTrainingJob", kTrainingJob.dump());
  EXPECT_EQ(refused.status, 400) << refused.body;
  const json error = json::parse(refused.body);
  EXPECT_EQ(error["__type"], "ResourceLimitExceeded");
  EXPECT_EQ(error["message"],
            "The account-level service limit 'ml.p5.48xlarge for training job usage' is 1 "
            "Instances, with current utilization of 0 Instances and a request delta of 2 "
            "Instances. Please use AWS Service Quotas to request an increase for this quota. If "
            "AWS Service Quotas is not available, contact AWS support to request an increase for "
            "this quota.");
  EXPECT_EQ(client.Aws("DescribeTrainingJob", R"({"TrainingJobName":"gpu"})").status, 400)
      << "nothing was created";
  const auto listed = client.Send("GET", "/_emulator/quotas", "");
  ASSERT_EQ(listed.status, 200) << listed.body;
  const json quotas = json::parse(listed.body)["quotas"];
  EXPECT_EQ(quotas,
            (json{{{"name", "ml.p5.48xlarge for training job usage"}, {"value", 1}, {"used", 0}}}));
}

constexpr const char* kQuotas =
    R"({"quotas": [{"name": "ml.p5.48xlarge for training job usage", "value": 1}]})";

TEST(QuotasBinary, TheQuotasFileIsEnforced) {
  const TempFile quotas(kQuotas);
  Process server({"--port", "0", "--db", ":memory:", "--quotas", quotas.str()});
  ExpectQuotasEnforced(server);
}

TEST(QuotasBinary, TheEnvironmentVariableWorksAsTheFlag) {
  const TempFile quotas(kQuotas);
  const std::string path = quotas.str();
  Process server({"--port", "0", "--db", ":memory:"}, /*merge_stderr=*/true,
                 [&path] { setenv("SAGEMAKER_EMULATOR_QUOTAS", path.c_str(), 1); });
  ExpectQuotasEnforced(server);
}

TEST(QuotasBinary, WithoutQuotasNothingIsLimited) {
  Process server({"--port", "0", "--db", ":memory:"});
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0);
  testing::HttpClient client(port);
  const auto created = client.Aws("CreateTrainingJob", kTrainingJob.dump());
  EXPECT_EQ(created.status, 200) << created.body;
}

TEST(QuotasBinary, AMissingFileStopsTheStartNamingIt) {
  const std::string missing = testing::TempDbPath().str();  // removed already
  Process server({"--port", "0", "--db", ":memory:", "--quotas", missing});
  EXPECT_NE(server.Wait(std::chrono::seconds(10)), 0) << server.output();
  EXPECT_THAT(server.output(), HasSubstr(missing));
  EXPECT_THAT(server.output(), ::testing::Not(HasSubstr("listening")));
}

TEST(QuotasBinary, InvalidJsonStopsTheStartNamingTheFile) {
  const TempFile quotas(R"({"quotas": [)");
  Process server({"--port", "0", "--db", ":memory:", "--quotas", quotas.str()});
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 1) << server.output();
  EXPECT_THAT(server.output(),
              HasSubstr("sagemaker-emulator: cannot start: " + quotas.str() + ": not valid JSON"));
}

TEST(QuotasBinary, AnUnknownQuotaNameStopsTheStartNamingTheFileAndThePath) {
  const TempFile quotas(
      R"({"quotas": [{"name": "ml.p5.48xlarge for transform job usage", "value": 1}]})");
  Process server({"--port", "0", "--db", ":memory:", "--quotas", quotas.str()});
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 1) << server.output();
  EXPECT_THAT(server.output(), HasSubstr("sagemaker-emulator: cannot start: " + quotas.str() +
                                         ": quotas document: quotas[0].name: unknown quota "
                                         "'ml.p5.48xlarge for transform job usage'."));
}

TEST(QuotasBinary, ABadFileInTheEnvironmentStopsTheStartToo) {
  const TempFile quotas(R"({"preset": "old-account"})");
  const std::string path = quotas.str();
  Process server({"--port", "0", "--db", ":memory:"}, /*merge_stderr=*/true,
                 [&path] { setenv("SAGEMAKER_EMULATOR_QUOTAS", path.c_str(), 1); });
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 1) << server.output();
  EXPECT_THAT(server.output(),
              HasSubstr(path + ": quotas document: preset: must be \"new-account\" or \"none\""));
}

}  // namespace
}  // namespace smemu
