// The real Server on a real socket: framing limits, keep-alive, pipelining, concurrency, restarts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "e2e/http_client.hpp"
#include "e2e/test_server.hpp"
#include "ops/context.hpp"
#include "ops/emulator.hpp"
#include "smemu/server.hpp"
#include "test_support.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::HttpClient;
using testing::RawExchange;
using ::testing::StartsWith;

ServerOptions TestOptions(const std::string& db = ":memory:") {
  ServerOptions options = testing::TestServerOptions();
  options.db_path = db;
  options.read_timeout = std::chrono::milliseconds(300);
  return options;
}

TEST(ServerE2E, ServesModelsOverOneKeepAliveConnection) {
  Server server(TestOptions());
  const unsigned short port = server.Start();
  ASSERT_NE(port, 0);
  HttpClient client(port);
  EXPECT_EQ(client.Send("GET", "/_emulator/health", "").status, 200);
  auto created = client.Aws("CreateModel", R"({"ModelName":"e2e-model"})");
  EXPECT_EQ(created.status, 200) << created.body;
  auto described = client.Aws("DescribeModel", R"({"ModelName":"e2e-model"})");
  ASSERT_EQ(described.status, 200);
  EXPECT_EQ(json::parse(described.body)["CreationTime"], 1800835200);
  EXPECT_EQ(described.headers["Content-Type"], "application/x-amz-json-1.1");
  EXPECT_FALSE(described.headers["x-amzn-RequestId"].empty());
}

// --check-responses (on in every test server): an answer that departs from the model is a 500
// InternalFailure that names the operation and each violation.
TEST(ServerE2E, CheckResponsesAnswers500NamingTheViolation) {
  Server server(TestOptions());
  const unsigned short port = server.Start();
  server.EmulatorForTest().SetHandlerForTest("DescribeTrainingJob", [](const json&, ops::Context&) {
    return domain::Result<json>(
        json{{"TrainingJobName", "j"},
             {"TrainingJobArn", "arn:aws:sagemaker:us-east-1:000000000000:training-job/j"},
             {"ModelArtifacts", {{"S3ModelArtifacts", "s3://bucket/j/output/model.tar.gz"}}},
             {"TrainingJobStatus", "InProgress"},
             {"SecondaryStatus", "Training"},
             {"StoppingCondition", {{"MaxRuntimeInSeconds", 86400}}},
             {"CreationTime", 1800835200},
             {"BillableTimeInSeconds", 0}});
  });
  HttpClient client(port);
  const auto answered = client.Aws("DescribeTrainingJob", R"({"TrainingJobName":"j"})");
  EXPECT_EQ(answered.status, 500);
  const json body = json::parse(answered.body);
  EXPECT_EQ(body["__type"], "InternalFailure");
  EXPECT_EQ(body["message"],
            "Response check failed for DescribeTrainingJob: Value 0 at 'BillableTimeInSeconds' "
            "failed to satisfy constraint: Member must have value greater than or equal to 1");
  EXPECT_EQ(answered.headers["X-Amzn-ErrorType"], "InternalFailure");
  // Conforming answers pass, and the admin API is not checked.
  EXPECT_EQ(client.Aws("ListModels", "{}").status, 200);
  EXPECT_EQ(client.Send("GET", "/_emulator/health", "").status, 200);
}

TEST(ServerE2E, OversizedBodyIs413AndTheServerKeepsServing) {
  ServerOptions options = TestOptions();
  options.max_body_bytes = 1000;
  Server server(options);
  const unsigned short port = server.Start();
  const std::string big(2000, ' ');
  const std::string reply = RawExchange(
      port,
      {"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: SageMaker.ListModels\r\nContent-Length: " +
       std::to_string(big.size()) + "\r\n\r\n" + big});
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 413"));
  EXPECT_THAT(reply, HasSubstr("RequestEntityTooLargeException"));
  // Chunked bodies have no Content-Length: the limit applies while reading.
  const std::string chunked =
      RawExchange(port, {"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n7d0\r\n" +
                         big + "\r\n0\r\n\r\n"});
  EXPECT_THAT(chunked, StartsWith("HTTP/1.1 413"));
  HttpClient client(port);
  EXPECT_EQ(client.Aws("ListModels", "{}").status, 200);
}

