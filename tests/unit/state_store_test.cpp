#include "store/state_store.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace smemu::store {
namespace {

// Counts the flushes SQLite asks of each file while it lives, by the file's name suffix: "" for
// the database itself, "-wal", "-journal". Installed as SQLite's default VFS: a copy of the real
// one whose files report their syncs.
class SyncCounter {
 public:
  SyncCounter() {
    real_ = sqlite3_vfs_find(nullptr);
    vfs_ = *real_;
    vfs_.zName = "smemu-sync-counter";
    vfs_.pNext = nullptr;
    vfs_.xOpen = &Open;
    current_ = this;
    sqlite3_vfs_register(&vfs_, /*makeDflt=*/1);
  }
  ~SyncCounter() {
    sqlite3_vfs_unregister(&vfs_);
    sqlite3_vfs_register(real_, /*makeDflt=*/1);
    current_ = nullptr;
  }
  SyncCounter(const SyncCounter&) = delete;
  SyncCounter& operator=(const SyncCounter&) = delete;

  int Of(const std::string& suffix) const {
    auto it = syncs_.find(suffix);
    return it == syncs_.end() ? 0 : it->second;
  }
  int Total() const {
    int total = 0;
    for (const auto& [suffix, count] : syncs_) total += count;
    return total;
  }

 private:
  static int Open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
                  int* out_flags) {
    const int rc = current_->real_->xOpen(current_->real_, name, file, flags, out_flags);
    if (rc != SQLITE_OK || file->pMethods == nullptr || name == nullptr) return rc;
    // Files of different kinds have different methods (no locks but on the database itself).
    auto [counting, added] = current_->methods_.try_emplace(file->pMethods, *file->pMethods);
    if (added) counting->second.xSync = &Sync;
    const std::string path = name;
    const size_t dash = path.rfind('-');
    const bool suffixed = dash != std::string::npos && path.find('/', dash) == std::string::npos &&
                          (path.compare(dash, std::string::npos, "-wal") == 0 ||
                           path.compare(dash, std::string::npos, "-journal") == 0);
    current_->files_[file] = {suffixed ? path.substr(dash) : "", file->pMethods};
    file->pMethods = &counting->second;
    return rc;
  }
  static int Sync(sqlite3_file* file, int flags) {
    const auto& [suffix, real_methods] = current_->files_.at(file);
    ++current_->syncs_[suffix];
    return real_methods->xSync(file, flags);
  }

  static inline SyncCounter* current_ = nullptr;
  sqlite3_vfs* real_ = nullptr;
  sqlite3_vfs vfs_{};
  // Real methods -> the same with a counting xSync.
  std::map<const sqlite3_io_methods*, sqlite3_io_methods> methods_;
  // Open file -> its name suffix and real methods.
  std::map<const sqlite3_file*, std::pair<std::string, const sqlite3_io_methods*>> files_;
  std::map<std::string, int> syncs_;
};

TimePoint At(long long ms) { return TimePoint{Millis{ms}}; }

ResourceRow Row(const std::string& name, long long created_ms,
                const std::string& account = "111111111111",
                const std::string& region = "us-east-1") {
  return {{account, region, "model", name},
          "arn:aws:sagemaker:" + region + ":" + account + ":model/" + NameKey(name),
          "",
          At(created_ms),
          At(created_ms),
          "{}"};
}

ListQuery Query(const std::string& account = "111111111111") {
  ListQuery query;
  query.account = account;
  query.region = "us-east-1";
  query.kind = "model";
  return query;
}

// A page's rows, as the store keeps them.
std::vector<ResourceRow> RowsOf(const ListPage& page) {
  std::vector<ResourceRow> rows;
  for (const KeptRowPtr& kept : page.kept) rows.push_back(kept->row());
  return rows;
}

// A training plan's row, and what it reserves, as the plan repository writes them
// (ops/plan_records.cpp): the document is the operation layer's, the capacity goes in columns.
ResourceRow PlanRow(const std::string& name) {
  return {{"111111111111", "us-east-1", "training-plan", name},
          "arn:aws:sagemaker:us-east-1:111111111111:training-plan/" + NameKey(name),
          "",
          At(1000),
          At(1000),
          "{}"};
}

PlanCapacity CapacityOf(const ResourceRow& plan, long long start_ms, long long end_ms,
                        const std::string& zone = "us-east-1a", int count = 2) {
  return {plan.arn,   "us-east-1", zone,  "ml.p5.48xlarge", count, At(start_ms),
          At(end_ms), {},          false, std::nullopt};
}

// Inserts a plan's row and its capacity in one write scope, as the repository does.
bool InsertPlan(StateStore& store, const std::string& name, long long start_ms, long long end_ms,
                const std::string& zone = "us-east-1a", int count = 2) {
  StateStore::WriteScope writes(store);
  const ResourceRow row = PlanRow(name);
  if (!store.Insert(row, {})) return false;
  store.PutPlanCapacity(row.key, CapacityOf(row, start_ms, end_ms, zone, count));
  writes.Commit();
  return true;
}

