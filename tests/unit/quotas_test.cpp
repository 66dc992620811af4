// Account service quotas: the names, the table and its precedence, the refusal sentence (domain),
// then every operation that enforces them through the router, and the admin API that sets them
// (GET/POST /_emulator/quotas), across a restart and a reset.
#include "domain/quotas.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "ops/quota_document.hpp"
#include "test_support.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
using domain::QuotaSetting;
using domain::QuotaSubject;
using domain::QuotaTable;
using domain::QuotaUse;
using domain::ResourceKind;
using ::testing::HasSubstr;

constexpr const char* kOther = "210987654321";

// AWS's refusal, written out here independently of domain::QuotaExceeded.
std::string Refusal(const std::string& name, int limit, int used, int delta,
                    const std::string& unit = " Instances") {
  return "The account-level service limit '" + name + "' is " + std::to_string(limit) + unit +
         ", with current utilization of " + std::to_string(used) + unit +
         " and a request delta of " + std::to_string(delta) + unit +
         ". Please use AWS Service Quotas to request an increase for this quota. If AWS Service "
         "Quotas is not available, contact AWS support to request an increase for this quota.";
}

// ---- Domain: names ----------------------------------------------------------------------------

TEST(QuotaNames, PerTypeTotalsAndPlanNamesAreAwsWords) {
  EXPECT_EQ(domain::PerTypeQuotaName(ResourceKind::kEndpoint, "ml.g5.12xlarge"),
            "ml.g5.12xlarge for endpoint usage");
  EXPECT_EQ(domain::PerTypeQuotaName(ResourceKind::kTrainingJob, "ml.p5.48xlarge"),
            "ml.p5.48xlarge for training job usage");
  EXPECT_EQ(domain::PerTypeQuotaName(ResourceKind::kProcessingJob, "ml.m5.xlarge"),
            "ml.m5.xlarge for processing job usage");
  EXPECT_EQ(domain::PerTypeQuotaName(ResourceKind::kCluster, "ml.trn1.32xlarge"),
            "ml.trn1.32xlarge for cluster usage");
  EXPECT_EQ(domain::TotalQuotaName(ResourceKind::kEndpoint),
            "Number of instances across active endpoints");
  EXPECT_EQ(domain::TotalQuotaName(ResourceKind::kTrainingJob),
            "Number of instances across all training jobs");
  EXPECT_EQ(domain::TotalQuotaName(ResourceKind::kProcessingJob),
            "Number of instances across all processing jobs");
  EXPECT_EQ(domain::TotalQuotaName(ResourceKind::kCluster),
            "Total number of instances allowed across SageMaker HyperPod clusters");
  EXPECT_EQ(domain::kPerClusterQuota,
            "Maximum number instances allowed per SageMaker HyperPod cluster");
  EXPECT_EQ(domain::kPlanCountQuota, "Number of training plans per Region");
  EXPECT_EQ(domain::ReservedCapacityQuotaName("ml.p5.48xlarge"),
            "Number of ml.p5.48xlarge instances in reserved capacity across training plans per "
            "Region");
}

void ExpectSubject(const std::string& name, QuotaSubject::Scope scope, QuotaUse use,
                   const std::string& type) {
  const auto subject = domain::ParseQuotaName(name);
  ASSERT_TRUE(subject.has_value()) << name;
  EXPECT_EQ(subject->scope, scope) << name;
  EXPECT_EQ(subject->instance_type, type) << name;
  // The use means something only for per-type and total quotas.
  if (scope == QuotaSubject::Scope::kPerType || scope == QuotaSubject::Scope::kTotal) {
    EXPECT_EQ(subject->use, use) << name;
  }
}

TEST(QuotaNames, EveryFormParsesBackToWhatItLimits) {
  using Scope = QuotaSubject::Scope;
  for (QuotaUse use : {ResourceKind::kEndpoint, ResourceKind::kTrainingJob,
                       ResourceKind::kProcessingJob, ResourceKind::kCluster}) {
    ExpectSubject(domain::PerTypeQuotaName(use, "ml.p6e-gb200.36xlarge"), Scope::kPerType, use,
                  "ml.p6e-gb200.36xlarge");
    ExpectSubject(std::string(domain::TotalQuotaName(use)), Scope::kTotal, use, "");
  }
  ExpectSubject("ml.g5.12xlarge for endpoint usage", Scope::kPerType, ResourceKind::kEndpoint,
                "ml.g5.12xlarge");
  ExpectSubject("ml.g5.12xlarge for processing job usage", Scope::kPerType,
                ResourceKind::kProcessingJob, "ml.g5.12xlarge");
  ExpectSubject("Maximum number instances allowed per SageMaker HyperPod cluster",
                Scope::kPerCluster, ResourceKind::kCluster, "");
  ExpectSubject("Number of training plans per Region", Scope::kPlanCount,
                ResourceKind::kTrainingJob, "");
  ExpectSubject(
      "Number of ml.trn2.48xlarge instances in reserved capacity across training plans per Region",
      Scope::kReservedCapacity, ResourceKind::kTrainingJob, "ml.trn2.48xlarge");
}

TEST(QuotaNames, NamesTheEmulatorDoesNotEnforceAreUnknown) {
  for (const char* name : {
           "",
           "ml.p5.48xlarge for spot training job usage",  // a real quota, not emulated
           "ml.p5.48xlarge for transform job usage",
           "Number of instances across all transform jobs",
           "p5.48xlarge for endpoint usage",  // not an ml. type
           "ml. for endpoint usage",
           " for endpoint usage",
           "ml.p5 48xlarge for endpoint usage",
           "ml.p5.48xlarge for endpoint usage ",
           "ML.P5.48XLARGE FOR ENDPOINT USAGE",
           "number of training plans per region",
           "Maximum number of instances allowed per SageMaker HyperPod cluster",  // AWS has no "of"
           "Number of  instances in reserved capacity across training plans per Region",
           "Number of p5.48xlarge instances in reserved capacity across training plans per Region",
           "Number of ml.p5.48xlarge instances in reserved capacity across training plans",
       }) {
    EXPECT_FALSE(domain::ParseQuotaName(name).has_value()) << "'" << name << "'";
  }
}

// ---- Domain: the table ------------------------------------------------------------------------

constexpr const char* kEndpointP5 = "ml.p5.48xlarge for endpoint usage";

