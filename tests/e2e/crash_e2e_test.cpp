// Crash safety: the server is killed with SIGKILL at random moments while concurrent clients
// write plans, endpoints and jobs, then restarted on the same database, many times. Every write
// that was acknowledged must be there, the database must pass PRAGMA integrity_check, and the
// capacity ledger rebuilt at start must hold exactly the plans the store has, never more
// instances than a pool has.
//
// SMEMU_CRASH_ITERATIONS sets the number of kill/restart rounds (default 8 in CI).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "e2e/http_client.hpp"
#include "e2e/process.hpp"
#include "store/state_store.hpp"
#include "test_support.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using testing::HttpClient;
using testing::ListeningPort;
using testing::Process;

int Iterations() {
  const char* text = std::getenv("SMEMU_CRASH_ITERATIONS");
  return text ? std::max(1, std::atoi(text)) : 8;
}

// What clients were told succeeded, by kind.
struct Acknowledged {
  std::mutex mutex;
  std::map<std::string, std::set<std::string>> names;  // kind -> names
  void Add(const std::string& kind, const std::string& name) {
    std::lock_guard lock(mutex);
    names[kind].insert(name);
  }
};

// Sends requests until the server dies; records every 200.
void Writer(unsigned short port, const std::string& prefix, int kind_of_writer,
            Acknowledged& acknowledged) {
  try {
    HttpClient client(port);
    for (int i = 0;; ++i) {
      const std::string name = prefix + "-" + std::to_string(i);
      if (kind_of_writer == 0) {
        if (client.Aws("CreateModel", json{{"ModelName", name}}.dump()).status == 200) {
          acknowledged.Add("model", name);
        }
      } else if (kind_of_writer == 1) {
        const auto search =
            client.Aws("SearchTrainingPlanOfferings", json{{"InstanceType", "ml.p5.4xlarge"},
                                                           {"InstanceCount", 1},
                                                           {"DurationHours", 24},
                                                           {"TargetResources", {"training-job"}}}
                                                          .dump());
        const json offerings =
            json::parse(search.body).value("TrainingPlanOfferings", json::array());
        if (offerings.empty()) continue;
        const auto bought =
            client.Aws("CreateTrainingPlan",
                       json{{"TrainingPlanName", name},
                            {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}}
                           .dump());
        if (bought.status == 200) acknowledged.Add("training-plan", name);
      } else {
        const json config = {{"EndpointConfigName", name},
                             {"ProductionVariants",
                              {{{"VariantName", "v"},
                                {"InstanceType", "ml.m5.large"},
                                {"InitialInstanceCount", 1}}}}};
        if (client.Aws("CreateEndpointConfig", config.dump()).status != 200) continue;
        acknowledged.Add("endpoint-config", name);
        if (client
                .Aws("CreateEndpoint",
                     json{{"EndpointName", name}, {"EndpointConfigName", name}}.dump())
                .status == 200) {
          acknowledged.Add("endpoint", name);
        }
        const json job = {
            {"TrainingJobName", name},
            {"RoleArn", "arn:aws:iam::000000000000:role/r"},
            {"OutputDataConfig", {{"S3OutputPath", "s3://b/o"}}},
            {"ResourceConfig",
             {{"InstanceCount", 1},
              {"VolumeSizeInGB", 1},
              {"InstancePreferences",
               {{{"InstanceType", "ml.p5.48xlarge"}}, {{"InstanceType", "ml.m5.xlarge"}}}}}}};
        if (client.Aws("CreateTrainingJob", job.dump()).status == 200) {
          acknowledged.Add("training-job", name);
        }
      }
    }
  } catch (const std::exception&) {
    // The server was killed: the connection broke mid-request. That request is unacknowledged.
  }
}

std::vector<std::string> ServerArgs(const std::string& db) {
  return {"--port",         "0",           "--db", db, "--clock-start", "2027-01-25T00:00:00Z",
          "--frozen-clock", "--log-level", "warn"};
}