std::vector<std::string> PlanArnsEnding(const StateStore& store) {
  std::vector<std::string> names;
  for (const PlanCapacity& plan : store.Rows().AllPlanCapacity()) {
    names.push_back(plan.arn.substr(plan.arn.rfind('/') + 1) + "@" + plan.availability_zone + "x" +
                    std::to_string(plan.instance_count) + ":" +
                    std::to_string(plan.start.time_since_epoch().count()) + "-" +
                    std::to_string(plan.end.time_since_epoch().count()));
  }
  return names;
}

TEST(StateStore, PlanCapacityIsWrittenWithItsPlanAndGoesWithIt) {
  StateStore store(":memory:");
  ASSERT_TRUE(InsertPlan(store, "Late", 5000, 9000));
  ASSERT_TRUE(InsertPlan(store, "early", 1000, 3000, "us-east-1b", 4));
  ASSERT_TRUE(store.Insert(Row("not-a-plan", 1000), {}));
  EXPECT_EQ(PlanArnsEnding(store), (std::vector<std::string>{"early@us-east-1bx4:1000-3000",
                                                             "late@us-east-1ax2:5000-9000"}));
  const ResourceRow extended = PlanRow("late");
  store.PutPlanCapacity(extended.key, CapacityOf(extended, 5000, 12000));
  EXPECT_EQ(PlanArnsEnding(store).back(), "late@us-east-1ax2:5000-12000");
  {
    StateStore::WriteScope rolled_back(store);
    ASSERT_TRUE(store.Delete(extended.key));
    EXPECT_EQ(store.Rows().AllPlanCapacity().size(), 1u);
  }  // no Commit(): the plan and its capacity are back
  EXPECT_EQ(store.Rows().AllPlanCapacity().size(), 2u);
  // Deleting another kind's resource of the same name leaves the plan's capacity.
  ResourceRow namesake = Row("late", 1000);
  ASSERT_TRUE(store.Insert(namesake, {}));
  ASSERT_TRUE(store.Delete(namesake.key));
  EXPECT_EQ(store.Rows().AllPlanCapacity().size(), 2u);
  ASSERT_TRUE(store.Delete(extended.key));
  EXPECT_EQ(PlanArnsEnding(store), (std::vector<std::string>{"early@us-east-1bx4:1000-3000"}));
  store.DeleteEverything();
  EXPECT_TRUE(store.Rows().AllPlanCapacity().empty());
}

// ForEachPlanCapacity reuses one value from row to row: a plan of one reserved capacity read
// after a plan of two shows no second block, and every plan shows its own.
TEST(StateStore, EveryPlansCapacityIsReadWhateverThePlanBeforeIt) {
  StateStore store(":memory:");
  std::map<std::string, PlanCapacity> written;
  for (int i = 0; i < 6; ++i) {
    const ResourceRow row = PlanRow("plan-" + std::to_string(i));
    PlanCapacity capacity = CapacityOf(row, 1000 * i, 1000 * i + 500, "us-east-1a", i + 1);
    capacity.paid = At(10 * i);
    capacity.payment_fails = i == 4;
    if (i % 2 == 0)
      capacity.second =
          PlanCapacity::SecondBlock{At(1000 * i + 100), At(1000 * i + 200), "us-east-1c"};
    ASSERT_TRUE(store.Insert(row, {}));
    store.PutPlanCapacity(row.key, capacity);
    written[capacity.arn] = capacity;
  }
  int visited = 0;
  store.Rows().ForEachPlanCapacity([&](const PlanCapacity& read) {
    ++visited;
    const PlanCapacity& expected = written.at(read.arn);
    EXPECT_EQ(read.region, expected.region);
    EXPECT_EQ(read.availability_zone, expected.availability_zone);
    EXPECT_EQ(read.instance_type, expected.instance_type);
    EXPECT_EQ(read.instance_count, expected.instance_count);
    EXPECT_EQ(read.start, expected.start);
    EXPECT_EQ(read.end, expected.end);
    EXPECT_EQ(read.paid, expected.paid);
    EXPECT_EQ(read.payment_fails, expected.payment_fails);
    ASSERT_EQ(read.second.has_value(), expected.second.has_value()) << read.arn;
    if (read.second) {
      EXPECT_EQ(read.second->gap_start, expected.second->gap_start);
      EXPECT_EQ(read.second->gap_end, expected.second->gap_end);
      EXPECT_EQ(read.second->zone, expected.second->zone);
    }
  });
  EXPECT_EQ(visited, 6);
}