TEST(QuotaTable, TheMostSpecificSettingWins) {
  QuotaTable table;
  EXPECT_TRUE(table.empty());
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), std::nullopt);
  table.Set({"", "", kEndpointP5, 1});
  table.Set({"", kRegion, kEndpointP5, 2});
  table.Set({kAccount, "", kEndpointP5, 3});
  table.Set({kAccount, kRegion, kEndpointP5, 4});
  EXPECT_FALSE(table.empty());
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), 4);
  EXPECT_EQ(table.Limit(kAccount, "eu-west-1", kEndpointP5), 3);
  EXPECT_EQ(table.Limit(kOther, kRegion, kEndpointP5), 2);
  EXPECT_EQ(table.Limit(kOther, "eu-west-1", kEndpointP5), 1);
  EXPECT_EQ(table.Limit(kAccount, kRegion, "ml.p5.48xlarge for training job usage"), std::nullopt);

  table.Set({kAccount, kRegion, kEndpointP5, 7});  // replaces, does not add
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), 7);
  EXPECT_EQ(table.All().size(), 4u);

  EXPECT_TRUE(table.Unset(kAccount, kRegion, kEndpointP5));
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), 3) << "the account's setting next";
  EXPECT_FALSE(table.Unset(kAccount, kRegion, kEndpointP5)) << "already gone";
  EXPECT_FALSE(table.Unset(kAccount, kRegion, "ml.p5.48xlarge for training job usage"));
  EXPECT_TRUE(table.Unset(kAccount, "", kEndpointP5));
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), 2) << "then the region's";
  EXPECT_TRUE(table.Unset("", kRegion, kEndpointP5));
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), 1) << "then every caller's";
  EXPECT_TRUE(table.Unset("", "", kEndpointP5));
  EXPECT_EQ(table.Limit(kAccount, kRegion, kEndpointP5), std::nullopt);
  EXPECT_TRUE(table.empty()) << "a name without settings leaves nothing behind";

  table.Set({"", "", kEndpointP5, 0});
  table.Clear();
  EXPECT_TRUE(table.empty());
}

TEST(QuotaTable, AllIsOrderedByNameThenAccountThenRegion) {
  QuotaTable table;
  table.Set({kOther, "", "ml.g5.xlarge for endpoint usage", 5});
  table.Set({kAccount, kRegion, "ml.g5.xlarge for endpoint usage", 4});
  table.Set({"", "", "Number of training plans per Region", 3});
  table.Set({kAccount, "", "ml.g5.xlarge for endpoint usage", 2});
  table.Set({"", kRegion, "ml.g5.xlarge for endpoint usage", 1});
  EXPECT_EQ(table.All(), (std::vector<QuotaSetting>{
                             {"", "", "Number of training plans per Region", 3},
                             {"", kRegion, "ml.g5.xlarge for endpoint usage", 1},
                             {kAccount, "", "ml.g5.xlarge for endpoint usage", 2},
                             {kAccount, kRegion, "ml.g5.xlarge for endpoint usage", 4},
                             {kOther, "", "ml.g5.xlarge for endpoint usage", 5},
                         }));
}

TEST(QuotaTable, TheNewAccountPresetZeroesAcceleratorsForEveryUse) {
  const std::vector<QuotaSetting> preset = domain::NewAccountQuotas();
  auto has = [&preset](const std::string& name) {
    return std::count(preset.begin(), preset.end(), QuotaSetting{"", "", name, 0}) == 1;
  };
  for (const char* name :
       {"ml.p5.48xlarge for endpoint usage", "ml.p5.48xlarge for training job usage",
        "ml.p5.48xlarge for processing job usage", "ml.p5.48xlarge for cluster usage",
        "ml.g5.12xlarge for endpoint usage", "ml.trn1.32xlarge for cluster usage",
        "ml.g6e.48xlarge for training job usage", "ml.p6e-gb200.36xlarge for endpoint usage"}) {
    EXPECT_TRUE(has(name)) << name;
  }
  for (const QuotaSetting& setting : preset) {
    EXPECT_EQ(setting.value, 0) << setting.name;
    EXPECT_TRUE(setting.account.empty() && setting.region.empty()) << setting.name;
    EXPECT_THAT(setting.name, ::testing::Not(HasSubstr("ml.m5."))) << "CPU types stay unlimited";
    const auto subject = domain::ParseQuotaName(setting.name);
    ASSERT_TRUE(subject.has_value()) << setting.name;
    EXPECT_EQ(subject->scope, QuotaSubject::Scope::kPerType) << setting.name;
  }
  EXPECT_EQ(preset.size(), 34u * 4u);  // 34 accelerated types, four uses each
}

// ---- Domain: the refusal ----------------------------------------------------------------------

TEST(QuotaLimits, TheRefusalIsAwsSentence) {
  const domain::AwsError error =
      domain::QuotaExceeded("ml.g5.12xlarge for endpoint usage", 2, 1, 3);
  EXPECT_EQ(error.code, domain::ErrorCode::kResourceLimitExceeded);
  EXPECT_EQ(error.http_status, 400);
  EXPECT_EQ(error.message,
            "The account-level service limit 'ml.g5.12xlarge for endpoint usage' is 2 Instances, "
            "with current utilization of 1 Instances and a request delta of 3 Instances. Please "
            "use AWS Service Quotas to request an increase for this quota. If AWS Service Quotas "
            "is not available, contact AWS support to request an increase for this quota.");
  EXPECT_EQ(domain::QuotaExceeded("Number of training plans per Region", 5, 5, 1, "").message,
            "The account-level service limit 'Number of training plans per Region' is 5, with "
            "current utilization of 5 and a request delta of 1. Please use AWS Service Quotas to "
            "request an increase for this quota. If AWS Service Quotas is not available, contact "
            "AWS support to request an increase for this quota.");
}

TEST(QuotaLimits, CheckLimitRefusesOnlyGrowthBeyondTheLimit) {
  QuotaTable table;
  const std::string name = "ml.g5.12xlarge for training job usage";
  EXPECT_TRUE(domain::CheckLimit(table, kAccount, kRegion, name, 1000, 1000).ok()) << "unset";
  table.Set({kAccount, kRegion, name, 4});
  EXPECT_TRUE(domain::CheckLimit(table, kAccount, kRegion, name, 1, 3).ok()) << "exactly full";
  const auto refused = domain::CheckLimit(table, kAccount, kRegion, name, 2, 3);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, Refusal(name, 4, 2, 3));
  // Taking nothing more is allowed even above the limit (a quota lowered under what is used).
  EXPECT_TRUE(domain::CheckLimit(table, kAccount, kRegion, name, 9, 0).ok());
  EXPECT_TRUE(domain::CheckLimit(table, kAccount, kRegion, name, 9, -2).ok());
  EXPECT_TRUE(domain::CheckLimit(table, kOther, kRegion, name, 9, 9).ok()) << "another account";
  table.Set({"", "", name, 0});
  const auto zero = domain::CheckLimit(table, kOther, "eu-west-1", name, 0, 1, "");
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.error().message, Refusal(name, 0, 0, 1, ""));
}

