// Graceful degradation of the store, on real file systems: a disk that fills up under a running
// server, and a database file the server may only read. Each write the store refuses must answer
// 500 InternalFailure with a log line naming the file and the reason, reads must go on being
// served, and nothing acknowledged before may be lost.
//
// The full disk is a 1 MiB tmpfs mounted in a private mount namespace, so the test needs root (or
// CAP_SYS_ADMIN); without it the test is skipped and says why. The read-only file test runs the
// server as `nobody` when the test runs as root (root may write any file).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sched.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "e2e/http_client.hpp"
#include "e2e/process.hpp"
#include "store/state_store.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::HttpClient;
using testing::ListeningPort;
using testing::Process;

std::filesystem::path FreshDirectory() {
  std::string pattern = (std::filesystem::temp_directory_path() / "smemu-degrade-XXXXXX").string();
  return mkdtemp(pattern.data());
}

std::vector<std::string> ModelNames(HttpClient& client) {
  const auto listed = client.Aws("ListModels", R"({"MaxResults":100})");
  EXPECT_EQ(listed.status, 200) << listed.body;
  std::vector<std::string> names;
  const json body = json::parse(listed.body);
  for (const json& model : body["Models"]) {
    names.push_back(model["ModelName"].get<std::string>());
  }
  std::sort(names.begin(), names.end());
  return names;
}

void ExpectInternalFailure(const testing::HttpReply& reply) {
  EXPECT_EQ(reply.status, 500) << reply.body;
  EXPECT_EQ(json::parse(reply.body)["__type"], "InternalFailure") << reply.body;
}

// A process holding a private mount namespace with a small tmpfs at `directory`. Servers join the
// namespace; the test reaches the files through /proc/<pid>/root.
class SmallDisk {
 public:
  explicit SmallDisk(const std::filesystem::path& directory) : directory_(directory) {
    holder_ = fork();
    if (holder_ == 0) {
      if (unshare(CLONE_NEWNS) != 0) _exit(2);
      const std::string mount_private = "mount --make-rprivate / 2>/dev/null";
      const std::string mount_tmpfs =
          "mount -t tmpfs -o size=1m tmpfs '" + directory.string() + "' 2>/dev/null";
      if (std::system(mount_private.c_str()) != 0 || std::system(mount_tmpfs.c_str()) != 0) {
        _exit(3);
      }
      pause();
      _exit(0);
    }
    // The tmpfs is ready when the holder's view of the directory is a different file system.
    struct stat outside {};
    stat(directory.c_str(), &outside);
    for (int i = 0; i < 200; ++i) {
      int status = 0;
      if (waitpid(holder_, &status, WNOHANG) == holder_) {
        holder_ = -1;
        return;
      }
      struct stat inside {};
      if (stat(Inside("").c_str(), &inside) == 0 && inside.st_dev != outside.st_dev) {
        ready_ = true;
        return;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~SmallDisk() {
    if (holder_ > 0) {
      kill(holder_, SIGKILL);
      waitpid(holder_, nullptr, 0);
    }
  }
  bool ready() const { return ready_; }

  // `name` inside the tmpfs, as this process can reach it.
  std::string Inside(const std::string& name) const {
    return "/proc/" + std::to_string(holder_) + "/root" + (directory_ / name).string();
  }
  // The command that starts a server inside the namespace with the tmpfs. nsenter joins it from a
  // process of its own: a forked child of this (multi-threaded, perhaps sanitized) test may not.
  std::vector<std::string> Launcher() const {
    return {"nsenter", "--mount=/proc/" + std::to_string(holder_) + "/ns/mnt", "--"};
  }
  // Writes zeros until the file system has no room left.
  void Fill() const {
    std::ofstream ballast(Inside("ballast"), std::ios::binary);
    const std::string block(64 * 1024, '\0');
    while (ballast.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
  }
  void Free() const { std::filesystem::remove(Inside("ballast")); }

 private:
  std::filesystem::path directory_;
  pid_t holder_ = -1;
  bool ready_ = false;
};

TEST(Degradation, AFullDiskAnswersInternalFailureAndLosesNothingAcknowledged) {
  const std::filesystem::path directory = FreshDirectory();
  SmallDisk disk(directory);
  if (!disk.ready()) {
    std::filesystem::remove_all(directory);
    GTEST_SKIP() << "mounting a tmpfs in a private mount namespace needs root or CAP_SYS_ADMIN";
  }
  const std::string db = (directory / "state.db").string();
  // One reservable instance: a purchase that failed must give it back for the next one to work.
  const std::string capacity = directory.string() + "-capacity.json";
  std::ofstream(capacity) << R"({"regions": {"us-east-1": {"us-east-1a":
      {"ml.p5.4xlarge": {"reservable": 1}}}},
      "prices": {"ml.p5.4xlarge": {"on_demand_hourly": 9.0, "plan_hourly": 6.88}}})";
  const std::vector<std::string> args = {
      "--port",        "0",      "--db",          db,
      "--capacity",    capacity, "--clock-start", "2027-01-25T00:00:00Z",
      "--frozen-clock"};
  const json search = {{"InstanceType", "ml.p5.4xlarge"},
                       {"InstanceCount", 1},
                       {"DurationHours", 24},
                       {"TargetResources", {"training-job"}}};
  std::vector<std::string> acknowledged;
  {
    Process server(args, true, {}, disk.Launcher());
    HttpClient client(ListeningPort(server));
    for (int i = 0; i < 10; ++i) {
      const std::string name = "before-" + std::to_string(i);
      ASSERT_EQ(client.Aws("CreateModel", json{{"ModelName", name}}.dump()).status, 200);
      acknowledged.push_back(name);
    }
    const auto offering = [&] {
      const auto found = client.Aws("SearchTrainingPlanOfferings", search.dump());
      EXPECT_EQ(found.status, 200) << found.body;
      return json::parse(found.body)["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]
          .get<std::string>();
    };
    const std::string first_offering = offering();

    disk.Fill();
    ExpectInternalFailure(client.Aws("CreateModel", R"({"ModelName":"while-full"})"));
    // The purchase fails after the ledger took its instances: the rollback must return them.
    ExpectInternalFailure(client.Aws(
        "CreateTrainingPlan",
        json{{"TrainingPlanName", "plan"}, {"TrainingPlanOfferingId", first_offering}}.dump()));
    EXPECT_EQ(ModelNames(client), acknowledged) << "reads go on while the disk is full";
    EXPECT_EQ(client.Aws("DescribeModel", R"({"ModelName":"before-3"})").status, 200);

    disk.Free();
    ASSERT_EQ(client.Aws("CreateModel", R"({"ModelName":"after"})").status, 200);
    acknowledged.push_back("after");
    const auto bought = client.Aws(
        "CreateTrainingPlan",
        json{{"TrainingPlanName", "plan"}, {"TrainingPlanOfferingId", offering()}}.dump());
    EXPECT_EQ(bought.status, 200) << "the failed purchase kept the offering's instances: "
                                  << bought.body;
    server.Signal(SIGTERM);
    EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0) << server.output();
    EXPECT_THAT(server.output(),
                HasSubstr("database '" + db + "' failed: database or disk is full"));
    EXPECT_THAT(server.output(), HasSubstr("rolled back and changed nothing"));
  }
  std::sort(acknowledged.begin(), acknowledged.end());
  Process restarted(args, true, {}, disk.Launcher());
  HttpClient client(ListeningPort(restarted));
  EXPECT_EQ(ModelNames(client), acknowledged);
  EXPECT_EQ(client.Aws("DescribeTrainingPlan", R"({"TrainingPlanName":"plan"})").status, 200);
  restarted.Signal(SIGTERM);
  EXPECT_EQ(restarted.Wait(std::chrono::seconds(10)), 0);
  EXPECT_EQ(store::StateStore(disk.Inside("state.db")).IntegrityCheck(), "ok");
  std::filesystem::remove_all(directory);
  std::filesystem::remove(capacity);
}