TEST(StateStore, PlansListByTheirWindowInKeysetPages) {
  StateStore store(":memory:");
  // At 4000: "a" is over, "b" and "c" are running (tied on start), "d" has not started.
  ASSERT_TRUE(InsertPlan(store, "d", 6000, 8000));
  ASSERT_TRUE(InsertPlan(store, "c", 2000, 5000));
  ASSERT_TRUE(InsertPlan(store, "b", 2000, 7000));
  ASSERT_TRUE(InsertPlan(store, "a", 1000, 3000));
  ListQuery query = Query();
  query.kind = "training-plan";
  query.plan = ListQuery::PlanWindow{};  // not emplace(): clang 14 refuses it for this struct
  query.plan->now = At(4000);
  query.sort = SortField::kPlanStart;
  query.descending = false;
  query.limit = 3;
  ListPage page = store.Rows().List(query);
  ASSERT_EQ(RowsOf(page).size(), 3u);
  EXPECT_TRUE(page.has_more);
  EXPECT_EQ(RowsOf(page)[1].key.name, "b");
  EXPECT_EQ(page.positions[1].value, SortValue{int64_t{2000}});
  EXPECT_EQ(page.positions[1].name_key, "b");
  query.after = page.positions.back();
  page = store.Rows().List(query);
  ASSERT_EQ(RowsOf(page).size(), 1u);
  EXPECT_EQ(RowsOf(page)[0].key.name, "d");
  EXPECT_FALSE(page.has_more);

  // Phase filters, start bounds and a phase order chosen by the caller.
  query.after.reset();
  query.limit = 10;
  query.plan->phases = {WindowPhase::kDuring};
  page = store.Rows().List(query);
  ASSERT_EQ(RowsOf(page).size(), 2u);
  EXPECT_EQ(RowsOf(page)[0].key.name, "b");
  EXPECT_EQ(RowsOf(page)[1].key.name, "c");
  query.plan->phases = {WindowPhase::kBefore, WindowPhase::kAfter};
  query.plan->start_before = At(6000);
  page = store.Rows().List(query);
  ASSERT_EQ(RowsOf(page).size(), 1u);
  EXPECT_EQ(RowsOf(page)[0].key.name, "a");
  query.plan->phases.clear();
  query.plan->start_before.reset();
  query.sort = SortField::kPlanPhase;
  query.plan->phase_rank = {2, 0, 1, 3};  // during, after, before (unpaid last)
  page = store.Rows().List(query);
  std::vector<std::string> order;
  for (const ResourceRow& row : RowsOf(page)) order.push_back(row.key.name);
  EXPECT_EQ(order, (std::vector<std::string>{"b", "c", "a", "d"}));
  EXPECT_EQ(page.positions[2].value, SortValue{int64_t{1}});
}

// A plan document as releases before migration 5 wrote it, with the members migration 4 reads.
ResourceRow PlanRowWithItsWindowInTheDocument(const std::string& name) {
  ResourceRow row = PlanRow(name);
  row.doc = R"({"AvailabilityZone":"us-east-1a","InstanceType":"ml.p5.48xlarge",)"
            R"("InstanceCount":2,"StartMs":1000,"EndMs":3000})";
  return row;
}

