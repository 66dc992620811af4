// AddTags, ListTags, DeleteTags through the router on every resource kind, the domain rules
// (reserved prefix, 50 tags) as pure functions, and ListTags' page tokens.
#include "domain/tags.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/wire_values.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr const char* kArnPrefix = "arn:aws:sagemaker:us-west-2:123456789012:";
const std::string kEastAuth =
    "AWS4-HMAC-SHA256 Credential=123456789012/20270125/us-east-1/sagemaker/aws4_request, "
    "SignedHeaders=host, Signature=0";
const std::string kMalformedToken = "Invalid pagination token because of a malformed NextToken.";

std::string NotFound(const std::string& arn) { return "Could not find resource \"" + arn + "\"."; }

json TagsJson(const std::vector<std::pair<std::string, std::string>>& tags) {
  json list = json::array();
  for (const auto& [key, value] : tags) list.push_back({{"Key", key}, {"Value", value}});
  return list;
}

// n tags k0=v0 ... k<n-1>=v<n-1>, starting at `first`.
json NumberedTags(int n, int first = 0, const std::string& value_prefix = "v") {
  json list = json::array();
  for (int i = first; i < first + n; ++i) {
    list.push_back({{"Key", "k" + std::to_string(i)}, {"Value", value_prefix + std::to_string(i)}});
  }
  return list;
}

class TagsTest : public EmulatorFixture {
 protected:
  TagsTest() {
    Call("CreateModel", {{"ModelName", "Tagged-Model"}, {"Tags", TagsJson({{"team", "ml"}})}});
  }

  const std::string model_arn_ = std::string(kArnPrefix) + "model/tagged-model";

  json List(const std::string& arn, json extra = json::object(), int status = 200) {
    extra["ResourceArn"] = arn;
    return Call("ListTags", extra, status);
  }
  json Add(const std::string& arn, const json& tags, int status = 200) {
    return Call("AddTags", {{"ResourceArn", arn}, {"Tags", tags}}, status);
  }
  json Remove(const std::string& arn, const json& keys, int status = 200) {
    return Call("DeleteTags", {{"ResourceArn", arn}, {"TagKeys", keys}}, status);
  }