TEST(QuotaLimits, QuotaRoomCountsOnlyTheAccountsHoldingsOfTheUse) {
  domain::Holdings holdings;
  const std::string g5 = "ml.g5.xlarge";
  holdings.Put({"arn:aws:sagemaker:us-west-2:123456789012:endpoint/a",
                domain::ResourceKind::kEndpoint,
                kRegion,
                {{g5, "", 2}, {"ml.g5.2xlarge", "arn:plan", 1}},
                kAccount});
  holdings.Put({"arn:aws:sagemaker:us-west-2:210987654321:endpoint/b",
                domain::ResourceKind::kEndpoint,
                kRegion,
                {{g5, "", 3}},
                kOther});
  holdings.Put({"arn:aws:sagemaker:us-west-2:123456789012:training-job/t",
                domain::ResourceKind::kTrainingJob,
                kRegion,
                {{g5, "", 10}},
                kAccount});
  holdings.Put({"arn:aws:sagemaker:us-east-1:123456789012:endpoint/east",
                domain::ResourceKind::kEndpoint,
                "us-east-1",
                {{g5, "", 10}},
                kAccount});
  EXPECT_EQ(holdings.UsedBy(kAccount, kRegion, domain::ResourceKind::kEndpoint, g5), 2);
  EXPECT_EQ(holdings.UsedBy(kAccount, kRegion, domain::ResourceKind::kEndpoint), 3)
      << "on demand and on a plan";
  EXPECT_EQ(holdings.UsedBy(kOther, kRegion, domain::ResourceKind::kEndpoint), 3);

  QuotaTable quotas;
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, kRegion, ResourceKind::kEndpoint, g5),
            INT_MAX);
  quotas.Set({"", "", "ml.g5.xlarge for endpoint usage", 5});
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, kRegion, ResourceKind::kEndpoint, g5), 3);
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kOther, kRegion, ResourceKind::kEndpoint, g5), 2);
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, "eu-west-1", ResourceKind::kEndpoint, g5),
            5);
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, kRegion, ResourceKind::kTrainingJob, g5),
            INT_MAX)
      << "the endpoint quota does not limit training jobs";
  quotas.Set({kAccount, "", "Number of instances across active endpoints", 4});
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, kRegion, ResourceKind::kEndpoint, g5), 1)
      << "the total (4 - 3 held) is tighter than the type (5 - 2)";
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kOther, kRegion, ResourceKind::kEndpoint, g5), 2);
  quotas.Set({kAccount, kRegion, "ml.g5.xlarge for endpoint usage", 1});
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, kRegion, ResourceKind::kEndpoint, g5), -1)
      << "a quota lowered below what is held leaves less than nothing";
  holdings.Remove("arn:aws:sagemaker:us-west-2:123456789012:endpoint/a");
  EXPECT_EQ(domain::QuotaRoom(quotas, holdings, kAccount, kRegion, ResourceKind::kEndpoint, g5), 1);
}

// ---- Through the router -----------------------------------------------------------------------

class QuotasTest : public EmulatorFixture {
 protected:
  explicit QuotasTest(const std::string& db = ":memory:") : EmulatorFixture(db) {
    Call("CreateModel", {{"ModelName", "model"}});
  }

  protocol::HttpResponse Raw(const std::string& method, const std::string& target,
                             const std::string& body = "", protocol::Headers headers = {}) {
    return router_->Handle({method, target, std::move(headers), body});
  }

  // An operation signed as `account` (Call signs as kAccount); answers the status and the body.
  std::pair<int, json> CallAs(const std::string& account, const std::string& operation,
                              const json& input) {
    const std::string auth = "AWS4-HMAC-SHA256 Credential=" + account +
                             "/20270125/us-west-2/sagemaker/aws4_request, SignedHeaders=host, "
                             "Signature=0";
    const protocol::HttpResponse response =
        Raw("POST", "/", input.dump(),
            {{"X-Amz-Target", "SageMaker." + operation}, {"Authorization", auth}});
    return {response.status, json::parse(response.body)};
  }

  // POSTs a quota document and expects it to be taken.
  json SetQuotas(const json& document) {
    const protocol::HttpResponse response = Raw("POST", "/_emulator/quotas", document.dump());
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body);
  }
  json SetQuota(const std::string& name, json value) {
    return SetQuotas({{"quotas", {{{"name", name}, {"value", std::move(value)}}}}});
  }

  // The quotas of the signing caller's account and region.
  json Quotas() {
    const protocol::HttpResponse response =
        Raw("GET", "/_emulator/quotas", "", {{"Authorization", kAuth}});
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body);
  }

  // What GET shows as used of `name` (-1 when the quota is not listed).
  int Used(const std::string& name) {
    const json view = Quotas();
    for (const json& line : view["quotas"]) {
      if (line["name"] == name) return line["used"];
    }
    return -1;
  }

  std::string Refused(const std::string& operation, const json& input) {
    const json error = Call(operation, input, 400);
    EXPECT_EQ(error["__type"], "ResourceLimitExceeded") << error.dump();
    return error.value("message", "");
  }

  void Config(const std::string& name, const std::string& type, int count) {
    Call("CreateEndpointConfig", {{"EndpointConfigName", name},
                                  {"ProductionVariants",
                                   {{{"VariantName", "AllTraffic"},
                                     {"ModelName", "model"},
                                     {"InstanceType", type},
                                     {"InitialInstanceCount", count}}}}});
  }

  json Endpoint(const std::string& name, int status = 200) {
    return Call("DescribeEndpoint", {{"EndpointName", name}}, status);
  }

  json Scale(const std::string& endpoint, int count) {
    return {{"EndpointName", endpoint},
            {"DesiredWeightsAndCapacities",
             {{{"VariantName", "AllTraffic"}, {"DesiredInstanceCount", count}}}}};
  }

  static json TrainingJob(const std::string& name, json resources, int run_seconds = 100) {
    return {{"TrainingJobName", name},
            {"RoleArn", "arn:aws:iam::123456789012:role/r"},
            {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
            {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
            {"ResourceConfig", std::move(resources)},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
  }
  static json Plain(const std::string& type, int count) {
    return {{"InstanceType", type}, {"InstanceCount", count}, {"VolumeSizeInGB", 50}};
  }
  static json ProcessingJob(const std::string& name, const std::string& type, int count) {
    return {{"ProcessingJobName", name},
            {"RoleArn", "arn:aws:iam::123456789012:role/r"},
            {"AppSpecification", {{"ImageUri", "img:1"}}},
            {"ProcessingResources",
             {{"ClusterConfig",
               {{"InstanceType", type}, {"InstanceCount", count}, {"VolumeSizeInGB", 30}}}}},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", "100"}}}};
  }
  json Job(const std::string& name) {
    return Call("DescribeTrainingJob", {{"TrainingJobName", name}});
  }

  static json Group(const std::string& name, const std::string& type, int count) {
    return {{"InstanceGroupName", name},
            {"InstanceType", type},
            {"InstanceCount", count},
            {"ExecutionRole", "arn:aws:iam::123456789012:role/hyperpod"},
            {"LifeCycleConfig", {{"SourceS3Uri", "s3://bucket/lc"}, {"OnCreate", "on_create.sh"}}}};
  }
  static json Cluster(const std::string& name, std::vector<json> groups) {
    return {{"ClusterName", name}, {"InstanceGroups", std::move(groups)}};
  }

  void SetOnDemand(const std::string& type, int count) {
    const auto response = Raw("POST", "/_emulator/capacity",
                              json{{"region", kRegion},
                                   {"availability_zone", "us-west-2a"},
                                   {"instance_type", type},
                                   {"on_demand", count}}
                                  .dump());
    ASSERT_EQ(response.status, 200) << response.body;
  }

  // A fresh emulator over the same store, as the server builds one at start.
  void Restart(const QuotaTable& starting = {}) {
    router_.reset();
    emulator_.reset();
    Open();
    emulator_->SetStartingQuotas(starting);
  }
};

constexpr const char* kSmallG5 = "ml.g5.xlarge";  // not in the capacity file: never short
constexpr const char* kG52 = "ml.g5.2xlarge";     // likewise
// kM5: likewise, and a CPU type; kP5: one on demand in us-west-2a.
const std::string kEndpointTotal = "Number of instances across active endpoints";
const std::string kTrainingTotal = "Number of instances across all training jobs";
const std::string kProcessingTotal = "Number of instances across all processing jobs";
const std::string kClusterTotal =
    "Total number of instances allowed across SageMaker HyperPod clusters";
const std::string kPerCluster = "Maximum number instances allowed per SageMaker HyperPod cluster";

// ---- Endpoints ----

TEST_F(QuotasTest, CreateEndpointIsRefusedBeyondTheTypesQuotaAndNothingIsCreated) {
  SetQuota("ml.g5.xlarge for endpoint usage", 3);
  Config("two", kSmallG5, 2);
  Config("one", kSmallG5, 1);
  Call("CreateEndpoint", {{"EndpointName", "first"}, {"EndpointConfigName", "two"}});
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "second"}, {"EndpointConfigName", "two"}}),
            Refusal("ml.g5.xlarge for endpoint usage", 3, 2, 2));
  EXPECT_EQ(Endpoint("second", 400)["__type"], "ValidationException") << "not created";
  EXPECT_EQ(Call("ListEndpoints", json::object())["Endpoints"].size(), 1u);
  EXPECT_EQ(Used("ml.g5.xlarge for endpoint usage"), 2);
  // Exactly up to the limit is allowed; another type is not limited.
  Call("CreateEndpoint", {{"EndpointName", "third"}, {"EndpointConfigName", "one"}});
  EXPECT_EQ(Endpoint("third")["EndpointStatus"], "InService");
  Config("other-type", kG52, 5);
  Call("CreateEndpoint", {{"EndpointName", "fourth"}, {"EndpointConfigName", "other-type"}});
  // A deleted endpoint gives its instances back to the quota.
  Call("DeleteEndpoint", {{"EndpointName", "first"}});
  Call("CreateEndpoint", {{"EndpointName", "second"}, {"EndpointConfigName", "two"}});
  EXPECT_EQ(Used("ml.g5.xlarge for endpoint usage"), 3);
}