// Migration 10: a job stored before the typed domain, without the members the strict codec reads
// (Phase, PendingAccruedMs), has them afterwards, with the values those releases meant.
TEST(StateStore, MigrationTenGivesOldJobsThePhaseAndPendingTimeTheCodecReads) {
  const testing::TempDir dir;
  const std::string path = (dir.path() / "migration-10.db").string();
  {
    StateStore store(path);
    ResourceRow job{{"123456789012", "us-east-1", "training-job", "old"},
                    "arn:old",
                    "Completed",
                    TimePoint{Millis{1000}},
                    TimePoint{Millis{2000}},
                    R"({"Options":[],"QueuedMs":1000})"};
    ResourceRow recent = job;
    recent.key.name = "recent";
    recent.arn = "arn:recent";
    recent.doc = R"({"Phase":"Running","PendingAccruedMs":5})";
    ASSERT_TRUE(store.Insert(job, {}));
    ASSERT_TRUE(store.Insert(recent, {}));
  }
  {  // Back to a version-9 file.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 9;", nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }
  StateStore store(path);
  EXPECT_EQ(store.SchemaVersion(), 11);
  const auto old = nlohmann::json::parse(
      store.Rows().Get({"123456789012", "us-east-1", "training-job", "old"})->doc);
  EXPECT_EQ(old.at("Phase"), "Ended");
  EXPECT_EQ(old.at("PendingAccruedMs"), 0);
  EXPECT_EQ(old.at("QueuedMs"), 1000) << "the rest of the document is kept";
  const auto recent = nlohmann::json::parse(
      store.Rows().Get({"123456789012", "us-east-1", "training-job", "recent"})->doc);
  EXPECT_EQ(recent.at("Phase"), "Running") << "a job that has its members keeps them";
  EXPECT_EQ(recent.at("PendingAccruedMs"), 5);
}

TEST(StateStore, MigrationsFourAndFiveFillPlanCapacityFromPlansSoldBeforeThenLeaveItToThePlans) {
  const testing::TempDir dir;
  const std::string path = (dir.path() / "migration-4.db").string();
  {
    StateStore store(path);
    ASSERT_TRUE(store.Insert(PlanRowWithItsWindowInTheDocument("sold-before"), {}));
    // Since migration 5 the store reads no document: a row alone reserves nothing.
    EXPECT_TRUE(store.Rows().AllPlanCapacity().empty());
  }
  {  // Back to a version-3 file: no table, the plan only in `resources`.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "DROP TABLE plan_capacity; PRAGMA user_version = 3;", nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
  }
  StateStore store(path);
  EXPECT_EQ(store.SchemaVersion(), 11);  // every migration since ran again
  EXPECT_EQ(PlanArnsEnding(store),
            (std::vector<std::string>{"sold-before@us-east-1ax2:1000-3000"}));
  // Migration 6: a plan sold before payments took time was paid when it was bought.
  EXPECT_EQ(store.Rows().AllPlanCapacity().at(0).paid, TimePoint{});
  // Migration 7: a plan sold before plans had two reserved capacities has one.
  EXPECT_FALSE(store.Rows().AllPlanCapacity().at(0).second);
  // Migration 8: a plan sold before payments could fail was paid for.
  EXPECT_FALSE(store.Rows().AllPlanCapacity().at(0).payment_fails);
  // Migration 5 dropped migration 4's triggers: a row written now reserves nothing by itself.
  ASSERT_TRUE(store.Insert(PlanRowWithItsWindowInTheDocument("sold-after"), {}));
  EXPECT_EQ(store.Rows().AllPlanCapacity().size(), 1u);
}

// Get() keeps the rows it reads; no write, rollback or reset may leave it answering an old row.
TEST(StateStore, RowsReadAreNeverStale) {
  StateStore store(":memory:");
  const ResourceKey key{"111111111111", "us-east-1", "model", "m"};
  {
    StateStore::WriteScope request(store);
    ASSERT_TRUE(store.Insert(Row("m", 1000), {}));
    ASSERT_TRUE(store.Rows().Get(key).has_value());  // read (and kept) inside the request
  }                                                  // rolled back
  EXPECT_FALSE(store.Rows().Get(key).has_value());

  ASSERT_TRUE(store.Insert(Row("m", 1000), {}));
  ASSERT_EQ(store.Rows().Get(key)->doc, "{}");
  ResourceRow changed = *store.Rows().Get(key);
  changed.doc = R"({"v":2})";
  changed.status = "InService";
  ASSERT_TRUE(store.Update(changed));
  EXPECT_EQ(store.Rows().Get({"111111111111", "us-east-1", "model", "M"})->doc, R"({"v":2})");
  {
    StateStore::WriteScope request(store);
    changed.doc = R"({"v":3})";
    ASSERT_TRUE(store.Update(changed));
    EXPECT_EQ(store.Rows().Get(key)->doc, R"({"v":3})");
  }  // rolled back: version 2 again
  EXPECT_EQ(store.Rows().Get(key)->doc, R"({"v":2})");
  EXPECT_EQ(store.Rows().Get(key)->status, "InService");
  ASSERT_TRUE(store.Delete(key));
  EXPECT_FALSE(store.Rows().Get(key).has_value());
  ASSERT_TRUE(store.Insert(Row("m", 2000), {}));
  ASSERT_TRUE(store.Rows().Get(key).has_value());
  store.DeleteEverything();
  EXPECT_FALSE(store.Rows().Get(key).has_value());
}

// GetDecoded keeps what a codec made of a row with the row: decoded once per stored version, and
// gone with that version after a write or a reset.
TEST(StateStore, DecodedValuesAreKeptWithTheirRowAndNeverStale) {
  StateStore store(":memory:");
  const ResourceKey key{"111111111111", "us-east-1", "model", "m"};
  int decodes = 0;
  auto decode = [&decodes](const ResourceRow& row) {
    ++decodes;
    return row.doc;
  };
  EXPECT_FALSE(store.Rows().GetDecoded<std::string>(key, decode).has_value())
      << "no row, nothing kept";
  ASSERT_TRUE(store.Insert(Row("m", 1000), {}));
  EXPECT_EQ(store.Rows().GetDecoded<std::string>(key, decode), "{}");
  EXPECT_EQ(store.Rows().GetDecoded<std::string>(key, decode), "{}");
  EXPECT_EQ(decodes, 1) << "a second read of the same version decodes nothing";
  struct Length {
    std::size_t value;
  };
  EXPECT_EQ(
      store.Rows()
          .GetDecoded<Length>(key, [](const ResourceRow& row) { return Length{row.doc.size()}; })
          ->value,
      2u)
      << "each type has its own value";

  ResourceRow changed = *store.Rows().Get(key);
  changed.doc = R"({"v":2})";
  ASSERT_TRUE(store.Update(changed));
  EXPECT_EQ(store.Rows().GetDecoded<std::string>(key, decode), R"({"v":2})");
  {
    StateStore::WriteScope request(store);
    changed.doc = R"({"v":3})";
    ASSERT_TRUE(store.Update(changed));
    EXPECT_EQ(store.Rows().GetDecoded<std::string>(key, decode), R"({"v":3})");
  }  // rolled back
  EXPECT_EQ(store.Rows().GetDecoded<std::string>(key, decode), R"({"v":2})");
  EXPECT_EQ(decodes, 3) << "the version a rollback puts back keeps what was decoded of it";
  // A codec that cannot read the row keeps nothing: the next read tries again.
  auto unreadable = [](const ResourceRow&) -> int { throw std::runtime_error("corrupt"); };
  EXPECT_THROW(store.Rows().GetDecoded<int>(key, unreadable), std::runtime_error);
  EXPECT_THROW(store.Rows().GetDecoded<int>(key, unreadable), std::runtime_error);
  store.DeleteEverything();
  EXPECT_FALSE(store.Rows().GetDecoded<std::string>(key, decode).has_value());
}

// A listing's rows share that cache: a page listed again is not decoded again, and a write still
// drops what was decoded of the row it changes.
TEST(StateStore, RowsAListingReadKeepWhatWasDecodedOfThem) {
  StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(Row("a", 1000), {}));
  ASSERT_TRUE(store.Insert(Row("b", 2000), {}));
  int decodes = 0;
  auto decode = [&decodes](const ResourceRow& row) {
    ++decodes;
    return row.doc + row.key.name;
  };
  ListQuery query;
  query.account = "111111111111";
  query.region = "us-east-1";
  query.kind = "model";
  auto decode_page = [&] {
    std::vector<std::string> values;
    for (const KeptRowPtr& row : store.Rows().List(query).kept) {
      values.push_back(*store.Rows().DecodedRow<std::string>(*row, decode));
    }
    return values;
  };
  EXPECT_THAT(decode_page(), ::testing::ElementsAre("{}b", "{}a"));
  EXPECT_THAT(decode_page(), ::testing::ElementsAre("{}b", "{}a"));
  EXPECT_EQ(decodes, 2) << "the second page decoded nothing";
  EXPECT_EQ(
      store.Rows().GetDecoded<std::string>({"111111111111", "us-east-1", "model", "a"}, decode),
      "{}a");
  EXPECT_EQ(decodes, 2) << "a lookup by key finds what the listing decoded";

  // A page shares the rows the store keeps rather than copying them: a page listed again holds
  // the same rows, and one held across a write keeps the row as it was read.
  const ListPage before = store.Rows().List(query);
  ASSERT_EQ(before.kept.size(), 2u);
  EXPECT_EQ(before.kept[0], store.Rows().List(query).kept[0]);

  ResourceRow changed = *store.Rows().Get({"111111111111", "us-east-1", "model", "b"});
  changed.doc = R"({"v":2})";
  ASSERT_TRUE(store.Update(changed));
  EXPECT_THAT(decode_page(), ::testing::ElementsAre(R"({"v":2}b)", "{}a"));
  EXPECT_EQ(decodes, 3) << "only the row written is decoded again";
  EXPECT_EQ(before.kept[0]->row().doc, "{}");
  EXPECT_NE(before.kept[0], store.Rows().List(query).kept[0]);
  EXPECT_EQ(before.kept[1], store.Rows().List(query).kept[1]);
}

