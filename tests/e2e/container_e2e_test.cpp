// Real model containers behind endpoints (SAGEMAKER_EMULATOR_UPSTREAM): the health check when an
// endpoint is provisioned, invocations forwarded over HTTP, and every way a container can fail.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <future>
#include <nlohmann/json.hpp>

#include "e2e/fake_container.hpp"
#include "e2e/http_client.hpp"
#include "e2e/test_server.hpp"
#include "smemu/server.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using testing::ContainerAnswer;
using testing::FakeContainer;
using ::testing::HasSubstr;
using testing::HttpClient;
using testing::HttpReply;
namespace bhttp = http::bhttp;

class ContainerE2E : public ::testing::Test {
 protected:
  ServerOptions Options() {
    ServerOptions options = testing::TestServerOptions();
    options.container_timeout = std::chrono::milliseconds(500);
    options.ping_timeout = std::chrono::milliseconds(500);
    return options;
  }

  void Start(const ServerOptions& options) {
    server_ = std::make_unique<Server>(options);
    port_ = server_->Start();
    client_ = std::make_unique<HttpClient>(port_);
  }

  json Aws(const std::string& operation, const json& input, int expected = 200) {
    const HttpReply reply = client_->Aws(operation, input.dump());
    EXPECT_EQ(reply.status, expected) << operation << ": " << reply.body;
    return json::parse(reply.body);
  }

  // A model on the container at `url`, a one-instance on-demand config, and the endpoint.
  json Deploy(const std::string& name, const std::string& url) {
    Aws("CreateModel", {{"ModelName", name},
                        {"ExecutionRoleArn", "arn:aws:iam::000000000000:role/r"},
                        {"PrimaryContainer",
                         {{"Image", "example/model:1"},
                          {"Environment", {{"SAGEMAKER_EMULATOR_UPSTREAM", url}}}}}});
    Aws("CreateEndpointConfig", {{"EndpointConfigName", name},
                                 {"ProductionVariants",
                                  {{{"VariantName", "AllTraffic"},
                                    {"ModelName", name},
                                    {"InstanceType", "ml.m5.large"},
                                    {"InitialInstanceCount", 1}}}}});
    Aws("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
    return Aws("DescribeEndpoint", {{"EndpointName", name}});
  }

  HttpReply Invoke(const std::string& endpoint, const std::string& body) {
    return client_->Send("POST", "/endpoints/" + endpoint + "/invocations", body,
                         {{"Content-Type", "text/csv"},
                          {"Accept", "application/json"},
                          {"X-Amzn-SageMaker-Custom-Attributes", "trace=1"}});
  }

  std::unique_ptr<Server> server_;
  unsigned short port_ = 0;
  std::unique_ptr<HttpClient> client_;
};

TEST_F(ContainerE2E, InvocationsAreForwardedToTheContainerAndItsAnswerComesBack) {
  FakeContainer container([](const auto& request) {
    return ContainerAnswer{
        200,
        "{\"scores\":\"" + request.body() + "\"}",
        {{"Content-Type", "application/json"}, {"X-Amzn-SageMaker-Custom-Attributes", "model=v1"}}};
  });
  Start(Options());
  EXPECT_EQ(Deploy("real", container.Url())["EndpointStatus"], "InService");
  EXPECT_EQ(container.pings(), 1);  // the health check ran when the endpoint was provisioned

  const HttpReply reply = Invoke("real", "1,2,3");
  ASSERT_EQ(reply.status, 200) << reply.body;
  EXPECT_EQ(reply.body, R"({"scores":"1,2,3"})");
  EXPECT_EQ(reply.headers["Content-Type"], "application/json");
  EXPECT_EQ(reply.headers["x-Amzn-Invoked-Production-Variant"], "AllTraffic");
  EXPECT_EQ(reply.headers["X-Amzn-SageMaker-Custom-Attributes"], "model=v1");

  const auto sent = container.Invocations();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0].method(), bhttp::verb::post);
  EXPECT_EQ(sent[0].target(), "/invocations");
  EXPECT_EQ(sent[0].body(), "1,2,3");
  EXPECT_EQ(sent[0][bhttp::field::content_type], "text/csv");
  EXPECT_EQ(sent[0][bhttp::field::accept], "application/json");
  EXPECT_EQ(sent[0]["X-Amzn-SageMaker-Custom-Attributes"], "trace=1");
}

