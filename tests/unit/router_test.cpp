// The protocol layer end to end without sockets: Router -> Emulator -> StateStore (in memory).
#include "protocol/router.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>

#include "apimodel/embedded_models.hpp"
#include "apimodel/validator.hpp"
#include "ops/context.hpp"
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
        router_(emulator_, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(), Checking()) {}

  // Every answer is checked against the service model.
  static RouterConfig Checking() {
    RouterConfig config;
    config.check_responses = true;
    return config;
  }

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

// --check-responses: a handler that answers what the model forbids makes the router answer 500.
TEST_F(RouterTest, AResponseThatDepartsFromTheModelBecomesAnInternalFailure) {
  emulator_.SetHandlerForTest("DescribeModel", [](const json&, ops::Context&) {
    return domain::Result<json>(json{{"ModelName", "m"}, {"CreationTime", "2027-01-25T00:00:00Z"}});
  });
  ExpectError(Call("DescribeModel", {{"ModelName", "m"}}), 500, "InternalFailure",
              "Response check failed for DescribeModel: Value null at 'ModelArn' failed to "
              "satisfy constraint: Member must not be null; Value '2027-01-25T00:00:00Z' at "
              "'CreationTime' failed to satisfy constraint: Member must be a Timestamp in epoch "
              "seconds (a JSON number)");

  // An error code the operation does not model (DescribeModel models none).
  emulator_.SetHandlerForTest("DescribeModel", [](const json&, ops::Context&) {
    return domain::Result<json>(domain::ResourceNotFound("Model m not found."));
  });
  ExpectError(Call("DescribeModel", {{"ModelName", "m"}}), 500, "InternalFailure",
              "Response check failed for DescribeModel: Error code 'ResourceNotFound' is neither "
              "one of DescribeModel's modelled errors [] nor a common AWS error");

  // Without the flag the same answer goes out unchecked.
  Router unchecked(emulator_, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(),
                   RouterConfig{});
  const HttpResponse passed = unchecked.Handle(
      {"POST", "/", {{"X-Amz-Target", "SageMaker.DescribeModel"}}, R"({"ModelName":"m"})"});
  EXPECT_EQ(passed.status, 400);
  EXPECT_THAT(passed.body, HasSubstr("ResourceNotFound"));
}