TEST(StateStore, MigratesANewDatabaseToTheLatestVersion) {
  StateStore store(":memory:");
  EXPECT_GE(store.SchemaVersion(), 1);
  EXPECT_EQ(store.IntegrityCheck(), "ok");
}

TEST(StateStore, InsertGetDeleteIgnoringNameCase) {
  StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(Row("My-Model", 1000), {{"team", "ml"}}));
  EXPECT_FALSE(store.Insert(Row("my-model", 2000), {}));  // same ARN: a duplicate
  const auto row = store.Rows().Get({"111111111111", "us-east-1", "model", "MY-MODEL"});
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->key.name, "My-Model");
  EXPECT_EQ(row->created, At(1000));
  EXPECT_EQ(store.Rows().GetTags(row->arn), (Tags{{"team", "ml"}}));
  EXPECT_TRUE(store.Delete({"111111111111", "us-east-1", "model", "my-model"}));
  EXPECT_FALSE(store.Rows().Get({"111111111111", "us-east-1", "model", "my-model"}).has_value());
  EXPECT_TRUE(store.Rows().GetTags(row->arn).empty());
  EXPECT_FALSE(store.Delete({"111111111111", "us-east-1", "model", "my-model"}));
}

TEST(StateStore, UpdateChangesStatusDocAndModifiedTime) {
  StateStore store(":memory:");
  ResourceRow row = Row("m", 1000);
  ASSERT_TRUE(store.Insert(row, {}));
  row.status = "InService";
  row.modified = At(5000);
  row.doc = R"({"x":1})";
  EXPECT_TRUE(store.Update(row));
  const auto stored = store.Rows().Get(row.key);
  EXPECT_EQ(stored->status, "InService");
  EXPECT_EQ(stored->modified, At(5000));
  EXPECT_EQ(stored->created, At(1000));
  EXPECT_EQ(stored->doc, R"({"x":1})");
  row.key.name = "missing";
  EXPECT_FALSE(store.Update(row));
}

// AllOfKind reads each account's and region's rows as one range of the table's key (Scopes),
// then orders them all by creation time, status, and key: the order the dashboard has shown.
TEST(StateStore, AllOfKindOrdersEveryScopesRowsByCreationStatusAndKey) {
  StateStore store(":memory:");
  auto row = [](const std::string& name, long long ms, const std::string& status,
                const std::string& account, const std::string& region) {
    ResourceRow made = Row(name, ms, account, region);
    made.status = status;
    return made;
  };
  for (const ResourceRow& made : {row("late", 3000, "A", "111111111111", "us-east-1"),
                                  row("b", 1000, "Stopped", "222222222222", "eu-west-1"),
                                  row("a", 1000, "Stopped", "222222222222", "eu-west-1"),
                                  row("z", 1000, "Failed", "111111111111", "us-west-2"),
                                  row("c", 1000, "Stopped", "111111111111", "us-west-2")}) {
    ASSERT_TRUE(store.Insert(made, {}));
  }
  ResourceRow other_kind = Row("first", 0);
  other_kind.key.kind = "endpoint";
  ASSERT_TRUE(store.Insert(other_kind, {}));
  using Scope = std::pair<std::string, std::string>;
  EXPECT_EQ(store.Rows().Scopes(), (std::vector<Scope>{{"111111111111", "us-east-1"},
                                                       {"111111111111", "us-west-2"},
                                                       {"222222222222", "eu-west-1"}}));
  std::vector<std::string> names;
  for (const KeptRowPtr& read : store.Rows().AllOfKind("model")) {
    names.push_back(read->row().key.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"z", "c", "a", "b", "late"}));
  names.clear();
  for (const KeptRowPtr& read : store.Rows().AllOfKind("model", "Stopped")) {
    names.push_back(read->row().key.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"c", "a", "b"}));
}

