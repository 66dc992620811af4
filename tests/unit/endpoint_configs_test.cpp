// Endpoint configs through the router, including variants that reserve a training plan's capacity.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
using ::testing::HasSubstr;

class EndpointConfigsTest : public EmulatorFixture {
 protected:
  EndpointConfigsTest() {
    Call("CreateModel", {{"ModelName", "model-v1"}});
    Call("CreateModel", {{"ModelName", "model-v2"}});
  }

  // Buys a plan of `count` ml.p5.48xlarge for a week from `start_seconds`, for `target`.
  std::string BuyPlan(const std::string& name, int count, const std::string& target = "endpoint",
                      long long start_seconds = kStartSeconds) {
    const json offering = Call("SearchTrainingPlanOfferings",
                               {{"InstanceType", "ml.p5.48xlarge"},
                                {"InstanceCount", count},
                                {"DurationHours", 168},
                                {"StartTimeAfter", start_seconds},
                                {"TargetResources", {target}}})["TrainingPlanOfferings"][0];
    return Call("CreateTrainingPlan", {{"TrainingPlanName", name},
                                       {"TrainingPlanOfferingId",
                                        offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  }

  json CreateConfig(const std::string& name, const json& variant, int status = 200) {
    return Call("CreateEndpointConfig",
                {{"EndpointConfigName", name}, {"ProductionVariants", {variant}}}, status);
  }
};

TEST_F(EndpointConfigsTest, CreateDescribeListDelete) {
  const json created = CreateConfig("Config-A", {{"VariantName", "AllTraffic"},
                                                 {"ModelName", "model-v1"},
                                                 {"InstanceType", "ml.g5.xlarge"},
                                                 {"InitialInstanceCount", 1}});
  EXPECT_EQ(created["EndpointConfigArn"],
            "arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/config-a");
  const json described = Call("DescribeEndpointConfig", {{"EndpointConfigName", "config-a"}});
  EXPECT_EQ(described["EndpointConfigName"], "Config-A");
  EXPECT_EQ(described["CreationTime"], kStartSeconds);
  EXPECT_EQ(described["ProductionVariants"][0]["InstanceType"], "ml.g5.xlarge");
  EXPECT_EQ(described["ProductionVariants"][0]["InitialVariantWeight"], 1.0);
  const json listed = Call("ListEndpointConfigs", {{"NameContains", "config"}});
  ASSERT_EQ(listed["EndpointConfigs"].size(), 1u);
  EXPECT_EQ(listed["EndpointConfigs"][0]["EndpointConfigArn"], created["EndpointConfigArn"]);
  Call("DeleteEndpointConfig", {{"EndpointConfigName", "Config-A"}});
  const json missing = Call("DescribeEndpointConfig", {{"EndpointConfigName", "Config-A"}}, 400);
  EXPECT_EQ(missing["__type"], "ValidationException");
  EXPECT_EQ(missing["message"],
            "Could not find endpoint configuration "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/config-a\".");
  EXPECT_EQ(Call("DeleteEndpointConfig", {{"EndpointConfigName", "Config-A"}}, 400)["__type"],
            "ValidationException");
}

// The model allows 1024..6144; the service takes whole gigabytes only.
TEST_F(EndpointConfigsTest, ServerlessMemoryComesInOneGigabyteSteps) {
  auto serverless = [](int memory) {
    return json{{"VariantName", "AllTraffic"},
                {"ModelName", "model-v1"},
                {"ServerlessConfig", {{"MemorySizeInMB", memory}, {"MaxConcurrency", 5}}}};
  };
  for (const int memory : {1024, 2048, 3072, 4096, 5120, 6144}) {
    Call("CreateEndpointConfig", {{"EndpointConfigName", "ok-" + std::to_string(memory)},
                                  {"ProductionVariants", {serverless(memory)}}});
  }
  const json between =
      Call("CreateEndpointConfig",
           {{"EndpointConfigName", "between"}, {"ProductionVariants", {serverless(1500)}}}, 400);
  EXPECT_EQ(between["__type"], "ValidationException");
  EXPECT_EQ(between["message"],
            "1 validation error detected: Value '1500' at "
            "'productionVariants.1.member.serverlessConfig.memorySizeInMB' failed to satisfy "
            "constraint: Member must be one of 1024, 2048, 3072, 4096, 5120 or 6144 (1 GB steps)");
  // The model's own range is checked first, with the model's wording.
  const json below =
      Call("CreateEndpointConfig",
           {{"EndpointConfigName", "below"}, {"ProductionVariants", {serverless(512)}}}, 400);
  EXPECT_THAT(below["message"].get<std::string>(),
              HasSubstr("Member must have value greater than or equal to 1024"));
  EXPECT_EQ(Call("DescribeEndpointConfig", {{"EndpointConfigName", "between"}}, 400)["__type"],
            "ValidationException");
}

TEST_F(EndpointConfigsTest, DuplicatesAndMissingModelsUseTheRealTexts) {
  const json variant = {{"VariantName", "v"},
                        {"ModelName", "model-v1"},
                        {"InstanceType", "ml.g5.xlarge"},
                        {"InitialInstanceCount", 1}};
  CreateConfig("dup", variant);
  EXPECT_EQ(CreateConfig("DUP", variant, 400)["message"],
            "Cannot create already existing endpoint configuration "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/dup\".");
  json no_model = variant;
  no_model["ModelName"] = "Missing-Model";
  EXPECT_EQ(
      CreateConfig("other", no_model, 400)["message"],
      "Could not find model \"arn:aws:sagemaker:us-west-2:123456789012:model/missing-model\".");
}

TEST_F(EndpointConfigsTest, AReservedVariantMustFitItsPlan) {
  const std::string plan = BuyPlan("endpoint-plan", 2);
  CreateConfig("fits", ReservedVariant(plan, 2));
  const json too_many = CreateConfig("too-many", ReservedVariant(plan, 3), 400);
  EXPECT_EQ(too_many["__type"], "ValidationException");
  EXPECT_EQ(too_many["message"],
            "Requested instance count (3) exceeds reserved capacity (2) for training plan.");
  EXPECT_THAT(
      CreateConfig("wrong-type", ReservedVariant(plan, 1, "ml.p4d.24xlarge"), 400)["message"]
          .get<std::string>(),
      HasSubstr("must be ml.p5.48xlarge"));
  // MlReservationArn's model pattern allows resource types of at most 14 characters, so a
  // reserved-capacity ARN (17) is refused by validation: only the training-plan ARN fits.
  const json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "endpoint-plan"}});
  const json by_capacity = CreateConfig(
      "by-capacity-arn",
      ReservedVariant(described["ReservedCapacitySummaries"][0]["ReservedCapacityArn"], 1), 400);
  EXPECT_THAT(
      by_capacity["message"].get<std::string>(),
      HasSubstr("at 'productionVariants.1.member.capacityReservationConfig.mlReservationArn' "
                "failed to satisfy constraint: Member must satisfy regular expression"));
}