TEST(ServerE2E, InvocationsMayCarryLargerBodiesThanTheControlPlane) {
  ServerOptions options = TestOptions();
  options.max_body_bytes = 1000;
  Server server(options);
  HttpClient client(server.Start());
  const auto reply = client.Send("POST", "/endpoints/e/invocations", std::string(5000, 'x'),
                                 {{"Content-Type", "application/octet-stream"}});
  EXPECT_EQ(reply.status, 400);  // the endpoint is missing, but the body was accepted
  EXPECT_THAT(reply.body, HasSubstr("ValidationError"));
}

// The default limits, as the models set them: a control-plane request body of up to 1 MiB, and an
// InvokeEndpoint body of up to 6 MiB (the runtime model's BodyBlob: "max": 6291456). Each holds
// at limit - 1, limit and limit + 1 bytes whatever the framing: a Content-Length (what every SDK
// and the CLI send), chunked, and Content-Length with Expect: 100-continue.
class BodyLimits : public ::testing::Test {
 protected:
  static constexpr std::size_t kControlPlane = 1024 * 1024;
  static constexpr std::size_t kRuntime = 6291456;

  enum class Framing { kContentLength, kChunked, kExpectContinue };

  // A 6 MiB body, and the 6 MiB answer to it, must each move within the read timeout: the
  // suite's 300 ms was too short for a ThreadSanitizer build, which then closed the connection
  // after the answer's headers.
  static ServerOptions Options() {
    ServerOptions options = TestOptions();
    options.read_timeout = std::chrono::seconds(30);
    return options;
  }

  BodyLimits() : server_(Options()), port_(server_.Start()) {
    HttpClient client(port_);
    EXPECT_EQ(client.Aws("CreateModel", R"({"ModelName":"echo"})").status, 200);
    EXPECT_EQ(client
                  .Aws("CreateEndpointConfig",
                       R"({"EndpointConfigName":"echo","ProductionVariants":[{"VariantName":"v",
                          "ModelName":"echo","InstanceType":"ml.m5.large",
                          "InitialInstanceCount":1}]})")
                  .status,
              200);
    EXPECT_EQ(client.Aws("CreateEndpoint", R"({"EndpointName":"echo","EndpointConfigName":"echo"})")
                  .status,
              200);
  }

  // How long an answer of several MiB may pause before it counts as ended: a sanitized server on
  // a machine busy compiling paused for more than RawExchange's default 5 s.
  static constexpr std::chrono::seconds kQuietLimit{30};

  // The raw answer to `body` sent to `target` with `framing`; the server closes after answering.
  std::string Send(const std::string& target, const std::string& extra_headers,
                   const std::string& body, Framing framing) {
    std::string head =
        "POST " + target + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + extra_headers;
    if (framing == Framing::kChunked) {
      std::ostringstream size;
      size << std::hex << body.size();
      return RawExchange(port_,
                         {head + "Transfer-Encoding: chunked\r\n\r\n" + size.str() + "\r\n" + body +
                          "\r\n0\r\n\r\n"},
                         std::chrono::milliseconds(0), kQuietLimit);
    }
    head += "Content-Length: " + std::to_string(body.size()) + "\r\n";
    if (framing == Framing::kExpectContinue) {
      // A client waits for 100 Continue before the body; the pause lets the answer come first.
      return RawExchange(port_, {head + "Expect: 100-continue\r\n\r\n", body},
                         std::chrono::milliseconds(100), kQuietLimit);
    }
    return RawExchange(port_, {head + "\r\n" + body}, std::chrono::milliseconds(0), kQuietLimit);
  }

  static std::string Named(Framing framing) {
    return framing == Framing::kContentLength ? "Content-Length"
           : framing == Framing::kChunked     ? "chunked"
                                              : "Expect: 100-continue";
  }

  // The final answer in `reply`: after the interim 100 Continue, which must come first when the
  // client asked for it.
  static std::string AfterContinue(const std::string& reply, Framing framing) {
    if (framing != Framing::kExpectContinue) return reply;
    const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
    EXPECT_EQ(reply.substr(0, interim.size()), interim);
    return reply.substr(std::min(reply.size(), interim.size()));
  }

  // The refusal names the limit that applied (and, with a Content-Length, the body's size).
  static void ExpectRefused(const std::string& reply, std::size_t size, std::size_t limit,
                            Framing framing) {
    const std::string why = Named(framing) + ", " + std::to_string(size) + " bytes";
    EXPECT_THAT(reply, StartsWith("HTTP/1.1 413")) << why << ": " << reply.substr(0, 300);
    EXPECT_THAT(reply, HasSubstr("RequestEntityTooLargeException")) << why;
    const std::string limit_text = "exceeds the limit of " + std::to_string(limit) + " bytes.";
    EXPECT_THAT(reply, HasSubstr(framing == Framing::kChunked
                                     ? "The request body " + limit_text
                                     : "The request body of " + std::to_string(size) + " bytes " +
                                           limit_text))
        << why;
    EXPECT_THAT(reply, ::testing::Not(HasSubstr("100 Continue"))) << why;
  }

  Server server_;
  unsigned short port_;
};