  // Creates one resource of `kind` with the tag creator=<kind> and returns its ARN.
  std::string CreateTagged(const std::string& kind) {
    const json tags = TagsJson({{"creator", kind}});
    if (kind == "model") {
      return Call("CreateModel", {{"ModelName", "m1"}, {"Tags", tags}})["ModelArn"];
    }
    if (kind == "endpoint-config") {
      return Call("CreateEndpointConfig", {{"EndpointConfigName", "c1"},
                                           {"ProductionVariants", {Variant()}},
                                           {"Tags", tags}})["EndpointConfigArn"];
    }
    if (kind == "endpoint") {
      Call("CreateEndpointConfig",
           {{"EndpointConfigName", "for-e1"}, {"ProductionVariants", {Variant()}}});
      return Call("CreateEndpoint", {{"EndpointName", "e1"},
                                     {"EndpointConfigName", "for-e1"},
                                     {"Tags", tags}})["EndpointArn"];
    }
    if (kind == "training-plan") {
      const json offering = Search(1)["TrainingPlanOfferings"][0];
      return Call("CreateTrainingPlan",
                  {{"TrainingPlanName", "p1"},
                   {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]},
                   {"Tags", tags}})["TrainingPlanArn"];
    }
    if (kind == "training-job") {
      return Call(
          "CreateTrainingJob",
          {{"TrainingJobName", "t1"},
           {"RoleArn", "arn:aws:iam::123456789012:role/r"},
           {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
           {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
           {"ResourceConfig",
            {{"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 5}}},
           {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
           {"Tags", tags}})["TrainingJobArn"];
    }
    return Call(
        "CreateProcessingJob",
        {{"ProcessingJobName", "p1"},
         {"RoleArn", "arn:aws:iam::123456789012:role/r"},
         {"AppSpecification", {{"ImageUri", "img:1"}}},
         {"ProcessingResources",
          {{"ClusterConfig",
            {{"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 5}}}}},
         {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
         {"Tags", tags}})["ProcessingJobArn"];
  }

  static json Variant() {
    return {{"VariantName", "AllTraffic"},
            {"ModelName", "Tagged-Model"},
            {"InstanceType", "ml.g5.xlarge"},
            {"InitialInstanceCount", 1}};
  }

  // Starts the emulator again over the same store, with endpoints taking `delay` to provision.
  void Reopen(Millis delay) {
    router_.reset();
    emulator_.reset();
    hosting_.provisioning_delay = delay;
    Open();
  }

  // A handler call below the router: no model validation, so MaxResults may go below 50.
  domain::Result<json> InvokeDirectly(const std::string& operation, const json& input) {
    auto answer =
        emulator_->Invoke(operation, input, ops::Caller{"123456789012", "us-west-2", "req"});
    if (!answer) return answer.error();
    return answer->Tree();
  }
};

// ------------------------------------------------------------------------------ every kind

TEST_F(TagsTest, EveryResourceKindTakesTagsFromCreationAndThroughTheThreeOperations) {
  for (const std::string kind : {"model", "endpoint-config", "endpoint", "training-plan",
                                 "training-job", "processing-job"}) {
    SCOPED_TRACE(kind);
    const std::string arn = CreateTagged(kind);
    EXPECT_THAT(arn, HasSubstr(":" + kind + "/"));
    EXPECT_EQ(List(arn), json({{"Tags", TagsJson({{"creator", kind}})}}));

    const json added = Add(arn, TagsJson({{"env", "test"}, {"owner", "me"}}));
    EXPECT_EQ(added, json({{"Tags", TagsJson({{"env", "test"}, {"owner", "me"}})}}));
    EXPECT_EQ(List(arn)["Tags"], TagsJson({{"creator", kind}, {"env", "test"}, {"owner", "me"}}));

    EXPECT_EQ(Remove(arn, {"creator", "owner"}), json::object());
    EXPECT_EQ(List(arn)["Tags"], TagsJson({{"env", "test"}}));
  }
  // Each resource kept only its own tags.
  EXPECT_EQ(List(model_arn_)["Tags"], TagsJson({{"team", "ml"}}));
}

TEST_F(TagsTest, AResourceCreatedWithoutTagsListsNone) {
  Call("CreateModel", {{"ModelName", "bare"}});
  const json listed = List(std::string(kArnPrefix) + "model/bare");
  EXPECT_EQ(listed, json({{"Tags", json::array()}}));
}

// ------------------------------------------------------------------------------ AddTags

TEST_F(TagsTest, AddingAnExistingKeyOverwritesItsValueInPlace) {
  Add(model_arn_, TagsJson({{"a", "1"}, {"b", "2"}}));
  Add(model_arn_, TagsJson({{"team", "platform"}, {"c", "3"}}));
  EXPECT_EQ(List(model_arn_)["Tags"],
            TagsJson({{"team", "platform"}, {"a", "1"}, {"b", "2"}, {"c", "3"}}));
  // Keys are case-sensitive: TEAM is another key.
  Add(model_arn_, TagsJson({{"TEAM", "x"}}));
  EXPECT_EQ(List(model_arn_)["Tags"].size(), 5u);
  // A key given twice in one request ends with its last value; an empty value is a value.
  Add(model_arn_, TagsJson({{"d", "first"}, {"d", "last"}, {"e", ""}}));
  EXPECT_EQ(List(model_arn_)["Tags"].back(), json({{"Key", "e"}, {"Value", ""}}));
  EXPECT_EQ(List(model_arn_)["Tags"][5], json({{"Key", "d"}, {"Value", "last"}}));
}

TEST_F(TagsTest, AResourceHoldsAtMostFiftyTags) {
  Add(model_arn_, NumberedTags(49));  // 1 from creation + 49
  EXPECT_EQ(List(model_arn_)["Tags"].size(), 50u);
  // Overwriting keys a full resource has is allowed.
  Add(model_arn_, NumberedTags(49, 0, "new"));
  EXPECT_EQ(List(model_arn_)["Tags"][49], json({{"Key", "k48"}, {"Value", "new48"}}));

  const json refused = Add(model_arn_, TagsJson({{"one-more", "x"}, {"k0", "y"}}), 400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_EQ(refused["message"],
            "A resource can have at most 50 tags; with these tags it would have 51.");
  // The refused request changed nothing, not even the key that was already there.
  const json tags = List(model_arn_)["Tags"];
  EXPECT_EQ(tags.size(), 50u);
  EXPECT_EQ(tags[1], json({{"Key", "k0"}, {"Value", "new0"}}));

  // After a delete there is room again.
  Remove(model_arn_, {"k0"});
  Add(model_arn_, TagsJson({{"one-more", "x"}}));
  EXPECT_EQ(List(model_arn_)["Tags"].size(), 50u);
}

TEST_F(TagsTest, TheModelLimitsAreCheckedByTheValidator) {
  // More than 50 tags in one request, a key too long, a value with a character outside the
  // pattern: the model's constraints, before the handler runs.
  EXPECT_THAT(Add(model_arn_, NumberedTags(51), 400)["message"],
              HasSubstr("Member must have length less than or equal to 50"));
  EXPECT_THAT(Add(model_arn_, TagsJson({{std::string(129, 'k'), "v"}}), 400)["message"],
              HasSubstr("Member must have length less than or equal to 128"));
  EXPECT_THAT(Add(model_arn_, TagsJson({{"k", "semi;colon"}}), 400)["message"],
              HasSubstr("Member must satisfy regular expression pattern"));
  EXPECT_THAT(Remove(model_arn_, json::array(), 400)["message"],
              HasSubstr("Member must have length greater than or equal to 1"));
  EXPECT_THAT(List(model_arn_, {{"MaxResults", 10}}, 400)["message"],
              HasSubstr("Member must have value greater than or equal to 50"));
  EXPECT_THAT(List("not-an-arn", json::object(), 400)["message"],
              HasSubstr("Member must satisfy regular expression pattern"));
  EXPECT_EQ(List(model_arn_)["Tags"], TagsJson({{"team", "ml"}}));
}

TEST_F(TagsTest, KeysWithTheReservedPrefixAreRefusedInAnyCase) {
  for (const std::string key : {"aws:cloudformation:stack-name", "AWS:x", "Aws:"}) {
    SCOPED_TRACE(key);
    const json added = Add(model_arn_, TagsJson({{"fine", "1"}, {key, "v"}}), 400);
    EXPECT_EQ(added["__type"], "ValidationException");
    EXPECT_EQ(added["message"], "System prefix 'aws:' reserved for AWS usage in tag key: " + key);
    const json removed = Remove(model_arn_, {key}, 400);
    EXPECT_EQ(removed["message"], "System prefix 'aws:' reserved for AWS usage in tag key: " + key);
  }
  // Creating a resource with such a tag is refused as well, before anything is created.
  const json created =
      Call("CreateModel", {{"ModelName", "reserved"}, {"Tags", TagsJson({{"aws:x", "v"}})}}, 400);
  EXPECT_EQ(created["message"], "System prefix 'aws:' reserved for AWS usage in tag key: aws:x");
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "reserved"}}, 400)["__type"],
            "ValidationException");
  // A Tags member an operation does not model is ignored, whatever it holds.
  Call("ListModels", {{"Tags", {1, "x", {{"Key", 2}}, json::object()}}});
  // Nothing of a refused request was stored; "aws" without the colon and a value with the prefix
  // are ordinary.
  EXPECT_EQ(List(model_arn_)["Tags"], TagsJson({{"team", "ml"}}));
  Add(model_arn_, TagsJson({{"awsome", "aws:value"}}));
  EXPECT_EQ(List(model_arn_)["Tags"].size(), 2u);
}

// ------------------------------------------------------------------------------ DeleteTags

TEST_F(TagsTest, DeletingKeysTheResourceDoesNotHaveIsNoError) {
  Add(model_arn_, TagsJson({{"a", "1"}}));
  EXPECT_EQ(Remove(model_arn_, {"never-there", "A"}), json::object());
  EXPECT_EQ(List(model_arn_)["Tags"], TagsJson({{"team", "ml"}, {"a", "1"}}));
  Remove(model_arn_, {"a", "a"});
  Remove(model_arn_, {"a"});
  EXPECT_EQ(List(model_arn_)["Tags"], TagsJson({{"team", "ml"}}));
}

// ------------------------------------------------------------------------------ unknown ARNs

TEST_F(TagsTest, AnUnknownArnIsAValidationExceptionForAllThree) {
  for (const std::string& arn :
       {std::string(kArnPrefix) + "model/missing",
        std::string(kArnPrefix) + "notebook-instance/tagged-model",  // a kind not served
        std::string(kArnPrefix) + "model/Tagged-Model",              // ARNs hold lower case
        std::string("arn:aws:sagemaker:us-east-1:123456789012:model/tagged-model"),
        std::string(kArnPrefix) + "reserved-capacity/anything"}) {
    SCOPED_TRACE(arn);
    for (const json& error : {List(arn, json::object(), 400), Add(arn, TagsJson({{"a", "1"}}), 400),
                              Remove(arn, {"a"}, 400)}) {
      EXPECT_EQ(error["__type"], "ValidationException");
      EXPECT_EQ(error["message"], NotFound(arn));
    }
  }
}

TEST_F(TagsTest, AnotherAccountOrRegionCannotSeeOrChangeTheTags) {
  for (const std::string& auth : {kOtherAuth, kEastAuth}) {
    SCOPED_TRACE(auth);
    auto call_as = [this, &auth](const std::string& operation, const json& input) {
      const auto response =
          router_->Handle({"POST",
                           "/",
                           {{"X-Amz-Target", "SageMaker." + operation}, {"Authorization", auth}},
                           input.dump()});
      EXPECT_EQ(response.status, 400) << response.body;
      return json::parse(response.body);
    };
    for (const json& error :
         {call_as("ListTags", {{"ResourceArn", model_arn_}}),
          call_as("AddTags", {{"ResourceArn", model_arn_}, {"Tags", TagsJson({{"a", "1"}})}}),
          call_as("DeleteTags", {{"ResourceArn", model_arn_}, {"TagKeys", {"team"}}})}) {
      EXPECT_EQ(error["__type"], "ValidationException");
      EXPECT_EQ(error["message"], NotFound(model_arn_));
    }
  }
  EXPECT_EQ(List(model_arn_)["Tags"], TagsJson({{"team", "ml"}}));
}

// ------------------------------------------------------------------------------ deletion

TEST_F(TagsTest, TagsGoWithTheResourceAndDoNotComeBackWithItsName) {
  Add(model_arn_, TagsJson({{"a", "1"}}));
  Call("DeleteModel", {{"ModelName", "tagged-model"}});
  EXPECT_EQ(List(model_arn_, json::object(), 400)["message"], NotFound(model_arn_));
  Call("CreateModel", {{"ModelName", "TAGGED-model"}});
  EXPECT_EQ(List(model_arn_)["Tags"], json::array());
}

TEST_F(TagsTest, AnEndpointKeepsItsTagsWhileDeletingAndLosesThemWhenGone) {
  Reopen(Millis{60'000});
  const std::string arn = CreateTagged("endpoint");
  Advance(60);
  Call("DeleteEndpoint", {{"EndpointName", "e1"}});
  EXPECT_EQ(List(arn)["Tags"], TagsJson({{"creator", "endpoint"}}));  // still Deleting
  Advance(60);
  EXPECT_EQ(List(arn, json::object(), 400)["message"], NotFound(arn));
  EXPECT_EQ(store_.Rows().GetTags(arn), store::Tags{});
}

// ------------------------------------------------------------------------------ ListTags pages

TEST_F(TagsTest, OnePageHoldsEveryTagAtTheModelsSmallestPageSize) {
  Add(model_arn_, NumberedTags(49));
  for (const json& request : {json::object(), json{{"MaxResults", 50}}}) {
    const json listed = List(model_arn_, request);
    EXPECT_EQ(listed["Tags"].size(), 50u);
    EXPECT_FALSE(listed.contains("NextToken"));
  }
}

TEST_F(TagsTest, TheHandlerPagesWithItsTokensBelowTheModelsMinimum) {
  // Through the router MaxResults is at least 50, which is every tag a resource can have; below
  // it the handler's own paging shows: three pages of 2, 2 and 1, with a delete in between.
  Add(model_arn_, TagsJson({{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "4"}}));
  auto first = InvokeDirectly("ListTags", {{"ResourceArn", model_arn_}, {"MaxResults", 2}});
  ASSERT_TRUE(first.ok());
  EXPECT_EQ((*first)["Tags"], TagsJson({{"team", "ml"}, {"a", "1"}}));
  ASSERT_TRUE(first->contains("NextToken"));
  Remove(model_arn_, {"b"});
  auto second = InvokeDirectly(
      "ListTags",
      {{"ResourceArn", model_arn_}, {"MaxResults", 2}, {"NextToken", (*first)["NextToken"]}});
  ASSERT_TRUE(second.ok());
  EXPECT_EQ((*second)["Tags"], TagsJson({{"c", "3"}, {"d", "4"}}));
  EXPECT_FALSE(second->contains("NextToken"));  // exactly two were left
  // The token of the first page, given through the router, is accepted there too.
  const json again = List(model_arn_, {{"MaxResults", 50}, {"NextToken", (*first)["NextToken"]}});
  EXPECT_EQ(again["Tags"], TagsJson({{"c", "3"}, {"d", "4"}}));
}

TEST_F(TagsTest, AMalformedTokenIsRefused) {
  for (const std::string& token :
       {std::string("not base64!"), ops::Base64Encode("not json"),
        ops::Base64Encode(R"({"tag_position":"1","tag_key":"a"})"),
        ops::Base64Encode(R"({"tag_position":1})"), ops::Base64Encode("[]")}) {
    SCOPED_TRACE(token);
    const json refused = List(model_arn_, {{"NextToken", token}}, 400);
    EXPECT_EQ(refused["__type"], "ValidationException");
    EXPECT_EQ(refused["message"], kMalformedToken);
  }
}

// ------------------------------------------------------------------------------ pure functions

TEST(TagRules, TheReservedPrefixIsAwsColonInAnyCase) {
  EXPECT_TRUE(domain::IsReservedTagKey("aws:"));
  EXPECT_TRUE(domain::IsReservedTagKey("aWs:name"));
  EXPECT_FALSE(domain::IsReservedTagKey("aws"));
  EXPECT_FALSE(domain::IsReservedTagKey("awsx:name"));
  EXPECT_FALSE(domain::IsReservedTagKey(" aws:name"));
  EXPECT_FALSE(domain::IsReservedTagKey(""));
  EXPECT_TRUE(domain::CheckNoReservedKeys({"a", "b"}).ok());
  const auto refused = domain::CheckNoReservedKeys({"a", "AWS:one", "aws:two"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error(),
            domain::ValidationException(
                "System prefix 'aws:' reserved for AWS usage in tag key: AWS:one"));
}

TEST(TagRules, OverwrittenAndRepeatedKeysCountOnce) {
  EXPECT_EQ(domain::CountAfterAdding({}, {}), 0u);
  EXPECT_EQ(domain::CountAfterAdding({"a", "b"}, {{"b", "x"}, {"c", "y"}, {"c", "z"}}), 3u);
  EXPECT_EQ(domain::CountAfterAdding({"a"}, {{"A", "x"}}), 2u);  // case-sensitive
  EXPECT_TRUE(domain::CheckTagCount(50).ok());
  EXPECT_FALSE(domain::CheckTagCount(51).ok());
  EXPECT_EQ(domain::CheckTagCount(60).error().message,
            "A resource can have at most 50 tags; with these tags it would have 60.");
}

}  // namespace
}  // namespace smemu
