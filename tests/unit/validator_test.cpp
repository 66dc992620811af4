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
  EXPECT_EQ(error.code, domain::ErrorCode::kValidationException);
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
  EXPECT_EQ(status.error().code, domain::ErrorCode::kSerializationException);
  EXPECT_THAT(status.error().message, HasSubstr("STRING_VALUE can not be converted to an Integer"));
  EXPECT_THAT(status.error().message, HasSubstr("maxResults"));

  status = ValidateRequest(Input("CreateModel"), {{"ModelName", {{"nested", 1}}}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, domain::ErrorCode::kSerializationException);
  EXPECT_THAT(status.error().message,
              HasSubstr("Start of structure or map found where not expected"));
}

TEST(Validator, IntegersOutOfRangeAndFractionsAreRefused) {
  for (const json& value : {json(1.5), json(4294967296LL), json(18446744073709551615ULL)}) {
    auto status = ValidateRequest(Input("ListModels"), {{"MaxResults", value}});
    ASSERT_FALSE(status.ok()) << value.dump();
    EXPECT_EQ(status.error().code, domain::ErrorCode::kSerializationException) << value.dump();
  }
}

TEST(Validator, TimestampsAcceptIntegersFractionsAndNumericStrings) {
  for (const json& value : {json(1767225600), json(1767225600.123), json("1767225600.5")}) {
    EXPECT_TRUE(ValidateRequest(Input("ListModels"), {{"CreationTimeAfter", value}}).ok())
        << value.dump();
  }
  auto status = ValidateRequest(Input("ListModels"), {{"CreationTimeAfter", "yesterday"}});
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, domain::ErrorCode::kSerializationException);
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
    EXPECT_EQ(status.error().code, domain::ErrorCode::kSerializationException) << value.dump();
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

// --------------------------------------------------------------------------- response checker

const Operation& ControlOp(const char* operation) {
  return *ControlPlaneModel().FindOperation(operation);
}

// A DescribeTrainingJob answer that fits the model.
json FinishedJob() {
  return {{"TrainingJobName", "j"},
          {"TrainingJobArn", "arn:aws:sagemaker:us-west-2:123456789012:training-job/j"},
          {"ModelArtifacts", {{"S3ModelArtifacts", "s3://bucket/j/output/model.tar.gz"}}},
          {"TrainingJobStatus", "Completed"},
          {"SecondaryStatus", "Completed"},
          {"StoppingCondition", {{"MaxRuntimeInSeconds", 86400}}},
          {"SecondaryStatusTransitions",
           {{{"Status", "Completed"}, {"StartTime", 1800835200.5}, {"EndTime", 1800835300}}}},
          {"HyperParameters", {{"epochs", "3"}}},
          {"CreationTime", 1800835200},
          {"TrainingTimeInSeconds", 100},
          {"BillableTimeInSeconds", 100}};
}

// The violations of FinishedJob() with `change` applied at the JSON pointer `where` (a null
// value removes the member).
std::vector<std::string> JobViolations(const std::string& where, const json& change) {
  json job = FinishedJob();
  const json::json_pointer pointer(where);
  if (change.is_discarded()) {
    job[pointer.parent_pointer()].erase(pointer.back());
  } else {
    job[pointer] = change;
  }
  return CheckResponse(*ControlOp("DescribeTrainingJob").output, job);
}

const json kRemove = json(json::value_t::discarded);

TEST(ResponseChecker, AConformingResponsePasses) {
  EXPECT_THAT(CheckResponse(*ControlOp("DescribeTrainingJob").output, FinishedJob()),
              ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(&ControlOp("DescribeTrainingJob"), 200, FinishedJob()),
              ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(&ControlOp("DeleteModel"), 200, json::object()), ::testing::IsEmpty());
}