TEST_F(BodyLimits, TheControlPlaneTakesUpTo1MiBWithEveryFraming) {
  for (const Framing framing :
       {Framing::kContentLength, Framing::kChunked, Framing::kExpectContinue}) {
    for (const std::size_t size : {kControlPlane - 1, kControlPlane, kControlPlane + 1}) {
      // A valid ListModels request padded with spaces to `size` bytes.
      const std::string body = "{}" + std::string(size - 2, ' ');
      const std::string reply = Send("/", "X-Amz-Target: SageMaker.ListModels\r\n", body, framing);
      if (size > kControlPlane) {
        ExpectRefused(reply, size, kControlPlane, framing);
        continue;
      }
      const std::string answer = AfterContinue(reply, framing);
      EXPECT_THAT(answer, StartsWith("HTTP/1.1 200")) << Named(framing) << ", " << size;
      EXPECT_THAT(answer, HasSubstr("\"ModelName\":\"echo\"")) << Named(framing) << ", " << size;
    }
  }
}

TEST_F(BodyLimits, InvokeEndpointTakesUpTo6MiBWithEveryFraming) {
  for (const Framing framing :
       {Framing::kContentLength, Framing::kChunked, Framing::kExpectContinue}) {
    for (const std::size_t size : {kRuntime - 1, kRuntime, kRuntime + 1}) {
      const std::string body(size, 'x');
      const std::string reply = Send("/endpoints/echo/invocations",
                                     "Content-Type: application/octet-stream\r\n", body, framing);
      if (size > kRuntime) {
        ExpectRefused(reply, size, kRuntime, framing);
        continue;
      }
      const std::string answer = AfterContinue(reply, framing);
      EXPECT_EQ(answer.substr(0, 12), "HTTP/1.1 200") << Named(framing) << ", " << size;
      // The echo model answers with the body it was sent, whole.
      EXPECT_TRUE(answer.size() > body.size() &&
                  answer.compare(answer.size() - body.size(), body.size(), body) == 0 &&
                  answer.find("Content-Length: " + std::to_string(size) + "\r\n") !=
                      std::string::npos)
          << Named(framing) << ", " << size << ": " << answer.substr(0, 300);
    }
  }
}

TEST(ServerE2E, OversizedHeadersAre431) {
  Server server(TestOptions());
  const unsigned short port = server.Start();
  const std::string reply = RawExchange(
      port, {"GET /_emulator/health HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(20000, 'a') +
             "\r\n\r\n"});
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 431"));
}

TEST(ServerE2E, ASlowClientGets408) {
  Server server(TestOptions());
  const unsigned short port = server.Start();
  const std::string reply = RawExchange(port, {"POST / HTTP/1.1\r\nHost: x\r\n"},
                                        std::chrono::milliseconds(0), std::chrono::seconds(3));
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 408"));
  const std::string slow_body =
      RawExchange(port, {"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{}"},
                  std::chrono::milliseconds(0), std::chrono::seconds(3));
  EXPECT_THAT(slow_body, StartsWith("HTTP/1.1 408"));
}

