// The sagemaker-emulator executable itself: command line, the listening line, signals, restarts.
#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "e2e/http_client.hpp"
#include "e2e/process.hpp"
#include "test_support.hpp"

namespace smemu {
namespace {

using ::testing::HasSubstr;

using testing::Process;

const std::string kListening = "sagemaker-emulator listening on http://127.0.0.1:";

TEST(Binary, PrintsTheListeningLineAndStopsCleanlyOnSigterm) {
  testing::TempDbPath db;
  std::string first_creation;
  {
    Process server({"--port", "0", "--db", db.str(), "--clock-start", "2027-01-25T00:00:00Z",
                    "--frozen-clock", "--log-format", "json"});
    const std::string port = server.WaitFor(kListening, std::chrono::seconds(10));
    ASSERT_FALSE(port.empty()) << server.output();
    testing::HttpClient client(static_cast<unsigned short>(std::stoi(port)));
    ASSERT_EQ(client.Aws("CreateModel", R"({"ModelName":"survivor"})").status, 200);
    server.Signal(SIGTERM);
    EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0) << server.output();
    // One JSON log line per request, naming the operation and status.
    EXPECT_THAT(server.output(), HasSubstr(R"("operation":"CreateModel")"));
    EXPECT_THAT(server.output(), HasSubstr(R"("status":200)"));
  }
  Process restarted({"--port", "0", "--db", db.str()});
  const std::string port = restarted.WaitFor(kListening, std::chrono::seconds(10));
  ASSERT_FALSE(port.empty()) << restarted.output();
  testing::HttpClient client(static_cast<unsigned short>(std::stoi(port)));
  const auto described = client.Aws("DescribeModel", R"({"ModelName":"survivor"})");
  ASSERT_EQ(described.status, 200) << described.body;
  EXPECT_EQ(nlohmann::json::parse(described.body)["CreationTime"], 1800835200);
  restarted.Signal(SIGINT);
  EXPECT_EQ(restarted.Wait(std::chrono::seconds(10)), 0);
}

TEST(Binary, StdoutCarriesOnlyTheListeningLine) {
  Process server({"--port", "0", "--db", ":memory:"}, /*merge_stderr=*/false);
  const std::string port = server.WaitFor(kListening, std::chrono::seconds(10));
  ASSERT_FALSE(port.empty()) << server.output();
  testing::HttpClient client(static_cast<unsigned short>(std::stoi(port)));
  ASSERT_EQ(client.Aws("ListModels", "{}").status, 200);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0);
  EXPECT_EQ(server.output(), kListening + port + "\n");
}

TEST(Binary, VersionAndHelp) {
  Process version({"--version"});
  EXPECT_EQ(version.Wait(std::chrono::seconds(5)), 0);
  EXPECT_THAT(version.output(), HasSubstr("sagemaker-emulator 0."));
  Process help({"--help"});
  EXPECT_EQ(help.Wait(std::chrono::seconds(5)), 0);
  for (const char* option : {"--host",
                             "--port",
                             "--db",
                             "--account-id",
                             "--region",
                             "--threads",
                             "--log-level",
                             "--log-format",
                             "--clock-start",
                             "--frozen-clock",
                             "--capacity",
                             "--provisioning-seconds",
                             "--routing-seed",
                             "--container-timeout",
                             "--read-timeout",
                             "--admin-token",
                             "--check-responses",
                             "--admin-from",
                             "SAGEMAKER_EMULATOR_ADMIN_TOKEN",
                             "SAGEMAKER_EMULATOR_DB"}) {
    EXPECT_THAT(help.output(), HasSubstr(option));
  }
}

TEST(Binary, BadOptionsFailWithAMessage) {
  Process bad_clock({"--clock-start", "tomorrow"});
  EXPECT_EQ(bad_clock.Wait(std::chrono::seconds(5)), 2);
  EXPECT_THAT(bad_clock.output(), HasSubstr("--clock-start"));
  Process bad_db({"--port", "0", "--db", "/nonexistent-dir/x.db"});
  EXPECT_EQ(bad_db.Wait(std::chrono::seconds(5)), 1);
  EXPECT_THAT(bad_db.output(), HasSubstr("/nonexistent-dir/x.db"));
  Process bad_format({"--log-format", "xml"});
  EXPECT_NE(bad_format.Wait(std::chrono::seconds(5)), 0);
}

