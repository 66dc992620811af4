// The protocol layer end to end without sockets: Router -> Emulator -> StateStore (in memory).
#include "protocol/router.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "apimodel/embedded_models.hpp"
#include "apimodel/validator.hpp"
#include "ops/emulator.hpp"
#include "store/state_store.hpp"

namespace smemu::protocol {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const TimePoint kStart{Millis{1800835200000}};  // 2027-01-25T00:00:00Z

std::string Auth(const std::string& access_key, const std::string& region) {
  return "AWS4-HMAC-SHA256 Credential=" + access_key + "/20270125/" + region +
         "/sagemaker/aws4_request, SignedHeaders=host, Signature=0";
}

struct Reply {
  int status = 0;
  json body;
  HttpResponse raw;
};

class RouterTest : public ::testing::Test {
 protected:
  RouterTest()
      : base_clock_(TimePoint{Millis{0}}),
        store_(":memory:"),
        emulator_(store_, base_clock_, ops::ClockStart{kStart, /*frozen=*/true}),
        router_(emulator_, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(),
                RouterConfig{}) {}

  Reply Send(HttpRequest request) {
    Reply reply;
    reply.raw = router_.Handle(request);
    reply.status = reply.raw.status;
    reply.body = json::parse(reply.raw.body, nullptr, false);
    return reply;
  }

  // Calls a control-plane operation; every success is checked against the model's output shape.
  Reply Call(const std::string& operation, const json& input,
             const std::string& authorization = Auth("AKIDEXAMPLE", "us-east-1")) {
    HttpRequest request{"POST",
                        "/",
                        {{"Content-Type", "application/x-amz-json-1.1"},
                         {"X-Amz-Target", "SageMaker." + operation},
                         {"Authorization", authorization}},
                        input.dump()};
    Reply reply = Send(std::move(request));
    if (reply.status == 200) {
      const auto* spec = apimodel::ControlPlaneModel().FindOperation(operation);
      if (spec->output != nullptr) {
        EXPECT_THAT(apimodel::CheckResponse(*spec->output, reply.body), ::testing::IsEmpty())
            << operation << " answered " << reply.raw.body;
      }
    }
    return reply;
  }

  Reply Admin(const std::string& method, const std::string& path, const std::string& body = "") {
    return Send(HttpRequest{method, path, {}, body});
  }

  static void ExpectError(const Reply& reply, int status, const std::string& code,
                          const std::string& message) {
    EXPECT_EQ(reply.status, status) << reply.raw.body;
    EXPECT_EQ(reply.body.value("__type", ""), code) << reply.raw.body;
    EXPECT_EQ(reply.body.value("message", ""), message);
    EXPECT_EQ(reply.body.value("Message", ""), message);
    const std::string* header = FindHeader(reply.raw.headers, "X-Amzn-ErrorType");
    ASSERT_NE(header, nullptr);
    EXPECT_EQ(*header, code);
  }