TEST(StateStore, AccountsAndRegionsAreSeparate) {
  StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(Row("m", 1000, "111111111111"), {}));
  EXPECT_FALSE(store.Rows().Get({"222222222222", "us-east-1", "model", "m"}).has_value());
  EXPECT_FALSE(store.Rows().Get({"111111111111", "us-west-2", "model", "m"}).has_value());
  EXPECT_TRUE(RowsOf(store.Rows().List(Query("222222222222"))).empty());
}

TEST(StateStore, ListSortsFiltersAndPagesWithoutGapsOrRepeats) {
  StateStore store(":memory:");
  // Two rows share a creation time: the name breaks the tie.
  for (const auto& [name, ms] : std::vector<std::pair<std::string, long long>>{
           {"alpha", 1000}, {"bravo", 2000}, {"charlie", 2000}, {"delta", 3000}, {"echo", 4000}}) {
    ASSERT_TRUE(store.Insert(Row(name, ms), {}));
  }
  ListQuery query = Query();
  query.limit = 2;
  std::vector<std::string> seen;
  while (true) {
    const ListPage page = store.Rows().List(query);
    for (const auto& row : RowsOf(page)) seen.push_back(row.key.name);
    if (!page.has_more) break;
    query.after = ListQuery::Cursor{RowsOf(page).back().created.time_since_epoch().count(),
                                    NameKey(RowsOf(page).back().key.name)};
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"echo", "delta", "charlie", "bravo", "alpha"}));

  ListQuery by_name = Query();
  by_name.sort = SortField::kName;
  by_name.descending = false;
  by_name.name_contains = "A";  // case-insensitive
  by_name.created_after = At(1000);
  by_name.created_before = At(4000);
  std::vector<std::string> names;
  for (const auto& row : RowsOf(store.Rows().List(by_name))) names.push_back(row.key.name);
  EXPECT_EQ(names, (std::vector<std::string>{"bravo", "charlie", "delta"}));
}

// A filtered page picks its keys from the index before it takes its rows: its positions and its
// cursor must page through names whose creation times tie, without gaps or repeats, and its
// rows must be whole.
TEST(StateStore, AFilteredListPagesThroughTiedCreationTimes) {
  StateStore store(":memory:");
  for (const auto& [name, ms] : std::vector<std::pair<std::string, long long>>{
           {"a-1", 1000}, {"b-2", 2000}, {"x", 2000}, {"c-2", 2000}, {"d-3", 3000}}) {
    ASSERT_TRUE(store.Insert(Row(name, ms), {}));
  }
  for (const bool descending : {true, false}) {
    SCOPED_TRACE(::testing::Message() << "descending " << descending);
    ListQuery query = Query();
    query.descending = descending;
    query.name_contains = "-";
    query.limit = 1;
    std::vector<std::string> seen;
    for (int pages = 0; pages < 10; ++pages) {  // a cursor that does not move fails, not hangs
      const ListPage page = store.Rows().List(query);
      ASSERT_EQ(RowsOf(page).size(), page.positions.size());
      for (const auto& row : RowsOf(page)) {
        seen.push_back(row.key.name);
        EXPECT_EQ(row, store.Rows().Get(row.key).value());
      }
      if (!page.has_more) break;
      query.after = page.positions.back();
    }
    const std::vector<std::string> ascending{"a-1", "b-2", "c-2", "d-3"};
    EXPECT_EQ(seen, descending ? std::vector<std::string>(ascending.rbegin(), ascending.rend())
                               : ascending);
  }
}