TEST(ResponseChecker, CatchesEveryKindOfViolation) {
  using ::testing::ElementsAre;
  EXPECT_THAT(JobViolations("/BillableTimeInSeconds", 0),
              ElementsAre("Value 0 at 'BillableTimeInSeconds' failed to satisfy constraint: Member "
                          "must have value greater than or equal to 1"));
  EXPECT_THAT(JobViolations("/CreationTime", kRemove),
              ElementsAre("Value null at 'CreationTime' failed to satisfy constraint: Member must "
                          "not be null"));
  EXPECT_THAT(JobViolations("/Bogus", 1),
              ElementsAre("Member 'Bogus' is not in the model's DescribeTrainingJobResponse"));
  EXPECT_THAT(JobViolations("/FailureReason", nullptr),
              ElementsAre("Value null at 'FailureReason' failed to satisfy constraint: Member must "
                          "be left out rather than sent as null"));
  EXPECT_THAT(JobViolations("/TrainingTimeInSeconds", "100"),
              ElementsAre("Value '100' at 'TrainingTimeInSeconds' failed to satisfy constraint: "
                          "Member must be an Integer"));
  EXPECT_THAT(JobViolations("/TrainingTimeInSeconds", 3000000000LL),
              ElementsAre(HasSubstr("Member must fit in an Integer")));
  EXPECT_THAT(JobViolations("/TrainingJobStatus", "Running"),
              ElementsAre(HasSubstr("Value 'Running' at 'TrainingJobStatus' failed to satisfy "
                                    "constraint: Member must satisfy enum value set: [InProgress, "
                                    "Completed, ")));
  EXPECT_THAT(
      JobViolations("/TrainingJobName", "-bad"),
      ElementsAre("Value '-bad' at 'TrainingJobName' failed to satisfy constraint: Member "
                  "must satisfy regular expression pattern: [a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}"));
  EXPECT_THAT(JobViolations("/FailureReason", std::string(1025, 'x')),
              ElementsAre(HasSubstr("at 'FailureReason' failed to satisfy constraint: Member must "
                                    "have length less than or equal to 1024")));
  EXPECT_THAT(JobViolations("/StoppingCondition/MaxRuntimeInSeconds", 0),
              ElementsAre("Value 0 at 'StoppingCondition.MaxRuntimeInSeconds' failed to satisfy "
                          "constraint: Member must have value greater than or equal to 1"));
  EXPECT_THAT(JobViolations("/InputDataConfig", json::array()),
              ElementsAre("Value [] at 'InputDataConfig' failed to satisfy constraint: Member must "
                          "have length greater than or equal to 1"));
  json many = json::object();
  for (int i = 0; i < 101; ++i) many["p" + std::to_string(i)] = "v";
  EXPECT_THAT(JobViolations("/HyperParameters", many),
              ElementsAre(HasSubstr("at 'HyperParameters' failed to satisfy constraint: Member "
                                    "must have length less than or equal to 100")));
  EXPECT_THAT(JobViolations("/HyperParameters", {{"epochs", 3}}),
              ElementsAre("Value 3 at 'HyperParameters.epochs' failed to satisfy constraint: "
                          "Member must be a String"));
  EXPECT_THAT(JobViolations("/SecondaryStatusTransitions/0/Status", "Bogus"),
              ElementsAre(HasSubstr("at 'SecondaryStatusTransitions[0].Status' failed to satisfy "
                                    "constraint: Member must satisfy enum value set")));
  EXPECT_THAT(
      JobViolations("/CreationTime", "2027-01-25T00:00:00Z"),
      ElementsAre("Value '2027-01-25T00:00:00Z' at 'CreationTime' failed to satisfy "
                  "constraint: Member must be a Timestamp in epoch seconds (a JSON number)"));
  EXPECT_THAT(JobViolations("/CreationTime", 1e300), ElementsAre(HasSubstr("Timestamp")));
  EXPECT_THAT(JobViolations("/EnableNetworkIsolation", "false"),
              ElementsAre(HasSubstr("Member must be a Boolean")));
  EXPECT_THAT(JobViolations("/ModelArtifacts", "s3://x"),
              ElementsAre(HasSubstr("at 'ModelArtifacts' failed to satisfy constraint: Member must "
                                    "be a Structure")));
  EXPECT_THAT(JobViolations("/SecondaryStatusTransitions", {{"Status", "Completed"}}),
              ElementsAre(HasSubstr("Member must be a List")));
}

TEST(ResponseChecker, ASuccessMustCarryTheOperationsStatus) {
  EXPECT_THAT(CheckResponse(&ControlOp("DescribeTrainingJob"), 201, FinishedJob()),
              ::testing::ElementsAre("DescribeTrainingJob answers HTTP 200, not 201"));
  EXPECT_THAT(CheckResponse(&ControlOp("DeleteModel"), 200, {{"ModelName", "m"}}),
              ::testing::ElementsAre(HasSubstr("DeleteModel has no output members")));
}

json ErrorBody(const std::string& code) {
  return {{"__type", code}, {"message", "text"}, {"Message", "text"}};
}

TEST(ResponseChecker, ModelledAndCommonErrorsPass) {
  const Operation& describe = ControlOp("DescribeTrainingJob");
  EXPECT_THAT(CheckResponse(&describe, 400, ErrorBody("ResourceNotFound")), ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(&describe, 400, ErrorBody("com.amazonaws.sagemaker#ResourceNotFound")),
              ::testing::IsEmpty());
  for (const char* common : {"ValidationException", "AccessDeniedException", "ThrottlingException",
                             "SerializationException", "UnknownOperationException",
                             "UnrecognizedClientException", "IncompleteSignatureException",
                             "InvalidSignatureException", "MissingAuthenticationTokenException"}) {
    EXPECT_THAT(CheckResponse(&describe, 400, ErrorBody(common)), ::testing::IsEmpty()) << common;
    EXPECT_TRUE(IsCommonError(common)) << common;
  }
  EXPECT_THAT(CheckResponse(&describe, 500, ErrorBody("InternalFailure")), ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(&describe, 503, ErrorBody("ServiceUnavailable")), ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(nullptr, 413, ErrorBody("RequestEntityTooLargeException")),
              ::testing::IsEmpty());
  EXPECT_FALSE(IsCommonError("ResourceNotFound"));
}