  ManualClock base_clock_;
  store::StateStore store_;
  ops::Emulator emulator_;
  Router router_;
};

TEST_F(RouterTest, ModelLifecycle) {
  const Reply created =
      Call("CreateModel", {{"ModelName", "My-Model"},
                           {"ExecutionRoleArn", "arn:aws:iam::123456789012:role/r"},
                           {"PrimaryContainer", {{"Image", "img:1"}}}});
  ASSERT_EQ(created.status, 200) << created.raw.body;
  EXPECT_EQ(created.body["ModelArn"], "arn:aws:sagemaker:us-east-1:000000000000:model/my-model");
  EXPECT_EQ(*FindHeader(created.raw.headers, "Content-Type"), "application/x-amz-json-1.1");
  EXPECT_NE(FindHeader(created.raw.headers, "x-amzn-RequestId"), nullptr);

  const Reply described = Call("DescribeModel", {{"ModelName", "MY-MODEL"}});
  ASSERT_EQ(described.status, 200);
  EXPECT_EQ(described.body["ModelName"], "My-Model");
  EXPECT_EQ(described.body["CreationTime"], 1800835200);
  EXPECT_EQ(described.body["ExecutionRoleArn"], "arn:aws:iam::123456789012:role/r");
  EXPECT_EQ(described.body["PrimaryContainer"]["Image"], "img:1");
  EXPECT_EQ(described.body["PrimaryContainer"]["Mode"], "SingleModel");
  EXPECT_EQ(described.body["EnableNetworkIsolation"], false);

  const Reply deleted = Call("DeleteModel", {{"ModelName", "my-model"}});
  EXPECT_EQ(deleted.status, 200);
  EXPECT_EQ(deleted.body, json::object());
  ExpectError(Call("DescribeModel", {{"ModelName", "my-model"}}), 400, "ValidationException",
              "Could not find model \"arn:aws:sagemaker:us-east-1:000000000000:model/my-model\".");
}

TEST_F(RouterTest, DuplicateAndMissingModelsUseTheRealTexts) {
  ASSERT_EQ(Call("CreateModel", {{"ModelName", "dup"}}).status, 200);
  ExpectError(Call("CreateModel", {{"ModelName", "DUP"}}), 400, "ValidationException",
              "Cannot create already existing model "
              "\"arn:aws:sagemaker:us-east-1:000000000000:model/dup\".");
  ExpectError(Call("DeleteModel", {{"ModelName", "Nope"}}), 400, "ValidationException",
              "Could not find model \"arn:aws:sagemaker:us-east-1:000000000000:model/nope\".");
}

TEST_F(RouterTest, CallerComesFromTheCredentialScope) {
  const std::string alice = Auth("123456789012", "eu-west-1");
  const Reply created = Call("CreateModel", {{"ModelName", "m"}}, alice);
  EXPECT_EQ(created.body["ModelArn"], "arn:aws:sagemaker:eu-west-1:123456789012:model/m");
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "m"}}, alice).status, 200);
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "m"}}, Auth("210987654321", "eu-west-1")).status,
            400);
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "m"}}, Auth("123456789012", "us-east-1")).status,
            400);
  // A non-numeric access key falls back to the default account.
  EXPECT_EQ(
      Call("CreateModel", {{"ModelName", "m"}}, Auth("AKIDEXAMPLE", "cn-north-1")).body["ModelArn"],
      "arn:aws-cn:sagemaker:cn-north-1:000000000000:model/m");
}

TEST_F(RouterTest, ListModelsFiltersSortsAndPages) {
  for (const char* name : {"b-model", "a-model", "c-other", "d-model", "e-model"}) {
    ASSERT_EQ(Call("CreateModel", {{"ModelName", name}}).status, 200);
    ASSERT_TRUE(emulator_.ChangeClock({std::nullopt, Millis{1000}, std::nullopt}).ok());
  }
  std::vector<std::string> names;
  json input = {
      {"MaxResults", 2}, {"SortBy", "Name"}, {"SortOrder", "Ascending"}, {"NameContains", "MODEL"}};
  std::set<std::string> tokens;
  while (true) {
    const Reply page = Call("ListModels", input);
    ASSERT_EQ(page.status, 200) << page.raw.body;
    for (const auto& model : page.body["Models"]) names.push_back(model["ModelName"]);
    if (!page.body.contains("NextToken")) break;
    ASSERT_TRUE(tokens.insert(page.body["NextToken"].get<std::string>()).second);
    input["NextToken"] = page.body["NextToken"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"a-model", "b-model", "d-model", "e-model"}));

  // Default order: newest first. CreationTimeAfter/Before are exclusive.
  const Reply recent =
      Call("ListModels", {{"CreationTimeAfter", 1800835201}, {"CreationTimeBefore", 1800835204.0}});
  ASSERT_EQ(recent.status, 200);
  ASSERT_EQ(recent.body["Models"].size(), 2u);
  EXPECT_EQ(recent.body["Models"][0]["ModelName"], "d-model");
  EXPECT_EQ(recent.body["Models"][1]["ModelName"], "c-other");
  EXPECT_EQ(Call("ListModels", {{"NameContains", "zzz"}}).body, json({{"Models", json::array()}}));
}