TEST(Binary, ABadCapacityFileStopsTheServerNamingTheField) {
  testing::TempDbPath capacity;
  {
    std::ofstream out(capacity.str());
    out << R"({"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge": {"reservable": "two"}}}},
               "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 1, "plan_hourly": 1}}})";
  }
  Process server({"--port", "0", "--db", ":memory:", "--capacity", capacity.str()});
  EXPECT_EQ(server.Wait(std::chrono::seconds(5)), 1);
  EXPECT_THAT(server.output(),
              HasSubstr("regions.us-west-2.us-west-2a.ml.p5.48xlarge.reservable: must be an "
                        "integer"));
}

TEST(Binary, APortInUseIsAStartupError) {
  Process first({"--port", "0", "--db", ":memory:"});
  const std::string port = first.WaitFor(kListening, std::chrono::seconds(10));
  ASSERT_FALSE(port.empty());
  Process second({"--port", port, "--db", ":memory:"});
  EXPECT_EQ(second.Wait(std::chrono::seconds(5)), 1);
  EXPECT_THAT(second.output(), HasSubstr("cannot start"));
}

// Each server keeps its ledger and lifecycles in memory, so two on one file would contradict each
// other: the first holds the file for its whole run.
TEST(Binary, ASecondServerOnTheSameFileIsRefusedAtStart) {
  testing::TempDbPath db;
  Process first({"--port", "0", "--db", db.str()});
  ASSERT_FALSE(first.WaitFor(kListening, std::chrono::seconds(10)).empty()) << first.output();
  Process second({"--port", "0", "--db", db.str()});
  EXPECT_EQ(second.Wait(std::chrono::seconds(15)), 1);
  EXPECT_THAT(second.output(),
              HasSubstr("cannot open database '" + db.str() + "': another process holds it"));
  first.Signal(SIGTERM);
  EXPECT_EQ(first.Wait(std::chrono::seconds(10)), 0);
  Process after({"--port", "0", "--db", db.str()});  // free again once the first has stopped
  EXPECT_FALSE(after.WaitFor(kListening, std::chrono::seconds(10)).empty()) << after.output();
}

}  // namespace
}  // namespace smemu