TEST_F(RouterTest, TheAdminApiIsNotChecked) {
  const Reply health = Admin("GET", "/_emulator/health");
  EXPECT_EQ(health.status, 200) << health.raw.body;
  EXPECT_EQ(Admin("GET", "/_emulator/nothing").body.value("__type", ""), "NotFoundException");
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
  // With no resource left there is nothing whose time could run backwards: any date will do.
  EXPECT_EQ(Call("DeleteModel", {{"ModelName", "later"}}).status, 200);
  EXPECT_EQ(Admin("POST", "/_emulator/clock", R"({"now": "2026-01-01T00:00:00Z"})").body,
            json({{"now", "2026-01-01T00:00:00Z"}, {"epoch", 1767225600.0}, {"frozen", true}}));

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

// ------------------------------------------------------------------ strict authentication
// A second router over the same emulator, started with --credentials. The real clock (what
// signatures are checked against) stands at the virtual clock's start, 2027-01-25T00:00:00Z.

constexpr char kNowAmz[] = "20270125T000000Z";
constexpr char kExampleSecretKey[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";

// Signs `request` as the SDKs do: adds Host and X-Amz-Date, signs every header, and takes the
// payload hash from X-Amz-Content-SHA256 when there is one.
HttpRequest Sign(HttpRequest request, const std::string& access_key, const std::string& secret,
                 const std::string& amz_date = kNowAmz, const std::string& region = "us-east-1",
                 const std::string& service = "sagemaker") {
  const std::string* content_hash = request.Header("X-Amz-Content-SHA256");
  const std::string payload_hash = content_hash ? *content_hash : Sha256Hex(request.body);
  request.headers.emplace_back("Host", "127.0.0.1:4577");
  request.headers.emplace_back("X-Amz-Date", amz_date);
  std::vector<std::string> names;
  for (const auto& [name, value] : request.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    names.push_back(lower);
  }
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const std::string& name : names) joined += (joined.empty() ? "" : ";") + name;
  const std::string date = amz_date.substr(0, 8);
  const std::string scope = date + "/" + region + "/" + service + "/aws4_request";
  const std::string signature =
      SignatureHex(SigningKey(secret, date, region, service),
                   StringToSign(amz_date, scope, CanonicalRequest(request, names, payload_hash)));
  request.headers.emplace_back("Authorization", "AWS4-HMAC-SHA256 Credential=" + access_key + "/" +
                                                    scope + ", SignedHeaders=" + joined +
                                                    ", Signature=" + signature);
  return request;
}

HttpRequest ControlPlane(const std::string& operation, const std::string& body = "{}") {
  return {
      "POST",
      "/",
      {{"Content-Type", "application/x-amz-json-1.1"}, {"X-Amz-Target", "SageMaker." + operation}},
      body};
}

HttpRequest Invocation(const std::string& endpoint) {
  return {"POST", "/endpoints/" + endpoint + "/invocations", {{"Content-Type", "text/csv"}}, "1,2"};
}

class StrictAuthTest : public RouterTest {
 protected:
  StrictAuthTest()
      : real_clock_(kStart),
        strict_(emulator_, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(), [this] {
          RouterConfig config = Checking();
          config.verifier = std::make_shared<const SigV4Verifier>(
              CredentialTable{{"AKIDEXAMPLE", {"AKIDEXAMPLE", kExampleSecretKey, "111122223333"}},
                              {"123456789012", {"123456789012", "other-secret", "123456789012"}}},
              real_clock_);
          return config;
        }()) {}

  Reply Strict(const HttpRequest& request) {
    Reply reply;
    reply.raw = strict_.Handle(request);
    reply.status = reply.raw.status;
    reply.body = json::parse(reply.raw.body, nullptr, false);
    return reply;
  }

  // An authentication refusal carries the real time in a Date header, as AWS's do.
  static void ExpectRefusal(const Reply& reply, int status, const std::string& code,
                            const std::string& message) {
    ExpectError(reply, status, code, message);
    const std::string* date = FindHeader(reply.raw.headers, "Date");
    ASSERT_NE(date, nullptr);
    EXPECT_EQ(*date, "Mon, 25 Jan 2027 00:00:00 GMT");
  }

  ManualClock real_clock_;
  Router strict_;
};

TEST_F(StrictAuthTest, ASignedRequestActsInTheAccountOfItsKey) {
  const Reply created = Strict(Sign(ControlPlane("CreateModel", R"({"ModelName": "m"})"),
                                    "AKIDEXAMPLE", kExampleSecretKey, kNowAmz, "eu-west-1"));
  ASSERT_EQ(created.status, 200) << created.raw.body;
  EXPECT_EQ(created.body["ModelArn"], "arn:aws:sagemaker:eu-west-1:111122223333:model/m");
  EXPECT_EQ(FindHeader(created.raw.headers, "Date"), nullptr);
  const Reply listed = Strict(
      Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey, kNowAmz, "eu-west-1"));
  ASSERT_EQ(listed.status, 200);
  EXPECT_EQ(listed.body["Models"].size(), 1u);
  // The runtime: authenticated, then the operation answers for the key's account.
  ExpectError(Strict(Sign(Invocation("nope"), "123456789012", "other-secret")), 400,
              "ValidationError", "Endpoint nope of account 123456789012 not found.");
}

TEST_F(StrictAuthTest, WithoutAnAuthorizationHeader) {
  ExpectRefusal(Strict(ControlPlane("ListModels")), 400, "MissingAuthenticationTokenException",
                "Missing Authentication Token");
  ExpectRefusal(Strict(Invocation("e")), 403, "MissingAuthenticationTokenException",
                "Missing Authentication Token");
  // The router without --credentials still accepts anything.
  EXPECT_EQ(Send(ControlPlane("ListModels")).status, 200);
}

TEST_F(StrictAuthTest, AnUnknownAccessKey) {
  ExpectRefusal(Strict(Sign(ControlPlane("ListModels"), "AKIDUNKNOWN", kExampleSecretKey)), 400,
                "UnrecognizedClientException",
                "The security token included in the request is invalid.");
  ExpectRefusal(Strict(Sign(Invocation("e"), "AKIDUNKNOWN", kExampleSecretKey)), 403,
                "UnrecognizedClientException",
                "The security token included in the request is invalid.");
}