TEST_F(QuotasTest, TheEndpointTotalCountsEndpointsStillCreating) {
  router_.reset();
  emulator_.reset();
  hosting_.provisioning_delay = Millis{60'000};
  Open();
  SetQuota(kEndpointTotal, 3);
  Config("g5", kSmallG5, 2);
  Config("g52", kG52, 2);
  Call("CreateEndpoint", {{"EndpointName", "slow"}, {"EndpointConfigName", "g5"}});
  ASSERT_EQ(Endpoint("slow")["EndpointStatus"], "Creating");
  EXPECT_EQ(Used(kEndpointTotal), 2) << "asked for, not yet held: counted once";
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "next"}, {"EndpointConfigName", "g52"}}),
            Refusal(kEndpointTotal, 3, 2, 2));
  Advance(60);
  ASSERT_EQ(Endpoint("slow")["EndpointStatus"], "InService");
  EXPECT_EQ(Used(kEndpointTotal), 2) << "now held, still counted once";
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "next"}, {"EndpointConfigName", "g52"}}),
            Refusal(kEndpointTotal, 3, 2, 2));
  // When both the type's quota and the total would refuse, AWS names the type's.
  SetQuota("ml.g5.2xlarge for endpoint usage", 1);
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "next"}, {"EndpointConfigName", "g52"}}),
            Refusal("ml.g5.2xlarge for endpoint usage", 1, 0, 2));
}

TEST_F(QuotasTest, ScalingAnEndpointUpIsRefusedAndDownIsAllowed) {
  SetQuota("ml.g5.xlarge for endpoint usage", 3);
  Config("two", kSmallG5, 2);
  Call("CreateEndpoint", {{"EndpointName", "scaled"}, {"EndpointConfigName", "two"}});
  EXPECT_EQ(Refused("UpdateEndpointWeightsAndCapacities", Scale("scaled", 4)),
            Refusal("ml.g5.xlarge for endpoint usage", 3, 2, 2));
  json endpoint = Endpoint("scaled");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["DesiredInstanceCount"], 2);
  Call("UpdateEndpointWeightsAndCapacities", Scale("scaled", 3));
  EXPECT_EQ(Endpoint("scaled")["ProductionVariants"][0]["CurrentInstanceCount"], 3);
  // The quota lowered below what the endpoint holds: it can still shrink, not grow.
  SetQuota("ml.g5.xlarge for endpoint usage", 1);
  EXPECT_EQ(Refused("UpdateEndpointWeightsAndCapacities", Scale("scaled", 4)),
            Refusal("ml.g5.xlarge for endpoint usage", 1, 3, 1));
  Call("UpdateEndpointWeightsAndCapacities", Scale("scaled", 2));
  endpoint = Endpoint("scaled");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 2);
}

TEST_F(QuotasTest, UpdatingAnEndpointToABiggerConfigIsRefused) {
  SetQuota("ml.g5.xlarge for endpoint usage", 3);
  Config("two", kSmallG5, 2);
  Config("four", kSmallG5, 4);
  Config("three", kSmallG5, 3);
  Call("CreateEndpoint", {{"EndpointName", "moved"}, {"EndpointConfigName", "two"}});
  EXPECT_EQ(Refused("UpdateEndpoint", {{"EndpointName", "moved"}, {"EndpointConfigName", "four"}}),
            Refusal("ml.g5.xlarge for endpoint usage", 3, 2, 2));
  json endpoint = Endpoint("moved");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["EndpointConfigName"], "two");
  // The new config replaces the old one: 3 in all fits, though 2 + 3 would not.
  Call("UpdateEndpoint", {{"EndpointName", "moved"}, {"EndpointConfigName", "three"}});
  endpoint = Endpoint("moved");
  EXPECT_EQ(endpoint["EndpointConfigName"], "three");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 3);
}

TEST_F(QuotasTest, AQuotaSetForOneAccountLimitsThatAccountOnly) {
  SetQuotas({{"quotas",
              {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 0}, {"account", kAccount}},
               {{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 2}}}}});
  Config("two", kSmallG5, 2);
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "mine"}, {"EndpointConfigName", "two"}}),
            Refusal("ml.g5.xlarge for endpoint usage", 0, 0, 2));
  ASSERT_EQ(CallAs(kOther, "CreateModel", {{"ModelName", "model"}}).first, 200);
  ASSERT_EQ(CallAs(kOther, "CreateEndpointConfig",
                   {{"EndpointConfigName", "two"},
                    {"ProductionVariants",
                     {{{"VariantName", "AllTraffic"},
                       {"ModelName", "model"},
                       {"InstanceType", kSmallG5},
                       {"InitialInstanceCount", 2}}}}})
                .first,
            200);
  EXPECT_EQ(
      CallAs(kOther, "CreateEndpoint", {{"EndpointName", "theirs"}, {"EndpointConfigName", "two"}})
          .first,
      200);
  // The other account's 2 instances count against its own quota, not against this account's.
  const auto [status, refused] =
      CallAs(kOther, "CreateEndpoint", {{"EndpointName", "more"}, {"EndpointConfigName", "two"}});
  EXPECT_EQ(status, 400);
  EXPECT_EQ(refused["message"], Refusal("ml.g5.xlarge for endpoint usage", 2, 2, 2));
  EXPECT_EQ(Used("ml.g5.xlarge for endpoint usage"), 0);
}