TEST(ServerE2E, GarbageIs400) {
  Server server(TestOptions());
  const std::string reply = RawExchange(server.Start(), {"THIS IS NOT HTTP\r\n\r\n"});
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 400"));
}

TEST(ServerE2E, PipelinedRequestsAreAnsweredInOrder) {
  Server server(TestOptions());
  const unsigned short port = server.Start();
  std::string requests;
  for (const char* name : {"p1", "p2", "p3"}) {
    const std::string body = std::string(R"({"ModelName":")") + name + "\"}";
    requests +=
        "POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: SageMaker.CreateModel\r\n"
        "Content-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  requests += "GET /_emulator/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  const std::string reply = RawExchange(port, {requests});
  const auto p1 = reply.find("model/p1");
  const auto p2 = reply.find("model/p2");
  const auto p3 = reply.find("model/p3");
  ASSERT_NE(p1, std::string::npos) << reply;
  EXPECT_LT(p1, p2);
  EXPECT_LT(p2, p3);
  EXPECT_THAT(reply, HasSubstr("\"status\":\"ok\""));
}

TEST(ServerE2E, ExpectContinueIsHonoured) {
  Server server(TestOptions());
  const std::string body = R"({"ModelName":"continued"})";
  const std::string reply =
      RawExchange(server.Start(),
                  {"POST / HTTP/1.1\r\nHost: x\r\nX-Amz-Target: SageMaker.CreateModel\r\nExpect: "
                   "100-continue\r\nConnection: close\r\nContent-Length: " +
                       std::to_string(body.size()) + "\r\n\r\n",
                   body},
                  std::chrono::milliseconds(100));
  EXPECT_THAT(reply, StartsWith("HTTP/1.1 100 Continue"));
  EXPECT_THAT(reply, HasSubstr("HTTP/1.1 200 OK"));
  EXPECT_THAT(reply, HasSubstr("model/continued"));
}

TEST(ServerE2E, ConcurrentCreatesOfOneNameSucceedExactlyOnce) {
  ServerOptions options = TestOptions();
  options.threads = 4;
  Server server(options);
  const unsigned short port = server.Start();
  std::atomic<int> created{0};
  std::atomic<int> duplicates{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 8; ++t) {
    clients.emplace_back([&, t] {
      HttpClient client(port);
      for (int i = 0; i < 20; ++i) {
        const auto same = client.Aws("CreateModel", R"({"ModelName":"contended"})");
        (same.status == 200 ? created : duplicates)++;
        const auto own = client.Aws("CreateModel", R"({"ModelName":"m-)" + std::to_string(t) + "-" +
                                                       std::to_string(i) + "\"}");
        EXPECT_EQ(own.status, 200) << own.body;
      }
    });
  }
  for (auto& c : clients) c.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(duplicates.load(), 159);
  HttpClient client(port);
  int listed = 0;
  std::string token;
  do {
    json input = {{"MaxResults", 100}};
    if (!token.empty()) input["NextToken"] = token;
    const json page = json::parse(client.Aws("ListModels", input.dump()).body);
    listed += static_cast<int>(page["Models"].size());
    token = page.value("NextToken", "");
  } while (!token.empty());
  EXPECT_EQ(listed, 161);
}

TEST(ServerE2E, StateSurvivesAStopAndStart) {
  testing::TempDbPath db;
  {
    Server server(TestOptions(db.str()));
    HttpClient client(server.Start());
    ASSERT_EQ(client.Aws("CreateModel", R"({"ModelName":"durable"})").status, 200);
    ASSERT_EQ(client.Send("POST", "/_emulator/clock", R"({"advance_seconds":60})").status, 200);
    server.Stop();
  }
  ServerOptions options = TestOptions(db.str());
  options.clock_start.reset();  // continue from the saved clock
  Server server(options);
  HttpClient client(server.Start());
  const auto described = client.Aws("DescribeModel", R"({"ModelName":"durable"})");
  ASSERT_EQ(described.status, 200);
  EXPECT_EQ(json::parse(described.body)["CreationTime"], 1800835200);
  EXPECT_EQ(json::parse(client.Send("GET", "/_emulator/clock", "").body)["now"],
            "2027-01-25T00:01:00Z");
}