TEST_F(StrictAuthTest, AWrongSecretShowsWhatShouldHaveBeenSigned) {
  const std::string expected =
      "The request signature we calculated does not match the signature you provided. Check "
      "your AWS Secret Access Key and signing method. Consult the service documentation for "
      "details.\n\n"
      "The Canonical String for this request should have been\n"
      "'POST\n/\n\n"
      "content-type:application/x-amz-json-1.1\nhost:127.0.0.1:4577\n"
      "x-amz-date:20270125T000000Z\nx-amz-target:SageMaker.ListModels\n\n"
      "content-type;host;x-amz-date;x-amz-target\n"
      "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a'\n\n"
      "The String-to-Sign should have been\n"
      "'AWS4-HMAC-SHA256\n20270125T000000Z\n20270125/us-east-1/sagemaker/aws4_request\n"
      "a1492c839864345fb72be18ac452d908344130852e40ae10d2aef76afa643dd2'\n";
  ExpectRefusal(Strict(Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", "wrong")), 400,
                "InvalidSignatureException", expected);
  const Reply runtime = Strict(Sign(Invocation("e"), "AKIDEXAMPLE", "wrong"));
  EXPECT_EQ(runtime.status, 403);
  EXPECT_EQ(runtime.body["__type"], "InvalidSignatureException");
  EXPECT_THAT(runtime.body["message"].get<std::string>(),
              HasSubstr("'POST\n/endpoints/e/invocations\n\ncontent-type:text/csv\n"));
}

TEST_F(StrictAuthTest, ChangesAfterSigningBreakTheSignature) {
  HttpRequest tampered =
      Sign(ControlPlane("CreateModel", R"({"ModelName": "a"})"), "AKIDEXAMPLE", kExampleSecretKey);
  tampered.body = R"({"ModelName": "b"})";
  EXPECT_EQ(Strict(tampered).body["__type"], "InvalidSignatureException");
  HttpRequest retargeted = Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey);
  retargeted.headers[1].second = "SageMaker.ListEndpoints";
  EXPECT_EQ(Strict(retargeted).body["__type"], "InvalidSignatureException");
  // An unsigned header may change; an X-Amz-Content-SHA256 that lies about the body may not.
  HttpRequest extra = Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey);
  extra.headers.emplace_back("User-Agent", "added later");
  EXPECT_EQ(Strict(extra).status, 200);
  HttpRequest hashed = ControlPlane("CreateModel", R"({"ModelName": "c"})");
  hashed.headers.emplace_back("X-Amz-Content-SHA256", Sha256Hex("{}"));
  EXPECT_EQ(Strict(Sign(hashed, "AKIDEXAMPLE", kExampleSecretKey)).body["__type"],
            "InvalidSignatureException");
  HttpRequest honest = ControlPlane("CreateModel", R"({"ModelName": "c"})");
  honest.headers.emplace_back("X-Amz-Content-SHA256", Sha256Hex(honest.body));
  EXPECT_EQ(Strict(Sign(honest, "AKIDEXAMPLE", kExampleSecretKey)).status, 200);
}

TEST_F(StrictAuthTest, TheRequestTimeMustBeWithinFifteenMinutesOfTheRealClock) {
  ExpectRefusal(Strict(Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey,
                            "20270124T234000Z")),
                400, "InvalidSignatureException",
                "Signature expired: 20270124T234000Z is now earlier than 20270124T234500Z "
                "(20270125T000000Z - 15 min.)");
  ExpectRefusal(Strict(Sign(Invocation("e"), "AKIDEXAMPLE", kExampleSecretKey, "20270125T002000Z")),
                403, "InvalidSignatureException",
                "Signature not yet current: 20270125T002000Z is still later than "
                "20270125T001500Z (20270125T000000Z + 15 min.)");
  EXPECT_EQ(
      Strict(Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey, "20270124T234500Z"))
          .status,
      200);
  // The virtual clock does not matter: a day later in virtual time, signatures still work.
  ASSERT_EQ(Admin("POST", "/_emulator/clock", R"({"advance_seconds": 86400})").status, 200);
  EXPECT_EQ(Strict(Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey)).status, 200);
}