// An endpoint being moved to a bigger config keeps its old instances until the update falls due;
// what the new config asks for beyond them is promised already and counts as used, as the
// instances asked for by an endpoint still Creating do. Otherwise another endpoint could take the
// room and both together end above the quota.
TEST_F(QuotasTest, AnEndpointUpdateInProgressCountsWhatItAskedFor) {
  router_.reset();
  emulator_.reset();
  hosting_.provisioning_delay = Millis{60'000};
  Open();
  SetQuota("ml.g5.xlarge for endpoint usage", 4);
  Config("two", kSmallG5, 2);
  Config("four", kSmallG5, 4);
  Call("CreateEndpoint", {{"EndpointName", "moving"}, {"EndpointConfigName", "two"}});
  Advance(60);
  ASSERT_EQ(Endpoint("moving")["EndpointStatus"], "InService");
  Call("UpdateEndpoint", {{"EndpointName", "moving"}, {"EndpointConfigName", "four"}});
  ASSERT_EQ(Endpoint("moving")["EndpointStatus"], "Updating");
  EXPECT_EQ(Used("ml.g5.xlarge for endpoint usage"), 4);
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "other"}, {"EndpointConfigName", "two"}}),
            Refusal("ml.g5.xlarge for endpoint usage", 4, 4, 2));
  Advance(60);
  EXPECT_EQ(Endpoint("moving")["ProductionVariants"][0]["CurrentInstanceCount"], 4);
  EXPECT_EQ(Used("ml.g5.xlarge for endpoint usage"), 4) << "never above the quota";
}

// ---- Training and processing jobs ----

TEST_F(QuotasTest, APlainTrainingJobBeyondItsQuotaIsRefusedAndNotCreated) {
  SetQuotas({{"preset", "new-account"}});
  EXPECT_EQ(Refused("CreateTrainingJob", TrainingJob("gpu", Plain(kP5, 1))),
            Refusal("ml.p5.48xlarge for training job usage", 0, 0, 1));
  EXPECT_EQ(Call("DescribeTrainingJob", {{"TrainingJobName", "gpu"}}, 400)["__type"],
            "ValidationException");
  EXPECT_EQ(Call("ListTrainingJobs", json::object())["TrainingJobSummaries"].size(), 0u);
  // CPU types are not limited by the preset.
  Call("CreateTrainingJob", TrainingJob("cpu", Plain(kM5, 4)));
  EXPECT_EQ(Job("cpu")["ResourceConfig"]["SelectedInstanceType"], kM5);
}

// "SageMaker AI checks your service quota for every type in the list, not just the one it selects.
// Each type's quota must cover the instance count you request for it. If any type falls short, the
// request is rejected, even when the types ahead of it would have succeeded." (instance
// preferences for training jobs, developer guide)
TEST_F(QuotasTest, EveryPreferenceOfAJobMustFitItsQuota) {
  json preferences = {{"InstancePreferences", {{{"InstanceType", kP5}}, {{"InstanceType", kM5}}}},
                      {"InstanceCount", 1},
                      {"VolumeSizeInGB", 50}};
  Call("CreateTrainingJob", TrainingJob("unlimited", preferences));
  ASSERT_EQ(Job("unlimited")["ResourceConfig"]["SelectedInstanceType"], kP5)
      << "without quotas the first preference runs";
  Call("StopTrainingJob", {{"TrainingJobName", "unlimited"}});

  // The second type falls short: refused, although the first would have run.
  SetQuota("ml.m5.xlarge for training job usage", 0);
  EXPECT_EQ(Refused("CreateTrainingJob", TrainingJob("second-short", preferences)),
            Refusal("ml.m5.xlarge for training job usage", 0, 0, 1));
  // The first falls short: refused, although the second would have run.
  SetQuota("ml.m5.xlarge for training job usage", 1);
  SetQuota("ml.p5.48xlarge for training job usage", 0);
  EXPECT_EQ(Refused("CreateTrainingJob", TrainingJob("first-short", preferences)),
            Refusal("ml.p5.48xlarge for training job usage", 0, 0, 1));
  // Each covers its count: accepted, on the first.
  SetQuota("ml.p5.48xlarge for training job usage", 1);
  Call("CreateTrainingJob", TrainingJob("both-fit", preferences));
  EXPECT_EQ(Job("both-fit")["ResourceConfig"]["SelectedInstanceType"], kP5);
}

TEST_F(QuotasTest, AJobAcceptedWhileItsQuotaWasFreeWaitsUntilTheQuotaGrows) {
  SetOnDemand(kP5, 0);
  SetQuota("ml.p5.48xlarge for training job usage", 1);
  Call("CreateTrainingJob", TrainingJob("first", Plain(kP5, 1), 1000));
  Call("CreateTrainingJob", TrainingJob("second", Plain(kP5, 1), 1000));  // nothing held yet
  EXPECT_EQ(Job("first")["SecondaryStatus"], "Pending");
  Advance(10);
  SetOnDemand(kP5, 2);  // room for both, but the quota takes one
  EXPECT_EQ(Job("first")["TrainingStartTime"], kStartSeconds + 10);
  json second = Job("second");
  EXPECT_EQ(second["TrainingJobStatus"], "InProgress");
  EXPECT_EQ(second["SecondaryStatus"], "Pending");
  EXPECT_FALSE(second["ResourceConfig"].contains("SelectedInstanceType"));
  EXPECT_EQ(Used("ml.p5.48xlarge for training job usage"), 1);
  Advance(20);
  EXPECT_EQ(Job("second")["SecondaryStatus"], "Pending");
  SetQuota("ml.p5.48xlarge for training job usage", 2);
  second = Job("second");
  EXPECT_EQ(second["TrainingStartTime"], kStartSeconds + 30) << "at once when the quota grew";
  EXPECT_EQ(second["ResourceConfig"]["SelectedInstanceType"], kP5);
  EXPECT_EQ(Used("ml.p5.48xlarge for training job usage"), 2);
}

TEST_F(QuotasTest, TheTrainingJobTotalCountsEveryTypeUntilJobsEnd) {
  SetQuota(kTrainingTotal, 3);
  Call("CreateTrainingJob", TrainingJob("cpu", Plain(kM5, 2), 100));
  EXPECT_EQ(Refused("CreateTrainingJob", TrainingJob("gpu", Plain(kSmallG5, 2))),
            Refusal(kTrainingTotal, 3, 2, 2));
  Call("CreateTrainingJob", TrainingJob("small", Plain(kSmallG5, 1), 100));
  EXPECT_EQ(Used(kTrainingTotal), 3);
  // Processing jobs and endpoints do not count against the training total.
  Call("CreateProcessingJob", ProcessingJob("prep", kM5, 5));
  Advance(100);  // both training jobs completed
  EXPECT_EQ(Job("cpu")["TrainingJobStatus"], "Completed");
  EXPECT_EQ(Used(kTrainingTotal), 0);
  Call("CreateTrainingJob", TrainingJob("gpu", Plain(kSmallG5, 2)));
}