// NameContains pages in creation order come from the store's name index (trigram posting lists)
// when the pattern is three bytes or more. Whatever the writes, rollbacks and bounds, every page
// must hold what a scan of every row would give, in the same order, and continue without gaps or
// repeats.
TEST(StateStore, NameContainsPagesMatchAScanOfEveryRowThroughWritesAndRollbacks) {
  StateStore store(":memory:");
  std::map<std::string, long long> created;  // the rows there are, by name
  std::mt19937 random(7);                    // NOLINT(cert-msc51-cpp): the same names every run
  const auto random_name = [&random] {
    static const std::string kLetters = "abAB-1";  // few letters: many names share trigrams
    std::string name = "m";
    for (int length = 2 + static_cast<int>(random() % 6); length > 0; --length) {
      name += kLetters[random() % kLetters.size()];
    }
    return name;
  };
  // Only new names: a refused insert rolls back, and a rollback makes the store build the index
  // again, which would leave its upkeep by inserts and deletes untested.
  const auto insert = [&](const std::string& name, long long ms) {
    if (created.count(NameKey(name)) != 0) return;
    ASSERT_TRUE(store.Insert(Row(name, ms), {}));
    created[NameKey(name)] = ms;
  };
  const auto expect_pages_match_a_scan = [&](const std::string& when) {
    for (const std::string pattern : {"ab", "-1a", "AbA", "m-", "bab", "zzz", "mab1"}) {
      for (const bool descending : {true, false}) {
        for (const auto& [after, before] : std::vector<std::pair<long long, long long>>{
                 {-1, -1}, {40, -1}, {-1, 120}, {30, 90}}) {
          SCOPED_TRACE(::testing::Message() << when << ": NameContains " << pattern
                                            << (descending ? " descending" : " ascending")
                                            << ", created in (" << after << ", " << before << ")");
          std::vector<std::pair<long long, std::string>> expected;
          for (const auto& [name, ms] : created) {
            if (NameKey(name).find(NameKey(pattern)) == std::string::npos) continue;
            if ((after >= 0 && ms <= after) || (before >= 0 && ms >= before)) continue;
            expected.emplace_back(ms, name);
          }
          std::sort(expected.begin(), expected.end());
          if (descending) std::reverse(expected.begin(), expected.end());
          ListQuery query = Query();
          query.name_contains = pattern;
          query.descending = descending;
          if (after >= 0) query.created_after = At(after);
          if (before >= 0) query.created_before = At(before);
          query.limit = 7;
          std::vector<std::pair<long long, std::string>> seen;
          for (int pages = 0; pages < 100; ++pages) {  // a cursor that does not move fails
            const ListPage page = store.Rows().List(query);
            ASSERT_EQ(page.kept.size(), page.positions.size());
            for (const ResourceRow& row : RowsOf(page)) {
              seen.emplace_back(row.created.time_since_epoch().count(), NameKey(row.key.name));
              EXPECT_EQ(row.doc, "{}");
              EXPECT_EQ(row.arn, Row(row.key.name, 0).arn);
            }
            if (!page.has_more) break;
            query.after = page.positions.back();
          }
          EXPECT_EQ(seen, expected);
        }
      }
    }
  };
  // Creation times tie often and do not follow the order of the inserts.
  for (int i = 0; i < 200; ++i) insert(random_name(), static_cast<long long>(random() % 150));
  expect_pages_match_a_scan("first listing");  // builds the index from the rows

  for (int i = 0; i < 60; ++i) insert(random_name(), static_cast<long long>(random() % 150));
  int deleted = 0;
  for (auto it = created.begin(); it != created.end() && deleted < 40; ++deleted) {
    ASSERT_TRUE(store.Delete({"111111111111", "us-east-1", "model", it->first}));
    it = created.erase(it);
    std::advance(it, std::min<long>(2, std::distance(it, created.end())));
  }
  // A name deleted and created again is listed once, where its new creation time puts it.
  const std::string again = created.begin()->first;
  ASSERT_TRUE(store.Delete({"111111111111", "us-east-1", "model", again}));
  created.erase(again);
  insert(again, 149);
  expect_pages_match_a_scan("after inserts and deletes");

  {
    StateStore::WriteScope request(store);
    ASSERT_TRUE(store.Insert(Row("mabab-lost", 60), {}));
    ASSERT_TRUE(store.Delete({"111111111111", "us-east-1", "model", again}));
  }  // rolled back: the insert and the delete are undone
  expect_pages_match_a_scan("after a rollback");
  // Other scopes are listed apart.
  ASSERT_TRUE(store.Insert(Row("mabab-other-account", 60, "222222222222"), {}));
  expect_pages_match_a_scan("after an insert in another account");
}

// Found by fuzz_control_plane (ListTrainingJobs with TrainingPlanArnEquals lists everything and
// filters afterwards): the page limit plus one overflowed an int.
TEST(StateStore, TheLargestLimitListsEverything) {
  StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(Row("alpha", 1000), {}));
  ASSERT_TRUE(store.Insert(Row("bravo", 2000), {}));
  ListQuery query = Query();
  query.limit = std::numeric_limits<int>::max();
  const ListPage page = store.Rows().List(query);
  EXPECT_EQ(RowsOf(page).size(), 2u);
  EXPECT_FALSE(page.has_more);
}

TEST(StateStore, AWriteScopeMakesARequestAllOrNothing) {
  StateStore store(":memory:");
  {
    StateStore::WriteScope request(store);
    ASSERT_TRUE(store.Insert(Row("kept", 1000), {}));
    EXPECT_FALSE(store.Insert(Row("KEPT", 2000), {})) << "a refused insert undoes only itself";
    store.PutSetting("k", "v");
    request.Commit();
  }
  EXPECT_TRUE(store.Rows().Get({"111111111111", "us-east-1", "model", "kept"}));
  EXPECT_EQ(store.Rows().GetSetting("k"), "v");
  {
    StateStore::WriteScope request(store);
    ASSERT_TRUE(store.Insert(Row("lost", 3000), {}));
    ASSERT_TRUE(store.Delete({"111111111111", "us-east-1", "model", "kept"}));
  }  // no Commit(): as if the request threw
  EXPECT_FALSE(store.Rows().Get({"111111111111", "us-east-1", "model", "lost"}));
  EXPECT_TRUE(store.Rows().Get({"111111111111", "us-east-1", "model", "kept"}));
  // The store works normally afterwards, with and without a scope.
  EXPECT_TRUE(store.Insert(Row("after", 4000), {}));
  EXPECT_EQ(store.IntegrityCheck(), "ok");
}

