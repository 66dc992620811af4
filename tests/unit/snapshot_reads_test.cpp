// Reads run on an immutable version of the state (store/tables.hpp, ops/emulator.hpp): a version a
// reader holds never changes, a transaction rolled back installs nothing, and a Describe, a List
// or an invocation answers while a write holds the request lock.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ops/edit.hpp"
#include "store/state_store.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants

const store::ResourceKey kModel{"123456789012", "us-west-2", "model", "m"};

store::ResourceRow ModelRow(const std::string& name, const std::string& status = "") {
  return {
      {"123456789012", "us-west-2", "model", name}, "arn:" + name, status, kStart, kStart, "{}"};
}

TEST(Tables, AVersionAReaderHoldsNeverChanges) {
  store::StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(ModelRow("m"), {{"k", "v"}}));
  const store::Tables held = store.Rows();  // what a reader took

  store::ResourceRow changed = ModelRow("m", "Changed");
  changed.doc = R"({"changed":true})";
  ASSERT_TRUE(store.Update(changed));
  store.PutTags("arn:m", {{"k", "w"}, {"k2", "x"}});
  ASSERT_TRUE(store.Insert(ModelRow("n"), {}));
  store.PutSetting("s", "1");

  EXPECT_EQ(held.Get(kModel)->doc, "{}");
  EXPECT_EQ(held.Get(kModel)->status, "");
  EXPECT_EQ(held.GetTags("arn:m"), (store::Tags{{"k", "v"}}));
  EXPECT_FALSE(held.Get({"123456789012", "us-west-2", "model", "n"}));
  EXPECT_FALSE(held.GetSetting("s"));
  EXPECT_EQ(held.AllOf("123456789012", "us-west-2", "model").size(), 1u);

  EXPECT_EQ(store.Rows().Get(kModel)->status, "Changed");
  EXPECT_EQ(store.Rows().GetTags("arn:m"), (store::Tags{{"k", "w"}, {"k2", "x"}}));
  ASSERT_TRUE(store.Delete(kModel));
  EXPECT_TRUE(held.Get(kModel)) << "a deletion leaves the held version as it was";
  EXPECT_FALSE(store.Rows().Get(kModel));
  EXPECT_TRUE(store.Rows().GetTags("arn:m").empty()) << "the tags go with the row";
}

// A row's kept values are found without a lock: threads decoding one row at once all get the one
// value kept first (run under ThreadSanitizer in CI).
TEST(Tables, ThreadsDecodingOneRowAtOnceShareTheValueKeptFirst) {
  store::StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(ModelRow("m"), {}));
  const store::Tables held = store.Rows();
  std::atomic<int> made{0};
  auto decode = [&made](const store::ResourceRow& row) {
    ++made;
    return row.arn + "/decoded";
  };
  std::vector<std::future<const std::string*>> readers;
  for (int i = 0; i < 8; ++i) {
    readers.push_back(std::async(std::launch::async, [&] {
      const std::string* first = nullptr;
      for (int round = 0; round < 200; ++round) {
        const std::shared_ptr<const std::string> value =
            held.GetDecodedShared<std::string>(kModel, decode);
        if (first == nullptr) first = value.get();
        if (value.get() != first) return static_cast<const std::string*>(nullptr);
      }
      return first;
    }));
  }
  const std::string* kept = nullptr;
  for (auto& reader : readers) {
    const std::string* seen = reader.get();
    ASSERT_NE(seen, nullptr) << "a reader saw two values";
    if (kept == nullptr) kept = seen;
    EXPECT_EQ(seen, kept) << "two readers kept different values";
  }
  EXPECT_EQ(*kept, "arn:m/decoded");
  EXPECT_GE(made.load(), 1);
  EXPECT_LE(made.load(), 8) << "each reader makes it at most once, the first time it asks";
}