TEST(ResponseChecker, AnUnmodelledErrorCodeIsCaught) {
  EXPECT_THAT(
      CheckResponse(&ControlOp("SearchTrainingPlanOfferings"), 400, ErrorBody("ResourceNotFound")),
      ::testing::ElementsAre(
          "Error code 'ResourceNotFound' is neither one of "
          "SearchTrainingPlanOfferings's modelled errors [ResourceLimitExceeded] "
          "nor a common AWS error"));
  EXPECT_THAT(CheckResponse(&ControlOp("DescribeModel"), 400, ErrorBody("NoSuchModel")),
              ::testing::ElementsAre(HasSubstr("'NoSuchModel' is neither one of DescribeModel's "
                                               "modelled errors [] nor a common AWS error")));
  EXPECT_THAT(CheckResponse(&ControlOp("DescribeModel"), 400, {{"message", "no code"}}),
              ::testing::ElementsAre(HasSubstr("has no __type")));
}

TEST(ResponseChecker, ErrorsCarryTheirStatusAndMembers) {
  const Operation& describe = ControlOp("DescribeTrainingJob");
  EXPECT_THAT(CheckResponse(&describe, 404, ErrorBody("ResourceNotFound")),
              ::testing::ElementsAre("Error ResourceNotFound is sent with HTTP 404; the model says "
                                     "400"));
  EXPECT_THAT(
      CheckResponse(&describe, 400, ErrorBody("InternalFailure")),
      ::testing::ElementsAre("Error InternalFailure is sent with HTTP 400; it must be 500"));
  EXPECT_THAT(CheckResponse(&describe, 500, ErrorBody("ValidationException")),
              ::testing::ElementsAre(HasSubstr("it must be 400")));
  json extra = ErrorBody("ThrottlingException");
  extra["RetryAfter"] = 3;
  EXPECT_THAT(CheckResponse(&describe, 400, extra),
              ::testing::ElementsAre("Member 'RetryAfter' is not in the common error "
                                     "ThrottlingException"));
  json long_message = ErrorBody("ResourceNotFound");
  long_message["Message"] = std::string(1025, 'x');
  EXPECT_THAT(CheckResponse(&describe, 400, long_message),
              ::testing::ElementsAre(HasSubstr("at 'Message' failed to satisfy constraint: Member "
                                               "must have length less than or equal to 1024")));

  // The runtime's errors carry their own statuses and members (ModelError: 424).
  const Operation& invoke = *RuntimeModel().FindOperation("InvokeEndpoint");
  json model_error = ErrorBody("ModelError");
  model_error["OriginalStatusCode"] = 500;
  model_error["OriginalMessage"] = "boom";
  model_error["LogStreamArn"] = "arn:aws:logs:us-west-2:123456789012:log-group:/aws/x";
  EXPECT_THAT(CheckResponse(&invoke, 424, model_error), ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(&invoke, 400, model_error),
              ::testing::ElementsAre("Error ModelError is sent with HTTP 400; the model says 424"));
  model_error["OriginalStatusCode"] = "500";
  EXPECT_THAT(CheckResponse(&invoke, 424, model_error),
              ::testing::ElementsAre(HasSubstr("at 'OriginalStatusCode' failed to satisfy "
                                               "constraint: Member must be an Integer")));
  EXPECT_THAT(CheckResponse(&invoke, 400, ErrorBody("ValidationError")), ::testing::IsEmpty());
  EXPECT_THAT(CheckResponse(&invoke, 429, ErrorBody("ModelNotReadyException")),
              ::testing::IsEmpty());
}

TEST(ResponseChecker, TheFailureMessageNamesTheOperationAndEachViolation) {
  EXPECT_EQ(DescribeResponseViolations("DescribeTrainingJob", {"first", "second"}),
            "Response check failed for DescribeTrainingJob: first; second");
}

TEST(ServiceModel, LoadsEachOperationsErrors) {
  const Operation& create = ControlOp("CreateTrainingJob");
  std::vector<std::string> names;
  for (const Shape* error : create.errors) names.push_back(error->name);
  EXPECT_THAT(names,
              ::testing::ElementsAre("ResourceNotFound", "ResourceInUse", "ResourceLimitExceeded"));
  EXPECT_TRUE(ControlOp("DescribeModel").errors.empty());
  EXPECT_FALSE(create.errors[0]->error_status.has_value());
  const Shape* model_error = RuntimeModel().FindShape("ModelError");
  ASSERT_NE(model_error, nullptr);
  EXPECT_EQ(model_error->error_status, 424);
}

TEST(Validator, LowerCamel) {
  EXPECT_EQ(LowerCamel("ModelName"), "modelName");
  EXPECT_EQ(LowerCamel("VpcConfig"), "vpcConfig");
}

}  // namespace
}  // namespace smemu::apimodel