namespace smemu {
namespace {

// This machine's first IPv4 address besides loopback: a caller connecting to it is on one of the
// machine's own networks, as the host is for a server in a container.
std::optional<std::string> OwnNetworkAddress() {
  const auto own = testing::FirstOwnIpv4Interface();
  if (!own) return std::nullopt;
  return testing::Ipv4Text(own->address);
}

// On every address, the admin API answers loopback callers by default, also this machine's
// networks with --admin-from local (as the container image sets it, through the environment),
// and with a token only its holders.
TEST(Binary, TheAdminApiAnswersTheCallersAdminFromNames) {
  const std::optional<std::string> own_address = OwnNetworkAddress();
  {
    Process server({"--host", "0.0.0.0", "--port", "0", "--db", ":memory:"});
    const std::string port =
        server.WaitFor("sagemaker-emulator listening on http://0.0.0.0:", std::chrono::seconds(10));
    ASSERT_FALSE(port.empty()) << server.output();
    EXPECT_THAT(server.output(), HasSubstr("the admin API answers loopback callers only"));
    const auto port_number = static_cast<unsigned short>(std::stoi(port));
    EXPECT_EQ(testing::HttpClient(port_number).Send("POST", "/_emulator/reset", "").status, 200);
    if (own_address) {
      testing::HttpClient from_network(port_number, *own_address);
      EXPECT_EQ(from_network.Send("GET", "/_emulator/health", "").status, 200);
      const auto refused = from_network.Send("POST", "/_emulator/reset", "");
      EXPECT_EQ(refused.status, 403);
      EXPECT_THAT(refused.body, HasSubstr("this request came from " + *own_address));
    }
  }
  if (own_address) {
    setenv("SAGEMAKER_EMULATOR_ADMIN_FROM", "local", 1);
    Process server({"--host", "0.0.0.0", "--port", "0", "--db", ":memory:"});
    unsetenv("SAGEMAKER_EMULATOR_ADMIN_FROM");
    const std::string port =
        server.WaitFor("sagemaker-emulator listening on http://0.0.0.0:", std::chrono::seconds(10));
    ASSERT_FALSE(port.empty()) << server.output();
    testing::HttpClient from_network(static_cast<unsigned short>(std::stoi(port)), *own_address);
    EXPECT_EQ(from_network.Send("POST", "/_emulator/reset", "").status, 200);
  }
  setenv("SAGEMAKER_EMULATOR_ADMIN_TOKEN", "from-the-environment", 1);
  Process server({"--host", "0.0.0.0", "--port", "0", "--db", ":memory:"});
  unsetenv("SAGEMAKER_EMULATOR_ADMIN_TOKEN");
  const std::string port =
      server.WaitFor("sagemaker-emulator listening on http://0.0.0.0:", std::chrono::seconds(10));
  ASSERT_FALSE(port.empty()) << server.output();
  testing::HttpClient client(static_cast<unsigned short>(std::stoi(port)));
  EXPECT_EQ(client.Send("GET", "/_emulator/clock", "").status, 403);
  EXPECT_EQ(
      client
          .Send("GET", "/_emulator/clock", "", {{"X-Emulator-Admin-Token", "from-the-environment"}})
          .status,
      200);
}

// Every option also comes from SAGEMAKER_EMULATOR_<NAME>, and an argument overrides it.
TEST(Binary, OptionsComeFromTheEnvironmentTooAndArgumentsWin) {
  setenv("SAGEMAKER_EMULATOR_PORT", "0", 1);
  setenv("SAGEMAKER_EMULATOR_DB", ":memory:", 1);
  setenv("SAGEMAKER_EMULATOR_CLOCK_START", "2027-01-15T00:00:00Z", 1);
  setenv("SAGEMAKER_EMULATOR_FROZEN_CLOCK", "true", 1);
  setenv("SAGEMAKER_EMULATOR_ACCOUNT_ID", "111122223333", 1);
  Process server({"--account-id", "444455556666"});
  for (const char* name : {"PORT", "DB", "CLOCK_START", "FROZEN_CLOCK", "ACCOUNT_ID"}) {
    unsetenv(("SAGEMAKER_EMULATOR_" + std::string(name)).c_str());
  }
  const unsigned short port = testing::ListeningPort(server);
  ASSERT_NE(port, 0) << server.output();
  testing::HttpClient client(port);
  const auto clock = nlohmann::json::parse(client.Send("GET", "/_emulator/clock", "").body);
  EXPECT_EQ(clock["now"], "2027-01-15T00:00:00Z");
  EXPECT_EQ(clock["frozen"], true);
  client.Aws("CreateModel", R"({"ModelName": "m"})");
  const auto models = nlohmann::json::parse(client.Aws("ListModels", "{}").body);
  ASSERT_EQ(models["Models"].size(), 1u);
  EXPECT_EQ(models["Models"][0]["ModelArn"], "arn:aws:sagemaker:us-east-1:444455556666:model/m");
}

// Request ids are what users quote to correlate logs: they must never repeat, not between the
// server's threads and not after a restart (each thread's generator is seeded from the kernel).
TEST(Binary, RequestIdsAreUniqueAcrossThreadsConnectionsAndRestarts) {
  constexpr int kRuns = 2;
  constexpr int kConnections = 4;
  constexpr int kRequestsPerConnection = 2500;  // 20,000 in all
  std::set<std::string> ids;
  int answered = 0;
  for (int run = 0; run < kRuns; ++run) {
    Process server({"--port", "0", "--db", ":memory:", "--threads", "4", "--log-level", "warn"});
    const unsigned short port = testing::ListeningPort(server);
    ASSERT_NE(port, 0) << server.output();
    std::vector<std::vector<std::string>> seen(kConnections);
    std::vector<std::thread> clients;
    for (int c = 0; c < kConnections; ++c) {
      clients.emplace_back([&, c] {
        testing::HttpClient client(port);
        for (int i = 0; i < kRequestsPerConnection; ++i) {
          const auto reply = client.Aws("ListModels", "{}");
          if (reply.status != 200) return;
          seen[c].push_back(std::string(reply.headers["x-amzn-RequestId"]));
        }
      });
    }
    for (std::thread& client : clients) client.join();
    for (const auto& list : seen) {
      answered += static_cast<int>(list.size());
      ids.insert(list.begin(), list.end());
    }
    server.Signal(SIGTERM);
    EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0);
  }
  EXPECT_EQ(answered, kRuns * kConnections * kRequestsPerConnection);
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(answered)) << "a request id repeated";
  EXPECT_EQ(ids.count(""), 0u);
}

}  // namespace
}  // namespace smemu