TEST_F(QuotasTest, ProcessingJobsHaveTheirOwnQuotas) {
  SetQuotas({{"quotas",
              {{{"name", "ml.m5.xlarge for processing job usage"}, {"value", 1}},
               {{"name", "ml.m5.xlarge for training job usage"}, {"value", 0}},
               {{"name", kProcessingTotal}, {"value", 2}}}}});
  EXPECT_EQ(Refused("CreateProcessingJob", ProcessingJob("two", kM5, 2)),
            Refusal("ml.m5.xlarge for processing job usage", 1, 0, 2));
  EXPECT_EQ(Call("DescribeProcessingJob", {{"ProcessingJobName", "two"}}, 400)["message"],
            "Could not find requested job with name two");
  Call("CreateProcessingJob", ProcessingJob("one", kM5, 1));
  EXPECT_EQ(Call("DescribeProcessingJob", {{"ProcessingJobName", "one"}})["ProcessingJobStatus"],
            "InProgress");
  EXPECT_EQ(Refused("CreateProcessingJob", ProcessingJob("other", kSmallG5, 2)),
            Refusal(kProcessingTotal, 2, 1, 2));
  Call("CreateProcessingJob", ProcessingJob("other", kSmallG5, 1));
}

// ---- HyperPod clusters ----

TEST_F(QuotasTest, ClustersAreLimitedPerTypePerClusterAndInTotal) {
  SetQuotas({{"quotas",
              {{{"name", "ml.g5.xlarge for cluster usage"}, {"value", 4}},
               {{"name", kPerCluster}, {"value", 3}},
               {{"name", kClusterTotal}, {"value", 5}}}}});
  EXPECT_EQ(Refused("CreateCluster", Cluster("wide", {Group("a", kM5, 2), Group("b", kM5, 2)})),
            Refusal(kPerCluster, 3, 0, 4));
  EXPECT_EQ(Call("DescribeCluster", {{"ClusterName", "wide"}}, 400)["__type"], "ResourceNotFound");
  Call("CreateCluster", Cluster("one", {Group("workers", kSmallG5, 3)}));
  EXPECT_EQ(Call("DescribeCluster", {{"ClusterName", "one"}})["ClusterStatus"], "InService");
  EXPECT_EQ(Refused("CreateCluster", Cluster("two", {Group("workers", kSmallG5, 2)})),
            Refusal("ml.g5.xlarge for cluster usage", 4, 3, 2));
  EXPECT_EQ(Refused("CreateCluster", Cluster("two", {Group("workers", kM5, 3)})),
            Refusal(kClusterTotal, 5, 3, 3));
  EXPECT_EQ(Call("ListClusters", json::object())["ClusterSummaries"].size(), 1u);
  Call("CreateCluster", Cluster("two", {Group("workers", kM5, 2)}));
  EXPECT_EQ(Used(kClusterTotal), 5);
  EXPECT_EQ(Used(kPerCluster), 3) << "the largest cluster";
  EXPECT_EQ(Used("ml.g5.xlarge for cluster usage"), 3);
}

TEST_F(QuotasTest, UpdateClusterGrowthIsRefusedAndShrinkingIsAllowed) {
  SetQuotas({{"quotas",
              {{{"name", "ml.g5.xlarge for cluster usage"}, {"value", 3}},
               {{"name", kPerCluster}, {"value", 4}}}}});
  Call("CreateCluster", Cluster("grown", {Group("workers", kSmallG5, 2)}));
  EXPECT_EQ(Refused("UpdateCluster", Cluster("grown", {Group("workers", kSmallG5, 4)})),
            Refusal("ml.g5.xlarge for cluster usage", 3, 2, 2));
  EXPECT_EQ(Refused("UpdateCluster", Cluster("grown", {Group("more", kM5, 3)})),
            Refusal(kPerCluster, 4, 2, 3));
  json cluster = Call("DescribeCluster", {{"ClusterName", "grown"}});
  EXPECT_EQ(cluster["ClusterStatus"], "InService");
  ASSERT_EQ(cluster["InstanceGroups"].size(), 1u);
  EXPECT_EQ(cluster["InstanceGroups"][0]["TargetCount"], 2);
  EXPECT_EQ(cluster["InstanceGroups"][0]["CurrentCount"], 2);
  // Up to the limit, then down while the quota is below what is held.
  Call("UpdateCluster", Cluster("grown", {Group("workers", kSmallG5, 3)}));
  EXPECT_EQ(Call("DescribeCluster", {{"ClusterName", "grown"}})["InstanceGroups"][0]["TargetCount"],
            3);
  SetQuota("ml.g5.xlarge for cluster usage", 0);
  Call("UpdateCluster", Cluster("grown", {Group("workers", kSmallG5, 1)}));
  cluster = Call("DescribeCluster", {{"ClusterName", "grown"}});
  EXPECT_EQ(cluster["InstanceGroups"][0]["TargetCount"], 1);
}

TEST_F(QuotasTest, AClusterStillCreatingCountsOnce) {
  router_.reset();
  emulator_.reset();
  hosting_.provisioning_delay = Millis{60'000};
  Open();
  SetQuotas({{"quotas",
              {{{"name", "ml.g5.xlarge for cluster usage"}, {"value", 4}},
               {{"name", kClusterTotal}, {"value", 4}}}}});
  Call("CreateCluster", Cluster("slow", {Group("workers", kSmallG5, 3)}));
  ASSERT_EQ(Call("DescribeCluster", {{"ClusterName", "slow"}})["ClusterStatus"], "Creating");
  EXPECT_EQ(Used("ml.g5.xlarge for cluster usage"), 3);
  EXPECT_EQ(Used(kClusterTotal), 3);
  EXPECT_EQ(Refused("CreateCluster", Cluster("next", {Group("workers", kSmallG5, 2)})),
            Refusal("ml.g5.xlarge for cluster usage", 4, 3, 2));
  Advance(60);
  ASSERT_EQ(Call("DescribeCluster", {{"ClusterName", "slow"}})["ClusterStatus"], "InService");
  EXPECT_EQ(Used("ml.g5.xlarge for cluster usage"), 3);
  EXPECT_EQ(Refused("CreateCluster", Cluster("next", {Group("workers", kM5, 2)})),
            Refusal(kClusterTotal, 4, 3, 2));
}

// A group deleted in the same update gives back its instances: replacing a group of 3 by another
// of 3 leaves the cluster at 3.
TEST_F(QuotasTest, AGroupReplacedInOneUpdateCountsOnlyTheNewGroup) {
  SetQuotas({{"quotas",
              {{{"name", kPerCluster}, {"value", 4}}, {{"name", kClusterTotal}, {"value", 4}}}}});
  Call("CreateCluster", Cluster("swapped", {Group("old", kM5, 3)}));
  json update = Cluster("swapped", {Group("new", kSmallG5, 3)});
  update["InstanceGroupsToDelete"] = {"old"};
  Call("UpdateCluster", update);
  const json cluster = Call("DescribeCluster", {{"ClusterName", "swapped"}});
  ASSERT_EQ(cluster["InstanceGroups"].size(), 1u);
  EXPECT_EQ(cluster["InstanceGroups"][0]["InstanceGroupName"], "new");
  EXPECT_EQ(Used(kClusterTotal), 3);
}

// ---- Training plans ----

TEST_F(QuotasTest, TheNumberOfPlansPerRegionIsLimited) {
  SetQuota("Number of training plans per Region", 1);
  const json first = Search(7)["TrainingPlanOfferings"][0];
  Call("CreateTrainingPlan", {{"TrainingPlanName", "first"},
                              {"TrainingPlanOfferingId", first["TrainingPlanOfferingId"]}});
  const json second = Search(7)["TrainingPlanOfferings"][0];
  EXPECT_EQ(
      Refused("CreateTrainingPlan", {{"TrainingPlanName", "second"},
                                     {"TrainingPlanOfferingId", second["TrainingPlanOfferingId"]}}),
      Refusal("Number of training plans per Region", 1, 1, 1, ""));
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "second"}}, 400)["__type"],
            "ResourceNotFound");
  EXPECT_EQ(Used("Number of training plans per Region"), 1);
  // The refused purchase took nothing from the ledger: the same offering sells once allowed.
  SetQuota("Number of training plans per Region", 2);
  Call("CreateTrainingPlan", {{"TrainingPlanName", "second"},
                              {"TrainingPlanOfferingId", second["TrainingPlanOfferingId"]}});
}