TEST(ServerE2E, StopWithAnIdleKeepAliveConnectionIsPrompt) {
  Server server(TestOptions());
  HttpClient client(server.Start());
  ASSERT_EQ(client.Send("GET", "/_emulator/health", "").status, 200);
  const auto started = std::chrono::steady_clock::now();
  server.Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
}

TEST(ServerE2E, BadStartupOptionsThrowReadableErrors) {
  ServerOptions bad_account = TestOptions();
  bad_account.account_id = "12";
  EXPECT_THROW(Server(bad_account).Start(), std::invalid_argument);
  ServerOptions bad_db = TestOptions("/nonexistent-dir/state.db");
  EXPECT_THROW(Server(bad_db).Start(), std::runtime_error);
}

}  // namespace
}  // namespace smemu

namespace smemu {
namespace {

TEST(ServerE2E, ConcurrentPurchasesOfOneOfferingNeverOversellThePool) {
  testing::TempDbPath capacity_file;
  {
    std::ofstream out(capacity_file.str());
    out << R"({"regions": {"us-east-1": {"us-east-1a": {"ml.p5.48xlarge": {"reservable": 3}}}},
               "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55}}})";
  }
  ServerOptions options = TestOptions();
  options.threads = 4;
  options.capacity_path = capacity_file.str();
  Server server(options);
  const unsigned short port = server.Start();
  HttpClient searcher(port);
  const auto found =
      searcher.Aws("SearchTrainingPlanOfferings",
                   R"({"InstanceType":"ml.p5.48xlarge","InstanceCount":1,"DurationHours":168})");
  ASSERT_EQ(found.status, 200) << found.body;
  const std::string offering_id =
      json::parse(found.body)["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"];

  std::atomic<int> sold{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> buyers;
  for (int t = 0; t < 8; ++t) {
    buyers.emplace_back([&, t] {
      HttpClient client(port);
      for (int i = 0; i < 4; ++i) {
        const auto reply = client.Aws(
            "CreateTrainingPlan",
            json{{"TrainingPlanName", "p-" + std::to_string(t) + "-" + std::to_string(i)},
                 {"TrainingPlanOfferingId", offering_id}}
                .dump());
        if (reply.status == 200) {
          ++sold;
        } else {
          EXPECT_THAT(reply.body, HasSubstr("ResourceLimitExceeded"));
          ++refused;
        }
      }
    });
  }
  for (auto& b : buyers) b.join();
  EXPECT_EQ(sold.load(), 3);
  EXPECT_EQ(refused.load(), 29);
  const json listed = json::parse(searcher.Aws("ListTrainingPlans", R"({"MaxResults":100})").body);
  EXPECT_EQ(listed["TrainingPlanSummaries"].size(), 3u);
}

}  // namespace
}  // namespace smemu

namespace smemu {
namespace {

// Endpoints and training jobs take instances of one on-demand pool from several connections at
// once, while others give instances back (endpoints deleted, jobs stopped) and waiting jobs start
// on what is freed. A watcher reads who holds what all along: never more than the pool has.
TEST(ServerE2E, EndpointsAndJobsRacingForOnePoolNeverHoldMoreThanItHas) {
  constexpr int kPoolSize = 3;
  testing::TempDbPath capacity_file;
  std::ofstream(capacity_file.str())
      << R"({"regions": {"us-east-1": {"us-east-1a": {"ml.p5.48xlarge": {"on_demand": 3}}}},
             "prices": {}})";
  ServerOptions options = TestOptions();
  options.threads = 4;
  options.capacity_path = capacity_file.str();
  Server server(options);
  const unsigned short port = server.Start();
  HttpClient setup(port);
  ASSERT_EQ(setup.Aws("CreateModel", R"({"ModelName":"m"})").status, 200);
  const json config = {{"EndpointConfigName", "c"},
                       {"ProductionVariants",
                        {{{"VariantName", "AllTraffic"},
                          {"ModelName", "m"},
                          {"InstanceType", "ml.p5.48xlarge"},
                          {"InitialInstanceCount", 1}}}}};
  ASSERT_EQ(setup.Aws("CreateEndpointConfig", config.dump()).status, 200);