// The runtime model bounds the headers a container's answer is passed on with: Content-Type and
// X-Amzn-SageMaker-Custom-Attributes, "no more than 1024 visible US-ASCII characters" (the API
// reference's words for CustomAttributes, "an opaque value that is forwarded verbatim"). At the
// bound the answer passes whole; past it, the value cannot be forwarded verbatim, and a cut value
// would pass for the container's own: the invocation is the model's failure, a ModelError (424)
// naming the header and its bound.
TEST_F(ContainerE2E, HeadersPastTheModelsBoundsAreTheContainersFailure) {
  FakeContainer container([](const auto& request) {
    const std::size_t attributes = request.body() == "long attributes" ? 1025 : 1024;
    const std::string type =
        request.body() == "long type" ? std::string(1025, 't') : std::string("text/plain");
    return ContainerAnswer{200,
                           "ok",
                           {{"Content-Type", type},
                            {"X-Amzn-SageMaker-Custom-Attributes", std::string(attributes, 'a')}}};
  });
  Start(Options());
  Deploy("strict", container.Url());

  const HttpReply whole = Invoke("strict", "at the bound");
  ASSERT_EQ(whole.status, 200) << whole.body;
  EXPECT_EQ(whole.headers["X-Amzn-SageMaker-Custom-Attributes"], std::string(1024, 'a'));

  for (const auto& [body, member] :
       {std::pair{"long attributes", "CustomAttributes"}, std::pair{"long type", "ContentType"}}) {
    const HttpReply refused = Invoke("strict", body);
    EXPECT_EQ(refused.status, 424) << refused.body;
    const json error = json::parse(refused.body);
    EXPECT_EQ(error["__type"], "ModelError");
    EXPECT_EQ(error["OriginalStatusCode"], 200);
    EXPECT_EQ(error["OriginalMessage"], "ok");
    const std::string message = error["message"];
    EXPECT_THAT(message, ::testing::StartsWith("Received an answer from primary with headers an "
                                               "InvokeEndpoint response cannot carry: Value '"));
    EXPECT_THAT(message, HasSubstr("' at '" + std::string(member) +
                                   "' failed to satisfy constraint: Member must have length less "
                                   "than or equal to 1024"));
    EXPECT_LE(message.size(), 2048u);
  }
}

TEST_F(ContainerE2E, ContainerErrorsAreModelErrorsWithTheContainersStatusAndMessage) {
  FakeContainer container([](const auto& request) {
    return request.body() == "bad" ? ContainerAnswer{400, "Unable to evaluate payload provided", {}}
                                   : ContainerAnswer{500, "boom", {}};
  });
  Start(Options());
  Deploy("flaky", container.Url());

  const HttpReply server_error = Invoke("flaky", "x");
  EXPECT_EQ(server_error.status, 424);
  EXPECT_EQ(server_error.headers["X-Amzn-ErrorType"], "ModelError");
  const json body = json::parse(server_error.body);
  EXPECT_EQ(body["__type"], "ModelError");
  EXPECT_EQ(body["message"],
            "Received server error (500) from primary with message \"boom\". See "
            "https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1"
            "#logEventViewer:group=/aws/sagemaker/Endpoints/flaky in account 000000000000 for "
            "more information.");
  EXPECT_EQ(body["OriginalStatusCode"], 500);
  EXPECT_EQ(body["OriginalMessage"], "boom");
  EXPECT_EQ(body["LogStreamArn"],
            "arn:aws:logs:us-east-1:000000000000:log-group:/aws/sagemaker/Endpoints/flaky");

  const HttpReply client_error = Invoke("flaky", "bad");
  EXPECT_EQ(client_error.status, 424);
  EXPECT_THAT(json::parse(client_error.body)["message"].get<std::string>(),
              HasSubstr("Received client error (400) from primary with message \"Unable to "
                        "evaluate payload provided\"."));
}