TEST_F(QuotasTest, ReservedCapacityAcrossPlansIsLimitedPerType) {
  const std::string name =
      "Number of ml.p5.48xlarge instances in reserved capacity across training plans per Region";
  SetQuota(name, 2);
  // Two offerings found while the quota had room; buying both would reserve 3.
  const json two = Search(7, 2)["TrainingPlanOfferings"][0];
  const json one = Search(7, 1)["TrainingPlanOfferings"][0];
  Call("CreateTrainingPlan",
       {{"TrainingPlanName", "two"}, {"TrainingPlanOfferingId", two["TrainingPlanOfferingId"]}});
  EXPECT_EQ(
      Refused("CreateTrainingPlan", {{"TrainingPlanName", "one"},
                                     {"TrainingPlanOfferingId", one["TrainingPlanOfferingId"]}}),
      Refusal(name, 2, 2, 1));
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "one"}}, 400)["__type"],
            "ResourceNotFound");
  EXPECT_EQ(Call("ListTrainingPlans", json::object())["TrainingPlanSummaries"].size(), 1u);
  EXPECT_EQ(Used(name), 2);
  // A search for more is refused already, as AWS does.
  const json search = Call("SearchTrainingPlanOfferings",
                           {{"InstanceType", kP5},
                            {"InstanceCount", 1},
                            {"DurationHours", 7 * 24},
                            {"StartTimeAfter", kStartSeconds},
                            {"TargetResources", {"training-job"}}},
                           400);
  EXPECT_EQ(search["__type"], "ResourceLimitExceeded");
  EXPECT_EQ(search["message"], Refusal(name, 2, 2, 1));
  SetQuota(name, 3);
  const json again = Search(7, 1)["TrainingPlanOfferings"][0];
  Call("CreateTrainingPlan",
       {{"TrainingPlanName", "one"}, {"TrainingPlanOfferingId", again["TrainingPlanOfferingId"]}});
  EXPECT_EQ(Used(name), 3);
}

// ---- The admin API ----

TEST_F(QuotasTest, GetShowsTheQuotasOfOneAccountAndRegionWithWhatIsUsed) {
  // Unsigned: the server's default account and region.
  json view = Admin("GET", "/_emulator/quotas");
  EXPECT_EQ(
      view,
      (json{{"account", "000000000000"}, {"region", "us-east-1"}, {"quotas", json::array()}}));
  SetQuotas({{"quotas",
              {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 10}},
               {{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 4}, {"account", kAccount}},
               {{"name", "ml.g5.xlarge for endpoint usage"},
                {"value", 6},
                {"account", kOther},
                {"region", kRegion}},
               {{"name", kEndpointTotal}, {"value", 8}, {"region", kRegion}}}}});
  Config("two", kSmallG5, 2);
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "two"}});

  EXPECT_EQ(
      Quotas(),
      (json{{"account", kAccount},
            {"region", kRegion},
            {"quotas",
             {{{"name", kEndpointTotal}, {"value", 8}, {"used", 2}, {"set_for_region", kRegion}},
              {{"name", "ml.g5.xlarge for endpoint usage"},
               {"value", 4},
               {"used", 2},
               {"set_for_account", kAccount}}}}}));
  EXPECT_EQ(
      Admin("GET", "/_emulator/quotas?account=210987654321&region=us-west-2"),
      (json{{"account", kOther},
            {"region", kRegion},
            {"quotas",
             {{{"name", kEndpointTotal}, {"value", 8}, {"used", 0}, {"set_for_region", kRegion}},
              {{"name", "ml.g5.xlarge for endpoint usage"},
               {"value", 6},
               {"used", 0},
               {"set_for_account", kOther},
               {"set_for_region", kRegion}}}}}));
  EXPECT_EQ(Admin("GET", "/_emulator/quotas?account=123456789012&region=eu-west-1"),
            (json{{"account", kAccount},
                  {"region", "eu-west-1"},
                  {"quotas",
                   {{{"name", "ml.g5.xlarge for endpoint usage"},
                     {"value", 4},
                     {"used", 0},
                     {"set_for_account", kAccount}}}}}));
  EXPECT_EQ(Admin("GET", "/_emulator/quotas?region=eu-west-1"),
            (json{{"account", "000000000000"},
                  {"region", "eu-west-1"},
                  {"quotas",
                   {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 10}, {"used", 0}}}}}));
  const auto bad = Raw("GET", "/_emulator/quotas?account=12345");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(json::parse(bad.body)["__type"], "ValidationException");
  EXPECT_EQ(json::parse(bad.body)["message"],
            "account must be a 12-digit account id and region a region name.");
}