// Everything the restarted server says about plans agrees with the rebuilt ledger.
void CheckLedgerAgainstPlans(unsigned short port) {
  HttpClient client(port);
  std::map<std::string, json> plans;  // ARN -> summary
  std::string token;
  do {
    json request = {{"MaxResults", 100}};
    if (!token.empty()) request["NextToken"] = token;
    const auto page = client.Aws("ListTrainingPlans", request.dump());
    ASSERT_EQ(page.status, 200) << page.body;
    const json body = json::parse(page.body);
    for (const json& plan : body["TrainingPlanSummaries"]) plans[plan["TrainingPlanArn"]] = plan;
    token = body.value("NextToken", "");
  } while (!token.empty());

  const json capacity = json::parse(client.Send("GET", "/_emulator/capacity", "").body);
  std::map<std::string, int> reserved;  // ARN -> instances the ledger holds for it
  for (const json& pool : capacity["pools"]) {
    int peak = 0;
    for (const json& step : pool["free_reservable"]) {
      EXPECT_GE(step["free"].get<int>(), 0) << "a pool was oversold: " << pool.dump();
      peak = std::max(peak, pool["reservable"].get<int>() - step["free"].get<int>());
    }
    for (const json& reservation : pool["reservations"]) {
      reserved[reservation["training_plan_arn"]] += reservation["count"].get<int>();
    }
    EXPECT_LE(peak, pool["reservable"].get<int>());
  }
  std::map<std::string, int> expected;
  for (const auto& [arn, plan] : plans) expected[arn] = plan["TotalInstanceCount"];
  EXPECT_EQ(reserved, expected) << "the ledger rebuilt at start differs from the stored plans";
}

TEST(CrashSafety, AcknowledgedWritesSurviveSigkillAndTheLedgerMatchesTheRows) {
  testing::TempDbPath db;
  Acknowledged acknowledged;
  std::mt19937 random(20270125);
  const int iterations = Iterations();
  for (int round = 0; round < iterations; ++round) {
    Process server(ServerArgs(db.str()));
    const unsigned short port = ListeningPort(server);
    ASSERT_NE(port, 0);
    std::vector<std::thread> writers;
    for (int kind = 0; kind < 3; ++kind) {
      writers.emplace_back(Writer, port, "r" + std::to_string(round) + "k" + std::to_string(kind),
                           kind, std::ref(acknowledged));
    }
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::uniform_int_distribution<int>(50, 400)(random)));
    server.Signal(SIGKILL);
    EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 128 + SIGKILL);
    for (std::thread& writer : writers) writer.join();

    // The file as the crash left it.
    {
      store::StateStore store(db.str());
      ASSERT_EQ(store.IntegrityCheck(), "ok") << "round " << round;
      std::lock_guard lock(acknowledged.mutex);
      for (const auto& [kind, names] : acknowledged.names) {
        for (const std::string& name : names) {
          const auto row = store.Rows().Get({"000000000000", "us-east-1", kind, name});
          ASSERT_TRUE(row) << kind << " " << name << " was acknowledged but is gone (round "
                           << round << ")";
          EXPECT_TRUE(json::accept(row->doc));
        }
      }
    }
  }
  // A last restart: every stored plan is in the ledger, and the server answers for all of it.
  Process server(ServerArgs(db.str()));
  const unsigned short port = ListeningPort(server);
  ASSERT_NE(port, 0);
  CheckLedgerAgainstPlans(port);
  HttpClient client(port);
  for (const char* operation : {"ListModels", "ListEndpoints", "ListEndpointConfigs",
                                "ListTrainingJobs", "ListTrainingPlans"}) {
    EXPECT_EQ(client.Aws(operation, "{}").status, 200) << operation;
  }
  std::lock_guard lock(acknowledged.mutex);
  std::size_t total = 0;
  for (const auto& [kind, names] : acknowledged.names) total += names.size();
  EXPECT_GT(total, 0u) << "the writers never got through: the test proved nothing";
  std::cout << "[crash] " << iterations << " kills, " << total
            << " acknowledged writes, all present\n";
}

}  // namespace
}  // namespace smemu