TEST_F(RouterTest, ABadPageTokenIsAValidationError) {
  for (const char* token : {"garbage!", "e30=", "eyJraW5kIjoibW9kZWwifQ=="}) {
    const Reply reply = Call("ListModels", {{"NextToken", token}});
    EXPECT_EQ(reply.status, 400) << token;
    EXPECT_EQ(reply.body["__type"], "ValidationException") << token;
  }
  // A token from one sort order does not continue another.
  for (const char* name : {"a", "b"})
    ASSERT_EQ(Call("CreateModel", {{"ModelName", name}}).status, 200);
  const Reply first = Call("ListModels", {{"MaxResults", 1}});
  ASSERT_TRUE(first.body.contains("NextToken"));
  EXPECT_EQ(Call("ListModels", {{"NextToken", first.body["NextToken"]}, {"SortBy", "Name"}}).status,
            400);
}

TEST_F(RouterTest, ValidationHappensBeforeTheHandler) {
  ExpectError(Call("CreateModel", {{"ModelName", std::string(64, 'x')}}), 400,
              "ValidationException",
              "1 validation error detected: Value '" + std::string(64, 'x') +
                  "' at 'modelName' failed to satisfy constraint: Member must have length less "
                  "than or equal to 63");
  EXPECT_EQ(Call("ListModels", json::object()).body["Models"].size(), 0u);
}

TEST_F(RouterTest, UnknownAndUnservedOperations) {
  ExpectError(Call("ListNotebookInstances", json::object()), 400, "UnknownOperationException",
              "The operation SageMaker.ListNotebookInstances is not supported by "
              "sagemaker-emulator.");
  ExpectError(Call("NoSuchThing", json::object()), 400, "UnknownOperationException",
              "The operation SageMaker.NoSuchThing is not supported by sagemaker-emulator.");
  Reply no_target = Send({"POST", "/", {}, "{}"});
  EXPECT_EQ(no_target.status, 400);
  EXPECT_EQ(no_target.body["__type"], "UnknownOperationException");
  Reply other_service =
      Send({"POST", "/", {{"X-Amz-Target", "DynamoDB_20120810.ListTables"}}, "{}"});
  EXPECT_EQ(other_service.body["__type"], "UnknownOperationException");
}

TEST_F(RouterTest, MalformedBodiesAreSerializationErrors) {
  auto send_body = [&](const std::string& body) {
    return Send({"POST", "/", {{"X-Amz-Target", "SageMaker.ListModels"}}, body});
  };
  for (const std::string body : {"{", "[]", "\"text\"", "{\"MaxResults\": NaN}", "\xff\xfe"}) {
    const Reply reply = send_body(body);
    EXPECT_EQ(reply.status, 400) << body;
    EXPECT_EQ(reply.body["__type"], "SerializationException") << body;
  }
  std::string deep(10000, '[');
  const Reply too_deep = send_body("{\"a\":" + deep);
  EXPECT_EQ(too_deep.body["__type"], "SerializationException");
  EXPECT_THAT(too_deep.body["message"].get<std::string>(), HasSubstr("nested more than 64"));
  EXPECT_EQ(send_body("").status, 200);  // an empty body is {}
}

TEST_F(RouterTest, WrongMethodsAndPaths) {
  Reply get_root = Send({"GET", "/", {}, ""});
  EXPECT_EQ(get_root.status, 405);
  EXPECT_EQ(*FindHeader(get_root.raw.headers, "Allow"), "POST");
  Reply unknown = Send({"POST", "/nothing/here", {}, ""});
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body["__type"], "UnknownOperationException");
}

TEST_F(RouterTest, InvokingAMissingEndpointIsTheRuntimeValidationError) {
  Reply reply =
      Send({"POST",
            "/endpoints/my-endpoint/invocations",
            {{"Content-Type", "text/csv"}, {"Authorization", Auth("123456789012", "us-west-2")}},
            "1,2,3"});
  ExpectError(reply, 400, "ValidationError",
              "Endpoint my-endpoint of account 123456789012 not found.");
  EXPECT_EQ(*FindHeader(reply.raw.headers, "Content-Type"), "application/json");

  Reply bad_name = Send({"POST", "/endpoints/bad_name/invocations", {}, "x"});
  EXPECT_EQ(bad_name.body["__type"], "ValidationError");
  EXPECT_THAT(bad_name.body["message"].get<std::string>(),
              HasSubstr("at 'endpointName' failed to satisfy constraint"));
  EXPECT_EQ(Send({"GET", "/endpoints/e/invocations", {}, ""}).status, 405);
  Reply async = Send({"POST", "/endpoints/e/async-invocations", {}, ""});
  EXPECT_EQ(async.status, 400);
  EXPECT_EQ(async.body["__type"], "UnknownOperationException");
  EXPECT_EQ(Send({"POST", "/endpoints/e/other", {}, ""}).status, 404);
}