// "You can use exactly one plan per inference endpoint." (Deploy an inference endpoint using the
// API, AWS CLI; developer guide)
TEST_F(EndpointConfigsTest, AnEndpointUsesExactlyOnePlan) {
  const std::string first = BuyPlan("first-plan", 2);
  const std::string second = BuyPlan("second-plan", 1);
  json other = ReservedVariant(second, 1);
  other["VariantName"] = "Other";
  const json refused = Call("CreateEndpointConfig",
                            {{"EndpointConfigName", "two-plans"},
                             {"ProductionVariants", {ReservedVariant(first, 1), other}}},
                            400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_EQ(refused["message"],
            "An endpoint can use exactly one training plan, but the variants of this endpoint "
            "configuration name 2: " +
                first + " and " + second + ".");
  // A shadow variant counts too.
  EXPECT_EQ(Call("CreateEndpointConfig",
                 {{"EndpointConfigName", "shadow-plan"},
                  {"ProductionVariants", {ReservedVariant(first, 1)}},
                  {"ShadowProductionVariants", {other}}},
                 400)["__type"],
            "ValidationException");
  // Two variants on the same plan are one plan.
  json same = ReservedVariant(first, 1);
  same["VariantName"] = "Other";
  Call("CreateEndpointConfig", {{"EndpointConfigName", "one-plan"},
                                {"ProductionVariants", {ReservedVariant(first, 1), same}}});
}

TEST_F(EndpointConfigsTest, PlansForTrainingMissingOrExpiredAreRefused) {
  const std::string training = BuyPlan("for-training", 1, "training-job");
  EXPECT_THAT(
      CreateConfig("training", ReservedVariant(training, 1), 400)["message"].get<std::string>(),
      HasSubstr("was not bought for endpoints"));
  const json missing = CreateConfig(
      "missing",
      ReservedVariant("arn:aws:sagemaker:us-west-2:123456789012:training-plan/nothing", 1), 400);
  EXPECT_THAT(missing["message"].get<std::string>(), HasSubstr("does not name a training plan"));
  const json other_account = CreateConfig(
      "other-account",
      ReservedVariant("arn:aws:sagemaker:us-west-2:999999999999:training-plan/endpoint-plan", 1),
      400);
  EXPECT_EQ(other_account["__type"], "ValidationException");
  const std::string plan = BuyPlan("short-lived", 1);
  Advance(8 * kDay);
  EXPECT_THAT(CreateConfig("expired", ReservedVariant(plan, 1), 400)["message"].get<std::string>(),
              HasSubstr("has expired"));
  json no_arn = ReservedVariant(plan, 1);
  no_arn["CapacityReservationConfig"].erase("MlReservationArn");
  EXPECT_THAT(CreateConfig("no-arn", no_arn, 400)["message"].get<std::string>(),
              HasSubstr("MlReservationArn is required"));
}

}  // namespace
}  // namespace smemu