TEST_F(StrictAuthTest, MalformedAuthorizationHeaders) {
  auto with_authorization = [](HttpRequest request, const std::string& authorization,
                               bool dated = true) {
    if (dated) request.headers.emplace_back("X-Amz-Date", kNowAmz);
    request.headers.emplace_back("Host", "127.0.0.1:4577");
    request.headers.emplace_back("Authorization", authorization);
    return request;
  };
  ExpectRefusal(Strict(with_authorization(ControlPlane("ListModels"), "Bearer abc", false)), 400,
                "IncompleteSignatureException",
                "'abc' not a valid key=value pair (missing equal-sign) in Authorization header: "
                "'Bearer abc'.");
  ExpectRefusal(
      Strict(with_authorization(ControlPlane("ListModels"), "AWS4-HMAC-SHA256 SignedHeaders=host",
                                false)),
      400, "IncompleteSignatureException",
      "Authorization header requires 'Credential' parameter. Authorization header requires "
      "'Signature' parameter. Authorization header requires existence of either a 'X-Amz-Date' "
      "or a 'Date' header. Authorization=AWS4-HMAC-SHA256 SignedHeaders=host");
  const std::string credential = "Credential=AKIDEXAMPLE/20270125/us-east-1/sagemaker/aws4_request";
  HttpRequest bad_date = with_authorization(
      ControlPlane("ListModels"),
      "AWS4-HMAC-SHA256 " + credential + ", SignedHeaders=host, Signature=0", false);
  bad_date.headers.emplace_back("X-Amz-Date", "2027-01-25T00:00:00Z");
  ExpectRefusal(Strict(bad_date), 400, "IncompleteSignatureException",
                "Date must be in ISO-8601 'basic format'. Got '2027-01-25T00:00:00Z'. See "
                "http://en.wikipedia.org/wiki/ISO_8601");
  ExpectRefusal(Strict(with_authorization(
                    ControlPlane("ListModels"),
                    "AWS4-HMAC-SHA256 " + credential + ", SignedHeaders=x-amz-date, Signature=0")),
                400, "InvalidSignatureException",
                "'Host' must be a 'SignedHeader' in the AWS Authorization.");
  ExpectRefusal(Strict(with_authorization(
                    ControlPlane("ListModels"),
                    "AWS4-HMAC-SHA512 " + credential + ", SignedHeaders=host, Signature=0")),
                400, "IncompleteSignatureException",
                "Unsupported AWS 'algorithm': 'AWS4-HMAC-SHA512' (only AWS4-HMAC-SHA256 for "
                "now). ");
  ExpectRefusal(
      Strict(with_authorization(ControlPlane("ListModels"),
                                "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20270125/us-east-1, "
                                "SignedHeaders=host, Signature=0")),
      400, "IncompleteSignatureException",
      "Credential must have exactly 5 slash-delimited elements, e.g. "
      "keyid/date/region/service/term, got 'AKIDEXAMPLE/20270125/us-east-1'");
}

TEST_F(StrictAuthTest, TheCredentialScopeMustMatch) {
  ExpectRefusal(Strict(Sign(ControlPlane("ListModels"), "AKIDEXAMPLE", kExampleSecretKey, kNowAmz,
                            "us-east-1", "runtime.sagemaker")),
                400, "InvalidSignatureException",
                "Credential should be scoped to correct service: 'sagemaker'. ");
  HttpRequest wrong_day = ControlPlane("ListModels");
  wrong_day.headers.emplace_back("Host", "127.0.0.1:4577");
  wrong_day.headers.emplace_back("X-Amz-Date", kNowAmz);
  wrong_day.headers.emplace_back(
      "Authorization",
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20270124/Bad_Region/sagemaker/aws5_request, "
      "SignedHeaders=host;x-amz-date, Signature=0");
  ExpectRefusal(Strict(wrong_day), 400, "InvalidSignatureException",
                "Credential should be scoped to a valid region, not 'Bad_Region'. Credential "
                "should be scoped with a valid terminator: 'aws4_request', not 'aws5_request'. "
                "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date "
                "from HTTP: '20270124' != '20270125', from '20270125T000000Z'. ");
}

TEST_F(StrictAuthTest, TheAdminApiIsNotSigned) {
  const Reply clock = Strict({"GET", "/_emulator/clock", {}, ""});
  EXPECT_EQ(clock.status, 200);
  EXPECT_EQ(clock.body["now"], "2027-01-25T00:00:00Z");
}

}  // namespace
}  // namespace smemu::protocol