// The model's Message shape holds 2048 characters: a long error body is cut to fit (found by
// --check-responses, which answered 500 for it).
TEST_F(ContainerE2E, ALongContainerErrorIsCutToTheModelsMessageLength) {
  const std::string long_body(5000, 'e');
  FakeContainer container([&long_body](const auto&) {
    return ContainerAnswer{500, long_body, {}};
  });
  Start(Options());
  Deploy("chatty", container.Url());
  const HttpReply reply = Invoke("chatty", "x");
  ASSERT_EQ(reply.status, 424) << reply.body;
  const json body = json::parse(reply.body);
  EXPECT_EQ(body["OriginalMessage"], std::string(2045, 'e') + "...");
  const std::string message = body["message"];
  EXPECT_EQ(message.size(), 2048u);
  EXPECT_THAT(message, HasSubstr("eee...\". See https://"));
}

TEST_F(ContainerE2E, ASlowContainerTimesOutWithoutHoldingUpOtherRequests) {
  FakeContainer container([](const auto&) {
    return ContainerAnswer{200, "late", {}, std::chrono::milliseconds(1500)};
  });
  Start(Options());
  Deploy("slow", container.Url());

  const auto started = std::chrono::steady_clock::now();
  auto pending = std::async(std::launch::async, [this] {
    HttpClient other(port_);
    return other.Send("POST", "/endpoints/slow/invocations", "x");
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // While the invocation waits for its container, the control plane answers.
  EXPECT_EQ(client_->Aws("ListEndpoints", "{}").status, 200);
  EXPECT_EQ(pending.wait_for(std::chrono::seconds(0)), std::future_status::timeout);

  const HttpReply timed_out = pending.get();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1400));
  EXPECT_EQ(timed_out.status, 424);
  const json body = json::parse(timed_out.body);
  const std::string inner =
      "Your invocation timed out while waiting for a response from container primary. Review the "
      "latency metrics for each container in Amazon CloudWatch, resolve the issue, and try again.";
  EXPECT_EQ(body["message"],
            "Received server error (0) from primary with message \"" + inner +
                "\". See https://us-east-1.console.aws.amazon.com/cloudwatch/home?region=us-east-1"
                "#logEventViewer:group=/aws/sagemaker/Endpoints/slow in account 000000000000 for "
                "more information.");
  EXPECT_EQ(body["OriginalStatusCode"], 0);
  EXPECT_EQ(body["OriginalMessage"], inner);
}

TEST_F(ContainerE2E, StoppingTheServerLetsAnInFlightInvocationFinish) {
  FakeContainer container([](const auto&) {
    return ContainerAnswer{200, "finished", {}, std::chrono::milliseconds(400)};
  });
  ServerOptions options = Options();
  options.container_timeout = std::chrono::milliseconds(5000);
  Start(options);
  Deploy("busy", container.Url());
  auto pending = std::async(std::launch::async, [this] {
    HttpClient other(port_);
    return other.Send("POST", "/endpoints/busy/invocations", "x");
  });
  while (container.Invocations().empty()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  client_.reset();  // an idle keep-alive connection is closed at once
  server_->Stop();  // SIGTERM does this: stop accepting, let busy connections finish
  const HttpReply reply = pending.get();
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.body, "finished");
}