  std::atomic<bool> done{false};
  std::atomic<int> snapshots{0};
  std::atomic<int> peak{0};
  std::thread watcher([&] {
    HttpClient client(port);
    while (!done) {
      const auto view = client.Send("GET", "/_emulator/capacity?instance_type=ml.p5.48xlarge", "");
      ASSERT_EQ(view.status, 200) << view.body;
      int held = 0;
      const json holders = json::parse(view.body)["in_use"];
      for (const json& holder : holders) held += holder["count"].get<int>();
      EXPECT_LE(held, kPoolSize) << view.body;
      peak = std::max(peak.load(), held);
      ++snapshots;
    }
  });
  std::atomic<int> served{0};  // endpoints that came up InService
  // Jobs join the race once an endpoint has been described: otherwise they could take the whole
  // pool before any endpoint asks, and no endpoint would ever be served (about 1 run in 30).
  std::atomic<bool> endpoint_described{false};
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t) {
    clients.emplace_back([&, t] {  // endpoints: create, use if InService, delete every other one
      HttpClient client(port);
      for (int i = 0; i < 8; ++i) {
        const std::string name = "e-" + std::to_string(t) + "-" + std::to_string(i);
        ASSERT_EQ(client
                      .Aws("CreateEndpoint",
                           json{{"EndpointName", name}, {"EndpointConfigName", "c"}}.dump())
                      .status,
                  200);
        const json described =
            json::parse(client.Aws("DescribeEndpoint", json{{"EndpointName", name}}.dump()).body);
        if (described["EndpointStatus"] == "InService") ++served;
        endpoint_described = true;
        if (i % 2 == 0 || described["EndpointStatus"] == "Failed") {
          client.Aws("DeleteEndpoint", json{{"EndpointName", name}}.dump());
        }
      }
    });
    clients.emplace_back([&, t] {  // jobs: run or wait for the pool, stop every third one
      HttpClient client(port);
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (!endpoint_described && std::chrono::steady_clock::now() < give_up) {
        std::this_thread::yield();
      }
      for (int i = 0; i < 8; ++i) {
        const std::string name = "j-" + std::to_string(t) + "-" + std::to_string(i);
        const json job = {{"TrainingJobName", name},
                          {"RoleArn", "arn:aws:iam::000000000000:role/r"},
                          {"OutputDataConfig", {{"S3OutputPath", "s3://b/o"}}},
                          {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
                          {"ResourceConfig",
                           {{"VolumeSizeInGB", 1},
                            {"InstancePreferences",
                             {{{"InstanceType", "ml.p5.48xlarge"}, {"InstanceCount", 1}}}}}}};
        const auto created = client.Aws("CreateTrainingJob", job.dump());
        ASSERT_EQ(created.status, 200) << created.body;
        if (i % 3 == 0) client.Aws("StopTrainingJob", json{{"TrainingJobName", name}}.dump());
      }
    });
  }
  for (auto& c : clients) c.join();
  done = true;
  watcher.join();

  // What the AWS API says agrees: endpoints in service plus jobs holding instances fit the pool.
  int holding = 0;
  const json endpoints = json::parse(setup.Aws("ListEndpoints", R"({"MaxResults":100})").body);
  for (const json& endpoint : endpoints["Endpoints"]) {
    if (endpoint["EndpointStatus"] == "InService") ++holding;
  }
  const json jobs = json::parse(
      setup.Aws("ListTrainingJobs", R"({"MaxResults":100,"StatusEquals":"InProgress"})").body);
  for (const json& job : jobs["TrainingJobSummaries"]) {
    const json described = json::parse(
        setup.Aws("DescribeTrainingJob", json{{"TrainingJobName", job["TrainingJobName"]}}.dump())
            .body);
    if (described["SecondaryStatus"] != "Pending") ++holding;
  }
  EXPECT_EQ(holding, kPoolSize) << "demand exceeds the pool, so all of it ends up held";
  EXPECT_EQ(peak.load(), kPoolSize);
  EXPECT_GT(served.load(), 0);
  EXPECT_GT(snapshots.load(), 10);
}

}  // namespace
}  // namespace smemu