TEST_F(RouterTest, BodyLimitsDependOnTheProtocol) {
  EXPECT_EQ(router_.BodyLimitFor("/"), 1024u * 1024u);
  EXPECT_EQ(router_.BodyLimitFor("/endpoints/e/invocations"), 6u * 1024u * 1024u);
  const HttpResponse refused = router_.FramingError(413, "too big");
  EXPECT_EQ(refused.status, 413);
  EXPECT_TRUE(refused.close_connection);
  EXPECT_EQ(json::parse(refused.body)["__type"], "RequestEntityTooLargeException");
}

TEST_F(RouterTest, HealthAndClock) {
  const Reply health = Admin("GET", "/_emulator/health");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body["status"], "ok");
  EXPECT_TRUE(health.body["version"].is_string());

  EXPECT_EQ(Admin("GET", "/_emulator/clock").body,
            json({{"now", "2027-01-25T00:00:00Z"}, {"epoch", 1800835200.0}, {"frozen", true}}));
  EXPECT_EQ(Admin("POST", "/_emulator/clock", R"({"advance_seconds": 90.5})").body["now"],
            "2027-01-25T00:01:30.500Z");
  EXPECT_EQ(Admin("POST", "/_emulator/clock", R"({"now": "2027-02-01T00:00:00Z"})").body["now"],
            "2027-02-01T00:00:00Z");
  EXPECT_EQ(Call("CreateModel", {{"ModelName", "later"}}).status, 200);
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "later"}}).body["CreationTime"], 1801440000);

  const Reply backwards = Admin("POST", "/_emulator/clock", R"({"now": "2027-01-01T00:00:00Z"})");
  EXPECT_EQ(backwards.status, 400);
  EXPECT_THAT(backwards.body["message"].get<std::string>(), HasSubstr("cannot move backwards"));
  EXPECT_EQ(Admin("GET", "/_emulator/clock").body["now"], "2027-02-01T00:00:00Z");

  for (const char* bad : {R"({"now": "soon"})", R"({"advance_seconds": -1})",
                          R"({"frozen": "yes"})", R"({"speed": 2})", "not json"}) {
    EXPECT_EQ(Admin("POST", "/_emulator/clock", bad).status, 400) << bad;
  }
  EXPECT_EQ(Admin("DELETE", "/_emulator/clock").status, 405);
  EXPECT_EQ(Admin("GET", "/_emulator/nothing").status, 404);
}

TEST_F(RouterTest, UnfreezingLetsTheClockRunWithTheBaseClock) {
  EXPECT_EQ(Admin("POST", "/_emulator/clock", R"({"frozen": false})").body["frozen"], false);
  base_clock_.Advance(Millis{2000});
  EXPECT_EQ(Admin("GET", "/_emulator/clock").body["now"], "2027-01-25T00:00:02Z");
}

TEST_F(RouterTest, ResetDeletesEverythingAndRestoresTheClock) {
  ASSERT_EQ(Call("CreateModel", {{"ModelName", "m"}}, Auth("123456789012", "us-west-2")).status,
            200);
  ASSERT_EQ(Call("CreateModel", {{"ModelName", "m"}}).status, 200);
  ASSERT_EQ(Admin("POST", "/_emulator/clock", R"({"advance_seconds": 86400})").status, 200);
  const Reply reset = Admin("POST", "/_emulator/reset");
  EXPECT_EQ(reset.status, 200);
  EXPECT_EQ(reset.body["clock"]["now"], "2027-01-25T00:00:00Z");
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "m"}}).status, 400);
  EXPECT_EQ(Call("DescribeModel", {{"ModelName", "m"}}, Auth("123456789012", "us-west-2")).status,
            400);
  EXPECT_EQ(Admin("GET", "/_emulator/reset").status, 405);
}

}  // namespace
}  // namespace smemu::protocol
