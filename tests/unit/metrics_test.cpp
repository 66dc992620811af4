// GET /_emulator/metrics: the Prometheus text format, line by line, and what each family counts.
// (client.prometheus_parser also parses a live server's output with the Prometheus client
// library's own parser.)
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "unit/emulator_fixture.hpp"

namespace smemu::testing {
namespace {

using ::testing::HasSubstr;

bool IsMetricName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':';
  });
}

// Reads `{a="x",b="y"}` at `at`; false unless every label is name="escaped value".
bool SkipLabels(const std::string& line, size_t& at) {
  if (at >= line.size() || line[at] != '{') return true;
  ++at;
  while (at < line.size() && line[at] != '}') {
    const size_t equals = line.find('=', at);
    if (equals == std::string::npos || !IsMetricName(line.substr(at, equals - at)) ||
        equals + 1 >= line.size() || line[equals + 1] != '"') {
      return false;
    }
    at = equals + 2;
    while (at < line.size() && line[at] != '"') {
      if (line[at] == '\\') {
        if (at + 1 >= line.size() || std::string("\\\"n").find(line[at + 1]) == std::string::npos) {
          return false;
        }
        ++at;
      } else if (line[at] == '\n') {
        return false;
      }
      ++at;
    }
    if (at >= line.size()) return false;
    ++at;  // the closing quote
    if (at < line.size() && line[at] == ',') ++at;
  }
  if (at >= line.size()) return false;
  ++at;  // the closing brace
  return true;
}

// Checks every line against the text format and returns the samples, by their full name with
// labels (e.g. `x_total{operation="A",status="200"}`).
std::map<std::string, double> ParseExposition(const std::string& text) {
  static const std::set<std::string> kTypes = {"counter", "gauge", "histogram", "summary",
                                               "untyped"};
  std::map<std::string, double> samples;
  std::set<std::string> typed;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    std::istringstream words(line);
    std::string hash, keyword, name, rest;
    if (line.rfind("# ", 0) == 0) {
      words >> hash >> keyword >> name;
      std::getline(words, rest);
      EXPECT_TRUE(IsMetricName(name)) << "line " << number << ": " << line;
      if (keyword == "TYPE") {
        EXPECT_TRUE(kTypes.count(rest.substr(rest.find_first_not_of(' '))))
            << "line " << number << ": " << line;
        EXPECT_TRUE(typed.insert(name).second) << "TYPE twice, line " << number;
      } else {
        EXPECT_EQ(keyword, "HELP") << "line " << number;
        EXPECT_FALSE(rest.empty()) << "line " << number;
      }
      continue;
    }
    size_t at = 0;
    while (at < line.size() && line[at] != '{' && line[at] != ' ') ++at;
    name = line.substr(0, at);
    EXPECT_TRUE(IsMetricName(name)) << "line " << number << ": " << line;
    EXPECT_TRUE(SkipLabels(line, at)) << "line " << number << ": " << line;
    if (at >= line.size() || line[at] != ' ') {
      ADD_FAILURE() << "no value, line " << number << ": " << line;
      continue;
    }
    const std::string series = line.substr(0, at);
    const std::string value = line.substr(at + 1);
    size_t parsed = 0;
    const double number_value = std::stod(value == "+Inf" ? "inf" : value, &parsed);
    EXPECT_EQ(parsed, value == "+Inf" ? 3u : value.size()) << "line " << number << ": " << line;
    std::string family = name;
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
      const std::string end(suffix);
      if (!typed.count(family) && family.size() > end.size() &&
          family.compare(family.size() - end.size(), end.size(), end) == 0) {
        family.resize(family.size() - end.size());
      }
    }
    EXPECT_TRUE(typed.count(family)) << "sample before its TYPE, line " << number << ": " << line;
    EXPECT_FALSE(samples.count(series)) << "sample twice, line " << number;
    samples[series] = number_value;
  }
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  return samples;
}