// The ping runs outside the request lock. A container that accepts the connection and says nothing
// holds up the request that provisions it (CreateEndpoint answers once the ping has), and no other:
// meanwhile the endpoint is Creating and every other request is answered.
TEST_F(ContainerE2E, ASilentContainerHoldsUpOnlyTheRequestThatPingsIt) {
  FakeContainer silent([](const auto&) { return ContainerAnswer{200, "ok", {}, {}}; });
  silent.HoldPings();
  Start(Options());
  Aws("CreateModel", {{"ModelName", "silent"},
                      {"ExecutionRoleArn", "arn:aws:iam::000000000000:role/r"},
                      {"PrimaryContainer",
                       {{"Image", "example/model:1"},
                        {"Environment", {{"SAGEMAKER_EMULATOR_UPSTREAM", silent.Url()}}}}}});
  Aws("CreateEndpointConfig", {{"EndpointConfigName", "silent"},
                               {"ProductionVariants",
                                {{{"VariantName", "AllTraffic"},
                                  {"ModelName", "silent"},
                                  {"InstanceType", "ml.m5.large"},
                                  {"InitialInstanceCount", 1}}}}});
  auto created = std::async(std::launch::async, [this] {
    HttpClient other(port_);
    return other.Aws("CreateEndpoint",
                     R"({"EndpointName": "silent", "EndpointConfigName": "silent"})");
  });
  while (silent.pings() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  // The ping is in the container's hands, and the request that asked for it waits for it.
  EXPECT_EQ(Aws("DescribeEndpoint", {{"EndpointName", "silent"}})["EndpointStatus"], "Creating");
  EXPECT_EQ(client_->Aws("ListEndpoints", "{}").status, 200);
  EXPECT_EQ(client_->Aws("ListModels", "{}").status, 200);
  EXPECT_EQ(created.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  silent.ReleasePings();
  EXPECT_EQ(created.get().status, 200);
  EXPECT_EQ(Aws("DescribeEndpoint", {{"EndpointName", "silent"}})["EndpointStatus"], "InService");
  EXPECT_EQ(silent.pings(), 1);
}

TEST_F(ContainerE2E, AContainerThatFailsItsPingFailsTheEndpoint) {
  FakeContainer unhealthy([](const auto&) { return ContainerAnswer{}; }, /*ping_status=*/503);
  Start(Options());
  const json endpoint = Deploy("sick", unhealthy.Url());
  EXPECT_EQ(endpoint["EndpointStatus"], "Failed");
  EXPECT_EQ(endpoint["FailureReason"],
            "The primary container for production variant AllTraffic did not pass the ping "
            "health check. Please check CloudWatch logs for this endpoint.");
  EXPECT_EQ(unhealthy.pings(), 1);
  EXPECT_EQ(Invoke("sick", "x").status, 400);  // a Failed endpoint is not in service
}

TEST_F(ContainerE2E, AContainerThatGoesAwayGivesAModelErrorNamingIt) {
  Start(Options());
  std::string url;
  {
    FakeContainer container([](const auto&) { return ContainerAnswer{200, "ok", {}}; });
    url = container.Url();
    EXPECT_EQ(Deploy("gone", url)["EndpointStatus"], "InService");
    EXPECT_EQ(Invoke("gone", "x").status, 200);
  }  // the container stops
  const HttpReply reply = Invoke("gone", "x");
  EXPECT_EQ(reply.status, 424);
  EXPECT_THAT(json::parse(reply.body)["message"].get<std::string>(),
              HasSubstr("The model container for production variant AllTraffic at " + url +
                        " did not answer (cannot connect: Connection refused)."));
}

TEST_F(ContainerE2E, NothingListeningFailsTheHealthCheck) {
  Start(Options());
  const json endpoint = Deploy("nobody", "http://127.0.0.1:1");
  EXPECT_EQ(endpoint["EndpointStatus"], "Failed");
  EXPECT_THAT(endpoint["FailureReason"].get<std::string>(), HasSubstr("ping health check"));
}

}  // namespace
}  // namespace smemu