TEST_F(QuotasTest, PostAppliesPresetsSetsAndRemovesAndAnswersEverySetting) {
  json answer = SetQuotas({{"preset", "new-account"}});
  EXPECT_EQ(answer["quotas"].size(), 136u);
  EXPECT_EQ(answer["quotas"], ops::QuotaSettingsJson([] {
              QuotaTable table;
              for (const QuotaSetting& setting : domain::NewAccountQuotas()) table.Set(setting);
              return table;
            }()));
  json listed = Quotas()["quotas"];
  EXPECT_EQ(listed.size(), 136u);
  EXPECT_NE(
      std::find(listed.begin(), listed.end(),
                json{{"name", "ml.p5.48xlarge for cluster usage"}, {"value", 0}, {"used", 0}}),
      listed.end());

  // A preset replaces everything set before; entries apply after it.
  answer = SetQuotas({{"preset", "none"},
                      {"quotas",
                       {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 2}},
                        {{"name", "ml.g5.xlarge for endpoint usage"},
                         {"value", 5},
                         {"account", kAccount},
                         {"region", kRegion}}}}});
  EXPECT_EQ(answer, (json{{"quotas",
                           {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 2}},
                            {{"name", "ml.g5.xlarge for endpoint usage"},
                             {"value", 5},
                             {"account", kAccount},
                             {"region", kRegion}}}}}));
  // Without a preset, a document changes only what it names; null removes.
  answer = SetQuotas({{"quotas",
                       {{{"name", "ml.g5.xlarge for endpoint usage"},
                         {"value", nullptr},
                         {"account", kAccount},
                         {"region", kRegion}},
                        {{"name", "Number of training plans per Region"}, {"value", 3}}}}});
  EXPECT_EQ(answer, (json{{"quotas",
                           {{{"name", "Number of training plans per Region"}, {"value", 3}},
                            {{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 2}}}}}));
  EXPECT_EQ(emulator_->GetQuotas().Limit(kAccount, kRegion, "ml.g5.xlarge for endpoint usage"), 2);
  // Removing what is not set is no error.
  SetQuota("ml.g5.2xlarge for endpoint usage", nullptr);
  answer = SetQuotas({{"preset", "none"}});
  EXPECT_EQ(answer, (json{{"quotas", json::array()}}));
  EXPECT_TRUE(emulator_->GetQuotas().empty());
}

TEST_F(QuotasTest, InvalidDocumentsAreRefusedNamingThePathAndChangeNothing) {
  SetQuota("ml.g5.xlarge for endpoint usage", 1);
  const std::string known =
      "Known: '<instance type> for endpoint usage', '<instance type> for training job usage', "
      "'<instance type> for processing job usage', '<instance type> for cluster usage', "
      "'Number of instances across active endpoints', 'Number of instances across all "
      "training jobs', 'Number of instances across all processing jobs', 'Total number of "
      "instances allowed across SageMaker HyperPod clusters', 'Maximum number instances allowed "
      "per SageMaker HyperPod cluster', 'Number of training plans per Region', 'Number of "
      "<instance type> instances in reserved capacity across training plans per Region'";
  const json valid = {{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 9}};
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"presets", "none"}}, "presets: unknown member (expected preset, quotas)"},
      {{{"preset", "old-account"}}, "preset: must be \"new-account\" or \"none\""},
      {{{"quotas", {{"name", "x"}}}}, "quotas: must be an array"},
      {{{"quotas", {valid, {{"name", "ml.g5.xlarge for endpoint usage"}, {"limit", 1}}}}},
       "quotas[1].limit: unknown member (expected name, value, account, region)"},
      {{{"quotas",
         {valid, {{"name", "Number of instances across all transform jobs"}, {"value", 1}}}}},
       "quotas[1].name: unknown quota 'Number of instances across all transform jobs'. " + known},
      {{{"quotas", {valid, {{"name", "ml.g5.xlarge for endpoint usage"}, {"value", -1}}}}},
       "quotas[1].value: must be an integer from 0 to 1000000, or null"},
      {{{"quotas", {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 1.5}}}}},
       "quotas[0].value: must be an integer from 0 to 1000000, or null"},
      {{{"quotas", {{{"name", "ml.g5.xlarge for endpoint usage"}}}}},
       "quotas[0].value: is required (null removes it)"},
      {{{"quotas", {{{"value", 1}}}}}, "quotas[0].name: is required and must be a string"},
      {{{"quotas",
         {valid,
          {{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 1}, {"account", "12345"}}}}},
       "quotas[1].account: not a 12-digit account id: 12345"},
      {{{"quotas",
         {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 1}, {"region", "Mars"}}}}},
       "quotas[0].region: not a region name: Mars"},
  };
  for (const auto& [document, problem] : cases) {
    const auto response = Raw("POST", "/_emulator/quotas", document.dump());
    EXPECT_EQ(response.status, 400) << document.dump();
    const json body = json::parse(response.body);
    EXPECT_EQ(body["__type"], "ValidationException") << document.dump();
    EXPECT_EQ(body["message"], "quotas document: " + problem) << document.dump();
  }
  // What is not a JSON object is refused before it is read as a document.
  for (const char* body : {"{not json", "[]"}) {
    const auto response = Raw("POST", "/_emulator/quotas", body);
    EXPECT_EQ(response.status, 400) << body;
    EXPECT_EQ(json::parse(response.body)["__type"], "SerializationException") << body;
  }
  // The valid first entries of the refused documents were not applied.
  EXPECT_EQ(Admin("GET", "/_emulator/quotas"),
            (json{{"account", "000000000000"},
                  {"region", "us-east-1"},
                  {"quotas",
                   {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 1}, {"used", 0}}}}}));
}

TEST_F(QuotasTest, ResetReturnsToTheStartingQuotas) {
  QuotaTable starting;
  starting.Set({"", "", "ml.g5.xlarge for endpoint usage", 1});
  emulator_->SetStartingQuotas(starting);
  Config("two", kSmallG5, 2);
  EXPECT_EQ(Refused("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "two"}}),
            Refusal("ml.g5.xlarge for endpoint usage", 1, 0, 2));
  SetQuotas({{"preset", "none"}});
  EXPECT_TRUE(emulator_->GetQuotas().empty());
  ASSERT_EQ(Raw("POST", "/_emulator/reset").status, 200);
  EXPECT_EQ(emulator_->GetQuotas().All(), starting.All());
  EXPECT_EQ(Admin("GET", "/_emulator/quotas")["quotas"],
            (json{{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 1}, {"used", 0}}}));
}

// A file store that outlives one emulator, as the server's --db does across restarts. The path is
// a base so that it exists before EmulatorFixture opens the store.
struct QuotasDbPath {
  TempDbPath db;
};

class QuotasRestartTest : private QuotasDbPath, public QuotasTest {
 protected:
  QuotasRestartTest() : QuotasTest(db.str()) {}
};

TEST_F(QuotasRestartTest, ChangedQuotasSurviveARestartAndResetForgetsThem) {
  QuotaTable starting;
  starting.Set({"", "", "ml.g5.xlarge for endpoint usage", 1});
  Restart(starting);
  SetQuotas({{"quotas",
              {{{"name", "ml.g5.xlarge for endpoint usage"}, {"value", 2}},
               {{"name", kTrainingTotal}, {"value", 0}, {"account", kAccount}}}}});
  const std::vector<QuotaSetting> changed = emulator_->GetQuotas().All();
  ASSERT_EQ(changed.size(), 2u);
  Restart(starting);
  EXPECT_EQ(emulator_->GetQuotas().All(), changed) << "the changed table wins over the starting";
  Config("two", kSmallG5, 2);
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "two"}});
  EXPECT_EQ(Refused("CreateTrainingJob", TrainingJob("t", Plain(kM5, 1))),
            Refusal(kTrainingTotal, 0, 0, 1));
  ASSERT_EQ(Raw("POST", "/_emulator/reset").status, 200);
  EXPECT_EQ(emulator_->GetQuotas().All(), starting.All());
  Restart(starting);
  EXPECT_EQ(emulator_->GetQuotas().All(), starting.All()) << "reset also forgot the saved table";
}

}  // namespace
}  // namespace smemu