TEST(StateStore, SettingsAndDeleteEverything) {
  StateStore store(":memory:");
  EXPECT_FALSE(store.Rows().GetSetting("k").has_value());
  store.PutSetting("k", "v1");
  store.PutSetting("k", "v2");
  EXPECT_EQ(store.Rows().GetSetting("k"), "v2");
  ASSERT_TRUE(store.Insert(Row("m", 1), {{"a", "b"}}));
  store.DeleteEverything();
  EXPECT_FALSE(store.Rows().GetSetting("k").has_value());
  EXPECT_TRUE(RowsOf(store.Rows().List(Query())).empty());
}

TEST(StateStore, EverythingSurvivesReopeningTheFile) {
  testing::TempDbPath path;
  {
    StateStore store(path.str());
    ASSERT_TRUE(store.Insert(Row("kept", 1234), {{"k", "v"}}));
    store.PutSetting("clock", "x");
  }
  StateStore reopened(path.str());
  const auto row = reopened.Rows().Get({"111111111111", "us-east-1", "model", "kept"});
  ASSERT_TRUE(row.has_value());
  EXPECT_EQ(row->created, At(1234));
  EXPECT_EQ(reopened.Rows().GetTags(row->arn).size(), 1u);
  EXPECT_EQ(reopened.Rows().GetSetting("clock"), "x");
  EXPECT_EQ(reopened.IntegrityCheck(), "ok");
}

// Creating a file, migrating it and the owner's start-up writes flush nothing; the first write
// after start-up flushes the WAL and, once, the new file itself (without its first page, SQLite
// would take the file for empty and delete the WAL). Later writes flush only the WAL.
TEST(StateStore, ANewFileIsFlushedAtTheFirstWriteAfterStartup) {
  testing::TempDbPath path;
  SyncCounter syncs;
  StateStore store(path.str());
  store.PutSetting("clock", "at start");
  store.EndStartup();
  EXPECT_EQ(syncs.Total(), 0);
  store.PutSetting("k", "v");
  EXPECT_EQ(syncs.Of("-wal"), 1);
  EXPECT_EQ(syncs.Of(""), 1);
  ASSERT_TRUE(store.Insert(Row("m", 1), {}));
  EXPECT_EQ(syncs.Of("-wal"), 2);
  EXPECT_EQ(syncs.Of(""), 1);
  EXPECT_EQ(syncs.Of("-journal"), 0);
}

TEST(StateStore, AnExistingFileIsFlushedOnlyByWritesAfterStartup) {
  testing::TempDbPath path;
  {
    StateStore store(path.str());
    ASSERT_TRUE(store.Insert(Row("kept", 1), {}));
  }
  SyncCounter syncs;
  {
    StateStore store(path.str());
    store.PutSetting("clock", "at start");
    store.EndStartup();
    EXPECT_EQ(syncs.Total(), 0);
    store.PutSetting("k", "v");
    EXPECT_EQ(syncs.Of("-wal"), 1);
    EXPECT_EQ(syncs.Of(""), 0);
  }
  // Closing checkpoints the WAL into the file, flushed.
  EXPECT_EQ(syncs.Of(""), 1);
  StateStore reopened(path.str());
  EXPECT_TRUE(reopened.Rows().Get({"111111111111", "us-east-1", "model", "kept"}));
  EXPECT_EQ(reopened.Rows().GetSetting("k"), "v");
  EXPECT_EQ(reopened.IntegrityCheck(), "ok");
}

// A store closed before start-up ended (a failed start) checkpoints with flushes all the same.
TEST(StateStore, ClosingDuringStartupFlushesWhatItCheckpoints) {
  testing::TempDbPath path;
  SyncCounter syncs;
  {
    StateStore store(path.str());
    store.PutSetting("clock", "at start");
  }
  EXPECT_GE(syncs.Of("-wal"), 1);
  EXPECT_GE(syncs.Of(""), 1);
  StateStore reopened(path.str());
  EXPECT_EQ(reopened.Rows().GetSetting("clock"), "at start");
}

TEST(StateStore, RefusesADatabaseFromANewerBuild) {
  testing::TempDbPath path;
  { StateStore store(path.str()); }
  // A later build's migration would have raised user_version past what this build knows.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.str().c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "PRAGMA user_version = 999", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  EXPECT_THROW(StateStore store(path.str()), std::runtime_error);
}

TEST(StateStore, UnopenablePathIsAReadableStartupError) {
  try {
    StateStore store("/nonexistent-dir/x/y.db");
    FAIL() << "expected an exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x/y.db"), std::string::npos);
  }
}

}  // namespace
}  // namespace smemu::store