TEST(ExpositionChecker, RefusesMalformedLines) {
  EXPECT_NONFATAL_FAILURE(ParseExposition("# TYPE x counter\nx{a=\"1\" 1\n"), "line 2");
  EXPECT_NONFATAL_FAILURE(ParseExposition("# TYPE x counter\nx 1 2\n"), "line 2");
  EXPECT_NONFATAL_FAILURE(ParseExposition("y 1\n"), "sample before its TYPE");
  EXPECT_NONFATAL_FAILURE(ParseExposition("# TYPE z sometimes\n"), "line 1");
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

// A monotonic clock that moves 300 ms each time it is read: the router reads it when a request
// arrives and when it is answered.
class SteppingMonotonicClock final : public MonotonicClock {
 public:
  SteadyTime Now() const override {
    return SteadyTime{} + std::chrono::milliseconds(300) * ++reads_;
  }

 private:
  mutable std::atomic<int> reads_{0};
};

TEST_F(MetricsTest, LatencyIsMeasuredOnTheInjectedMonotonicClock) {
  SteppingMonotonicClock clock;
  router_config_.monotonic_clock = &clock;
  Open();
  Call("ListModels", json::object());
  auto samples = ParseExposition(Metrics());
  const std::string histogram = "sagemaker_emulator_request_duration_seconds";
  EXPECT_DOUBLE_EQ(samples[histogram + R"(_sum{operation="ListModels"})"], 0.3);
  EXPECT_EQ(samples[histogram + R"(_bucket{operation="ListModels",le="0.25"})"], 0);
  EXPECT_EQ(samples[histogram + R"(_bucket{operation="ListModels",le="0.5"})"], 1);
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
  Advance(kPlanDayOffset);  // 11:30 UTC: the plan starts
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
  EXPECT_EQ(samples.at("sagemaker_emulator_virtual_clock_seconds"), kPlanStartSeconds);
  EXPECT_FALSE(plan.empty());
}

// A HyperPod cluster's instances count in the in-use gauge under holder="cluster"; the quotas set
// are reported for the server's account and region, for every account and region with resources,
// and for those a setting names.
TEST_F(MetricsTest, ClustersHoldInstancesAndQuotasAreGauges) {
  auto families = [this] {
    std::set<std::string> found;
    std::istringstream lines(Metrics());
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("# TYPE sagemaker_emulator_quota_", 0) == 0) found.insert(line);
    }
    return found;
  };
  EXPECT_EQ(families(), (std::set<std::string>{"# TYPE sagemaker_emulator_quota_limit gauge",
                                               "# TYPE sagemaker_emulator_quota_used gauge"}));
  for (const auto& [name, value] : ParseExposition(Metrics())) {
    EXPECT_THAT(name, ::testing::Not(HasSubstr("quota_"))) << "no quota is set: none to report";
  }

  const json set = Admin("POST", "/_emulator/quotas", R"({"quotas": [
      {"name": "ml.p5.48xlarge for cluster usage", "value": 1},
      {"name": "Total number of instances allowed across SageMaker HyperPod clusters", "value": 4,
       "account": "123456789012"},
      {"name": "Number of training plans per Region", "value": 2, "account": "210987654321",
       "region": "eu-west-1"},
      {"name": "Number of training plans per Region", "value": 3, "account": "555555555555"}]})");
  ASSERT_EQ(set["quotas"].size(), 4u) << set;
  Call("CreateCluster",
       {{"ClusterName", "c"},
        {"InstanceGroups",
         {{{"InstanceGroupName", "g"},
           {"InstanceType", "ml.p5.48xlarge"},
           {"InstanceCount", 1},
           {"ExecutionRole", "arn:aws:iam::123456789012:role/hyperpod"},
           {"LifeCycleConfig", {{"SourceS3Uri", "s3://b/lc"}, {"OnCreate", "on_create.sh"}}}}}}});
  const auto samples = ParseExposition(Metrics());
  EXPECT_EQ(samples.at(R"(sagemaker_emulator_resources{kind="cluster",status="InService"})"), 1);
  EXPECT_EQ(
      samples.at(
          R"(sagemaker_emulator_instances_in_use{region="us-west-2",instance_type="ml.p5.48xlarge",holder="cluster",source="on_demand"})"),
      1);
  std::map<std::string, double> quotas;
  for (const auto& [name, value] : samples) {
    if (name.rfind("sagemaker_emulator_quota_", 0) == 0) quotas[name] = value;
  }
  const std::string us = R"(account="123456789012",region="us-west-2",name=)";
  const std::string server = R"(account="000000000000",region="us-east-1",name=)";
  const std::string other = R"(account="210987654321",region="eu-west-1",name=)";
  const std::string idle = R"(account="555555555555",region="us-east-1",name=)";
  const std::string p5 = R"("ml.p5.48xlarge for cluster usage"})";
  const std::string total =
      R"("Total number of instances allowed across SageMaker HyperPod clusters"})";
  const std::string plans = R"("Number of training plans per Region"})";
  EXPECT_EQ(quotas,
            (std::map<std::string, double>{{"sagemaker_emulator_quota_limit{" + us + p5, 1},
                                           {"sagemaker_emulator_quota_used{" + us + p5, 1},
                                           {"sagemaker_emulator_quota_limit{" + us + total, 4},
                                           {"sagemaker_emulator_quota_used{" + us + total, 1},
                                           {"sagemaker_emulator_quota_limit{" + server + p5, 1},
                                           {"sagemaker_emulator_quota_used{" + server + p5, 0},
                                           {"sagemaker_emulator_quota_limit{" + other + p5, 1},
                                           {"sagemaker_emulator_quota_used{" + other + p5, 0},
                                           {"sagemaker_emulator_quota_limit{" + other + plans, 2},
                                           {"sagemaker_emulator_quota_used{" + other + plans, 0},
                                           {"sagemaker_emulator_quota_limit{" + idle + p5, 1},
                                           {"sagemaker_emulator_quota_used{" + idle + p5, 0},
                                           {"sagemaker_emulator_quota_limit{" + idle + plans, 3},
                                           {"sagemaker_emulator_quota_used{" + idle + plans, 0}}))
      << "the cluster's account (the setting for all its regions shown where it has resources), "
         "the server's own, and those settings name (in the server's region when they name none)";
}

TEST_F(MetricsTest, OnlyTheOperatorMaySeeThem) {
  Metrics({{"Authorization", kAuth}}, 403);  // an AWS account: the metrics span every account
  EXPECT_EQ(router_->Handle({"POST", "/_emulator/metrics", {}, ""}).status, 405);
  router_config_.admin_token = "secret";
  Open();
  Metrics({}, 403);
  ParseExposition(Metrics({{"X-Emulator-Admin-Token", "secret"}}));
}

}  // namespace
}  // namespace smemu::testing