// The server process runs as `nobody` when the test runs as root, so that a mode of 0444 binds it.
std::function<void()> AsUnprivilegedUser() {
  if (geteuid() != 0) return {};
  const passwd* nobody = getpwnam("nobody");
  if (!nobody) return {};
  const uid_t uid = nobody->pw_uid;
  const gid_t gid = nobody->pw_gid;
  return [uid, gid] {
    if (setgid(gid) != 0 || setuid(uid) != 0) _exit(126);
  };
}

TEST(Degradation, AReadOnlyDatabaseFileServesReadsAndRefusesWritesWithInternalFailure) {
  const std::filesystem::path directory = FreshDirectory();
  std::filesystem::permissions(directory, std::filesystem::perms::all);
  const std::string db = (directory / "state.db").string();
  const std::vector<std::string> args = {"--port", "0", "--db", db};
  const auto as_user = AsUnprivilegedUser();
  {
    Process server(args, true, as_user);
    HttpClient client(ListeningPort(server));
    for (const char* name : {"a", "b", "c"}) {
      ASSERT_EQ(client.Aws("CreateModel", json{{"ModelName", name}}.dump()).status, 200);
    }
    server.Signal(SIGTERM);
    ASSERT_EQ(server.Wait(std::chrono::seconds(10)), 0) << server.output();
  }
  std::filesystem::permissions(db, std::filesystem::perms::owner_read |
                                       std::filesystem::perms::group_read |
                                       std::filesystem::perms::others_read);
  {
    Process server(args, true, as_user);
    HttpClient client(ListeningPort(server));
    EXPECT_THAT(server.output(), HasSubstr("the database file is read-only"));
    EXPECT_EQ(ModelNames(client), (std::vector<std::string>{"a", "b", "c"}));
    ExpectInternalFailure(client.Aws("CreateModel", R"({"ModelName":"d"})"));
    ExpectInternalFailure(client.Aws("DeleteModel", R"({"ModelName":"a"})"));
    EXPECT_EQ(client.Aws("DescribeModel", R"({"ModelName":"a"})").status, 200);
    server.Signal(SIGTERM);
    ASSERT_EQ(server.Wait(std::chrono::seconds(10)), 0);
    EXPECT_THAT(server.output(),
                HasSubstr("database '" + db + "' failed: attempt to write a readonly database"));
  }
  std::filesystem::permissions(db, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  Process server(args, true, as_user);
  HttpClient client(ListeningPort(server));
  EXPECT_EQ(ModelNames(client), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(client.Aws("CreateModel", R"({"ModelName":"d"})").status, 200);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(std::chrono::seconds(10)), 0);
  std::filesystem::remove_all(directory);
}

}  // namespace
}  // namespace smemu