// The tables' keys are views of strings their entries keep: replacing a tag list or a plan's
// capacity (whose start is in a key) leaves no view of what was replaced.
TEST(Tables, ReplacedTagsAndPlansKeepTheirKeysWithThem) {
  store::StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(ModelRow("m"), {{"a", "1"}}));
  for (int i = 0; i < 50; ++i) store.PutTags("arn:m", {{"k" + std::to_string(i), "v"}});
  EXPECT_EQ(store.Rows().GetTags("arn:m").size(), 51u);
  EXPECT_EQ(store.Rows().GetTags("arn:m").front(), (std::pair<std::string, std::string>{"a", "1"}));
  const store::ResourceKey plan_key{"123456789012", "us-west-2", "training-plan", "P"};
  store::PlanCapacity plan;
  plan.arn = "arn:plan";
  for (int i = 0; i < 50; ++i) {
    plan.start = kStart + std::chrono::hours(i);
    store.PutPlanCapacity(plan_key, plan);
  }
  const std::vector<store::PlanCapacity> plans = store.Rows().AllPlanCapacity();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].start, kStart + std::chrono::hours(49));
}

TEST(Tables, ARolledBackTransactionPutsTheRowsBack) {
  store::StateStore store(":memory:");
  ASSERT_TRUE(store.Insert(ModelRow("m"), {}));
  const long long changes = store.Rows().TotalChanges();
  {
    store::StateStore::WriteScope request(store);
    ASSERT_TRUE(store.Insert(ModelRow("n"), {}));
    ASSERT_TRUE(store.Delete(kModel));
    store.PutSetting("s", "1");
    EXPECT_FALSE(store.Rows().Get(kModel)) << "inside the transaction, its writes show";
  }  // not committed: rolled back
  EXPECT_TRUE(store.Rows().Get(kModel));
  EXPECT_FALSE(store.Rows().Get({"123456789012", "us-west-2", "model", "n"}));
  EXPECT_FALSE(store.Rows().GetSetting("s"));
  EXPECT_EQ(store.Rows().TotalChanges(), changes);
}

