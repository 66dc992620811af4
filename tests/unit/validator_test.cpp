#include "apimodel/validator.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apimodel/embedded_models.hpp"

namespace smemu::apimodel {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const Shape& Input(const char* operation) {
  return *ControlPlaneModel().FindOperation(operation)->input;
}

domain::AwsError ErrorOf(const char* operation, const json& body) {
  auto status = ValidateRequest(Input(operation), body);
  EXPECT_FALSE(status.ok()) << body.dump();
  return status.ok() ? domain::AwsError{} : status.error();
}

TEST(Validator, AcceptsAValidRequest) {
  EXPECT_TRUE(
      ValidateRequest(Input("CreateModel"), {{"ModelName", "m1"},
                                             {"PrimaryContainer", {{"Image", "img"}}},
                                             {"Tags", {{{"Key", "team"}, {"Value", "ml"}}}}})
          .ok());
}

TEST(Validator, MissingRequiredMember) {
  const auto error = ErrorOf("DescribeModel", json::object());
  EXPECT_EQ(error.code, "ValidationException");
  EXPECT_EQ(error.message,
            "1 validation error detected: Value null at 'modelName' failed to satisfy "
            "constraint: Member must not be null");
}

TEST(Validator, NullCountsAsAbsent) {
  EXPECT_EQ(ErrorOf("DescribeModel", {{"ModelName", nullptr}}).message,
            "1 validation error detected: Value null at 'modelName' failed to satisfy "
            "constraint: Member must not be null");
}

TEST(Validator, MaxLengthAndPatternAreSeparateErrors) {
  const std::string long_name(64, 'a');
  EXPECT_EQ(ErrorOf("DescribeModel", {{"ModelName", long_name}}).message,
            "1 validation error detected: Value '" + long_name +
                "' at 'modelName' failed to satisfy constraint: Member must have length less "
                "than or equal to 63");
  const std::string bad = std::string(64, 'a') + "_";
  const auto error = ErrorOf("DescribeModel", {{"ModelName", bad}});
  EXPECT_THAT(error.message, HasSubstr("2 validation errors detected: "));
  EXPECT_THAT(error.message, HasSubstr("Member must satisfy regular expression pattern: "
                                       "[a-zA-Z0-9]([\\-a-zA-Z0-9]*[a-zA-Z0-9])?; Value '"));
}

TEST(Validator, EnumAndRangeViolationsAreListedTogether) {
  EXPECT_EQ(ErrorOf("ListModels", {{"SortBy", "Size"}, {"MaxResults", 101}}).message,
            "2 validation errors detected: Value 'Size' at 'sortBy' failed to satisfy "
            "constraint: Member must satisfy enum value set: [Name, CreationTime]; Value '101' at "
            "'maxResults' failed to satisfy constraint: Member must have value less than or equal "
            "to 100");
}

TEST(Validator, NestedAndListMembersUseAwsPaths) {
  const auto error =
      ErrorOf("CreateModel", {{"ModelName", "m"}, {"Tags", {{{"Key", "k"}}, {{"Value", "v"}}}}});
  EXPECT_THAT(error.message, HasSubstr("Value null at 'tags.1.member.value' failed to satisfy "
                                       "constraint: Member must not be null"));
  EXPECT_THAT(error.message, HasSubstr("Value null at 'tags.2.member.key'"));
  EXPECT_THAT(error.message, HasSubstr("2 validation errors detected"));
}

TEST(Validator, ListLengthIsChecked) {
  json containers = json::array();
  for (int i = 0; i < 16; ++i) containers.push_back({{"Image", "img"}});
  EXPECT_THAT(ErrorOf("CreateModel", {{"ModelName", "m"}, {"Containers", containers}}).message,
              HasSubstr("at 'containers' failed to satisfy constraint: Member must have length "
                        "less than or equal to 15"));
}

TEST(Validator, MapKeysAreReportedAsOneConstraint) {
  const std::string long_key(1025, 'k');
  const auto error =
      ErrorOf("CreateModel",
              {{"ModelName", "m"}, {"PrimaryContainer", {{"Environment", {{long_key, "v"}}}}}});
  EXPECT_THAT(error.message, HasSubstr("at 'primaryContainer.environment' failed to satisfy "
                                       "constraint: Map keys must satisfy constraint: [Member "
                                       "must have length less than or equal to 1024"));
}

TEST(Validator, WrongJsonTypeIsASerializationError) {
  auto status = ValidateRequest(Input("ListModels"), {{"MaxResults", "ten"}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "SerializationException");
  EXPECT_THAT(status.error().message, HasSubstr("STRING_VALUE can not be converted to an Integer"));
  EXPECT_THAT(status.error().message, HasSubstr("maxResults"));

  status = ValidateRequest(Input("CreateModel"), {{"ModelName", {{"nested", 1}}}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "SerializationException");
  EXPECT_THAT(status.error().message,
              HasSubstr("Start of structure or map found where not expected"));
}

TEST(Validator, IntegersOutOfRangeAndFractionsAreRefused) {
  for (const json& value : {json(1.5), json(4294967296LL), json(18446744073709551615ULL)}) {
    auto status = ValidateRequest(Input("ListModels"), {{"MaxResults", value}});
    ASSERT_FALSE(status.ok()) << value.dump();
    EXPECT_EQ(status.error().code, "SerializationException") << value.dump();
  }
}

TEST(Validator, TimestampsAcceptIntegersFractionsAndNumericStrings) {
  for (const json& value : {json(1767225600), json(1767225600.123), json("1767225600.5")}) {
    EXPECT_TRUE(ValidateRequest(Input("ListModels"), {{"CreationTimeAfter", value}}).ok())
        << value.dump();
  }
  auto status = ValidateRequest(Input("ListModels"), {{"CreationTimeAfter", "yesterday"}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, "SerializationException");
}

TEST(Validator, TimestampsMustFallWithinTheYears1To9999) {
  for (const json& value : {json(-62135596800), json(253402300799), json("253402300799")}) {
    EXPECT_TRUE(ValidateRequest(Input("ListModels"), {{"CreationTimeAfter", value}}).ok())
        << value.dump();
  }
  for (const json& value : {json(-62135596801), json(253402300800), json(1e300), json("1e300"),
                            json("nan"), json("inf")}) {
    auto status = ValidateRequest(Input("ListModels"), {{"CreationTimeAfter", value}});
    ASSERT_FALSE(status.ok()) << value.dump();
    EXPECT_EQ(status.error().code, "SerializationException") << value.dump();
  }
}

TEST(Validator, UnknownMembersAreIgnored) {
  EXPECT_TRUE(ValidateRequest(Input("DescribeModel"), {{"ModelName", "m"}, {"Bogus", 1}}).ok());
}

TEST(Validator, CheckResponseFindsEveryKindOfDeparture) {
  const Shape& output = *ControlPlaneModel().FindOperation("DescribeModel")->output;
  EXPECT_TRUE(
      CheckResponse(output, {{"ModelName", "m"},
                             {"ModelArn", "arn:aws:sagemaker:us-east-1:000000000000:model/m"},
                             {"CreationTime", 1767225600}})
          .empty());
  const auto problems = CheckResponse(
      output, {{"ModelName", "m"}, {"CreationTime", "2026-01-01T00:00:00Z"}, {"Extra", 1}});
  EXPECT_EQ(problems.size(), 3u);  // missing ModelArn, ISO timestamp, unknown member
}

TEST(Validator, LowerCamel) {
  EXPECT_EQ(LowerCamel("ModelName"), "modelName");
  EXPECT_EQ(LowerCamel("VpcConfig"), "vpcConfig");
}

}  // namespace
}  // namespace smemu::apimodel
