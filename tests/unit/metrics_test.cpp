// GET /_emulator/metrics: the Prometheus text format, line by line, and what each family counts.
// (client.prometheus_parser also parses a live server's output with the Prometheus client
// library's own parser.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <sstream>

#include "unit/emulator_fixture.hpp"

namespace smemu::testing {
namespace {

using ::testing::HasSubstr;

// Checks every line against the text format and returns the samples, by their full name with
// labels (e.g. `x_total{operation="A",status="200"}`).
std::map<std::string, double> ParseExposition(const std::string& text) {
  static const std::regex kHelp(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+)");
  static const std::regex kType(
      R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped))");
  static const std::regex kSample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})?) ([-+]?[0-9.eE+-]+|\+Inf|-Inf|NaN))");
  std::map<std::string, double> samples;
  std::set<std::string> typed;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::smatch match;
    if (std::regex_match(line, match, kType)) {
      EXPECT_TRUE(typed.insert(match[1]).second) << "TYPE twice, line " << number;
    } else if (std::regex_match(line, match, kSample)) {
      const std::string name = match[1].str().substr(0, match[1].str().find('{'));
      const bool declared = typed.count(name) || typed.count(std::regex_replace(
                                                     name, std::regex("_(bucket|sum|count)$"), ""));
      EXPECT_TRUE(declared) << "sample before its TYPE, line " << number << ": " << line;
      EXPECT_FALSE(samples.count(match[1])) << "sample twice, line " << number;
      samples[match[1]] = std::stod(match[5] == "+Inf" ? "inf" : match[5].str());
    } else {
      EXPECT_TRUE(std::regex_match(line, kHelp)) << "line " << number << ": " << line;
    }
  }
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  return samples;
}

class MetricsTest : public EmulatorFixture {
 protected:
  std::string Metrics(protocol::Headers headers = {}, int status = 200) {
    const auto response = router_->Handle({"GET", "/_emulator/metrics", std::move(headers), ""});
    EXPECT_EQ(response.status, status) << response.body;
    if (status == 200) {
      EXPECT_EQ(response.headers[0],
                (std::pair<std::string, std::string>{"Content-Type",
                                                     "text/plain; version=0.0.4; charset=utf-8"}));
    }
    return response.body;
  }
};

TEST_F(MetricsTest, RequestsAreCountedByOperationAndStatusWithALatencyHistogram) {
  Call("CreateModel", {{"ModelName", "m"}});
  Call("CreateModel", {{"ModelName", "m"}}, 400);
  Call("DescribeModel", {{"ModelName", "m"}});
  auto samples = ParseExposition(Metrics());
  const std::string requests = "sagemaker_emulator_requests_total";
  EXPECT_EQ(samples[requests + R"({operation="CreateModel",status="200"})"], 1);
  EXPECT_EQ(samples[requests + R"({operation="CreateModel",status="400"})"], 1);
  EXPECT_EQ(samples[requests + R"({operation="DescribeModel",status="200"})"], 1);
  const std::string histogram = "sagemaker_emulator_request_duration_seconds";
  EXPECT_EQ(samples[histogram + R"(_count{operation="CreateModel"})"], 2);
  EXPECT_EQ(samples[histogram + R"(_bucket{operation="CreateModel",le="+Inf"})"], 2);
  EXPECT_GT(samples[histogram + R"(_sum{operation="CreateModel"})"], 0);
  double previous = 0;  // buckets are cumulative
  for (const double bound : protocol::RequestMetrics::kBuckets) {
    std::ostringstream le;
    le << bound;
    const double count =
        samples[histogram + R"(_bucket{operation="CreateModel",le=")" + le.str() + "\"}"];
    EXPECT_GE(count, previous) << bound;
    previous = count;
  }
  // The metrics request itself is counted from the next scrape on.
  samples = ParseExposition(Metrics());
  EXPECT_EQ(samples[requests + R"({operation="/_emulator/metrics",status="200"})"], 1);
}

TEST_F(MetricsTest, UnknownOperationsAndPathsShareOneLabel) {
  for (int i = 0; i < 5; ++i) {
    router_->Handle({"POST", "/", {{"X-Amz-Target", "SageMaker.Made" + std::to_string(i)}}, "{}"});
    router_->Handle({"GET", "/_emulator/nothing" + std::to_string(i), {}, ""});
  }
  const auto samples = ParseExposition(Metrics());
  const std::string requests = "sagemaker_emulator_requests_total";
  EXPECT_EQ(samples.at(requests + R"({operation="other",status="400"})"), 5);
  EXPECT_EQ(samples.at(requests + R"({operation="other",status="404"})"), 5);
  for (const auto& [name, value] : samples) EXPECT_THAT(name, ::testing::Not(HasSubstr("Made")));
}

TEST_F(MetricsTest, ResourcesPoolsAndInstancesInUseAreGauges) {
  const std::string plan = Call(
      "CreateTrainingPlan",
      {{"TrainingPlanName", "p"},
       {"TrainingPlanOfferingId",
        Search(7, 1)["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  Call("CreateModel", {{"ModelName", "m"}});
  Call("CreateEndpointConfig", {{"EndpointConfigName", "c"},
                                {"ProductionVariants",
                                 {{{"VariantName", "AllTraffic"},
                                   {"ModelName", "m"},
                                   {"InstanceType", "ml.p5.48xlarge"},
                                   {"InitialInstanceCount", 1}}}}});
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "c"}});
  const auto samples = ParseExposition(Metrics());
  EXPECT_EQ(samples.at(R"(sagemaker_emulator_resources{kind="endpoint",status="InService"})"), 1);
  EXPECT_EQ(samples.at(R"(sagemaker_emulator_resources{kind="model",status=""})"), 1);
  EXPECT_EQ(samples.at(R"(sagemaker_emulator_resources{kind="training-plan",status="Active"})"), 1);
  const std::string pool =
      R"(region="us-west-2",availability_zone="us-west-2a",instance_type="ml.p5.48xlarge")";
  EXPECT_EQ(samples.at("sagemaker_emulator_pool_instances{" + pool + R"(,kind="reservable"})"), 2);
  EXPECT_EQ(samples.at("sagemaker_emulator_pool_instances{" + pool + R"(,kind="on_demand"})"), 1);
  double reserved = 0;  // the plan's zone is the search's choice
  for (const auto& [name, value] : samples) {
    if (name.rfind("sagemaker_emulator_reserved_instances{", 0) == 0) reserved += value;
  }
  EXPECT_EQ(reserved, 1);
  EXPECT_EQ(
      samples.at(
          R"(sagemaker_emulator_instances_in_use{region="us-west-2",instance_type="ml.p5.48xlarge",holder="endpoint",source="on_demand"})"),
      1);
  EXPECT_EQ(samples.at("sagemaker_emulator_virtual_clock_seconds"), kStartSeconds);
  EXPECT_FALSE(plan.empty());
}

TEST_F(MetricsTest, OnlyTheOperatorMaySeeThem) {
  Metrics({{"Authorization", kAuth}}, 403);  // an AWS account: the metrics span every account
  EXPECT_EQ(router_->Handle({"POST", "/_emulator/metrics", {}, ""}).status, 405);
  router_config_.admin_open = false;
  router_config_.admin_token = "secret";
  Open();
  Metrics({}, 403);
  ParseExposition(Metrics({{"X-Emulator-Admin-Token", "secret"}}));
}

}  // namespace
}  // namespace smemu::testing