TEST(Tables, AStoreOpenedAgainHoldsWhatItWrote) {
  const std::string path = ::testing::TempDir() + "/tables-reopened.db";
  std::remove(path.c_str());
  store::PlanCapacity plan;
  plan.arn = "arn:plan";
  plan.region = "us-west-2";
  plan.availability_zone = "us-west-2a";
  plan.instance_type = "ml.p5.48xlarge";
  plan.instance_count = 2;
  plan.start = kStart;
  plan.end = kStart + Millis{3'600'000};
  plan.second = store::PlanCapacity::SecondBlock{kStart + Millis{1'000}, kStart + Millis{2'000},
                                                 "us-west-2b"};
  const store::ResourceKey plan_key{"123456789012", "us-west-2", "training-plan", "Plan"};
  {
    store::StateStore store(path);
    ASSERT_TRUE(store.Insert(ModelRow("B"), {{"a", "1"}, {"b", "2"}}));
    ASSERT_TRUE(store.Insert(ModelRow("a"), {}));
    ASSERT_TRUE(store.Insert({plan_key, "arn:plan", "Active", kStart, kStart, "{}"}, {}));
    store.PutPlanCapacity(plan_key, plan);
    store.PutTags("arn:B", {{"c", "3"}});
    store.PutSetting("s", "1");
  }
  store::StateStore reopened(path);
  const store::Tables& rows = reopened.Rows();
  const auto models = rows.AllOf("123456789012", "us-west-2", "model");
  ASSERT_EQ(models.size(), 2u);
  EXPECT_EQ(models[0]->row().key.name, "a") << "in name-key order";
  EXPECT_EQ(models[1]->row().key.name, "B");
  EXPECT_EQ(rows.GetTags("arn:B"), (store::Tags{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  EXPECT_EQ(rows.FindByArn("arn:plan")->key.name, "Plan");
  EXPECT_EQ(rows.AllPlanCapacity(), (std::vector<store::PlanCapacity>{plan}));
  EXPECT_EQ(rows.GetSetting("s"), "1");
  EXPECT_EQ(rows.CountByKindAndStatus().size(), 2u);
}

class SnapshotReads : public EmulatorFixture {};

TEST_F(SnapshotReads, ADescribeAndAListAnswerWhileAWriteHoldsTheLock) {
  Call("CreateModel", {{"ModelName", "m"},
                       {"ExecutionRoleArn", kRole},
                       {"PrimaryContainer", {{"Image", "123.dkr.ecr.us-west-2.amazonaws.com/i"}}}});
  std::promise<void> entered;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  emulator_->SetHandlerForTest(
      "CreateEndpointConfig",
      [&entered, released](const json&, ops::Context&) -> domain::Result<json> {
        entered.set_value();
        released.wait();  // holds the request lock until the test says
        return json{{"EndpointConfigArn", "arn:c"}};
      });
  const ops::Caller caller{kAccount, kRegion, ""};
  auto writer = std::async(std::launch::async, [&] {
    return emulator_->Invoke("CreateEndpointConfig", json::object(), caller).ok();
  });
  entered.get_future().wait();
  auto reader = std::async(std::launch::async, [&] {
    const bool described = emulator_->Invoke("DescribeModel", {{"ModelName", "m"}}, caller).ok();
    const bool listed = emulator_->Invoke("ListModels", json::object(), caller).ok();
    return described && listed;
  });
  const bool answered = reader.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  release.set_value();
  EXPECT_TRUE(answered) << "the reads waited for the write's lock";
  EXPECT_TRUE(reader.get());
  EXPECT_TRUE(writer.get());
}

TEST_F(SnapshotReads, AReadThatChangesSomethingIsServedAgainUnderTheLock) {
  Call("ListModels", json::object());  // settles: from here on, reads take the snapshot
  int runs = 0;
  emulator_->SetHandlerForTest("DescribeModel",
                               [&runs](const json&, ops::Context& ctx) -> domain::Result<json> {
                                 ++runs;
                                 ctx.edit.Add(ops::Edit::PutTags{"arn:x", {{"k", "v"}}});
                                 return json::object();
                               });
  ASSERT_TRUE(
      emulator_->Invoke("DescribeModel", {{"ModelName", "m"}}, ops::Caller{kAccount, kRegion, ""}));
  EXPECT_EQ(runs, 2) << "once on the snapshot, dropped; once under the lock, applied";
  EXPECT_EQ(store_.Rows().GetTags("arn:x"), (store::Tags{{"k", "v"}}));
}

TEST_F(SnapshotReads, AFailedWriteInstallsNothingAReaderSees) {
  Call("CreateModel", {{"ModelName", "m"},
                       {"ExecutionRoleArn", kRole},
                       {"PrimaryContainer", {{"Image", "123.dkr.ecr.us-west-2.amazonaws.com/i"}}}});
  emulator_->SetHandlerForTest(
      "DeleteModel", [](const json&, ops::Context& ctx) -> domain::Result<json> {
        ctx.edit.Add(ops::Edit::EraseModel{kModel});
        // The same model twice: the second insert cannot apply.
        const ops::ModelRecord other{
            {kAccount, kRegion, "model", "other"}, "arn:other", ctx.now, json::object()};
        ctx.edit.Add(ops::Edit::InsertModel{other, {}});
        ctx.edit.Add(ops::Edit::InsertModel{other, {}});
        return json::object();
      });
  Call("DeleteModel", {{"ModelName", "m"}}, 500);
  const json described = Call("DescribeModel", {{"ModelName", "m"}});
  EXPECT_EQ(described["ModelName"], "m");
  EXPECT_EQ(Call("ListModels", json::object())["Models"].size(), 1u);
}

TEST_F(SnapshotReads, AChangeAddedWhereNoneIsAppliedIsRefusedAndChangesNothing) {
  // An admin view reads; an admin change applies through its Applier. Either adding to the
  // context's own edit would be a change nobody applies.
  EXPECT_THROW(emulator_->Administer([](const ops::Context& ctx) {
    ctx.edit.Add(ops::Edit::PutTags{"arn:x", {{"k", "v"}}});
    return true;
  }),
               std::logic_error);
  EXPECT_THROW(emulator_->AdministerChange([](const ops::Context& ctx, ops::Applier&) {
    ctx.edit.Add(ops::Edit::PutTags{"arn:x", {{"k", "v"}}});
    return true;
  }),
               std::logic_error);
  EXPECT_TRUE(store_.Rows().GetTags("arn:x").empty());
  // The emulator serves on: the lock was let go.
  EXPECT_TRUE(Call("ListModels", json::object())["Models"].empty());
}

}  // namespace
}  // namespace smemu
