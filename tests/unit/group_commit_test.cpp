#include "store/group_commit.hpp"

#include <gtest/gtest.h>

#include <future>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace smemu::store {
namespace {

ResourceRow Model(const std::string& name) {
  return {{"111111111111", "us-east-1", "model", name},
          "arn:aws:sagemaker:us-east-1:111111111111:model/" + name,
          "",
          TimePoint{Millis{1}},
          TimePoint{Millis{1}},
          "{}"};
}

// The committer of a store that only this thread uses.
GroupCommitter::CloseBatch Closing(StateStore& store) {
  return [&store] {
    const std::uint64_t covers = store.CommittedWrites();
    return GroupCommitter::Batch{covers, store.CommitBatch()};
  };
}

// Waits for one release and says whether it reported the writes durable.
bool Released(GroupCommitter& committer) {
  std::promise<bool> released;
  committer.WhenDurable([&released](bool durable) { released.set_value(durable); });
  return released.get_future().get();
}

TEST(GroupCommitter, AWriteIsReleasedOnlyAfterASyncCoveringIt) {
  testing::TempDbPath path;
  StateStore store(path.str());
  GroupCommitter committer(store, Closing(store));
  EXPECT_TRUE(Released(committer));  // nothing written yet: no sync needed
  EXPECT_EQ(committer.Syncs(), 0u);
  ASSERT_TRUE(store.Insert(Model("first"), {}));
  std::promise<std::uint64_t> syncs_when_released;
  committer.WhenDurable([&](bool durable) {
    EXPECT_TRUE(durable);
    syncs_when_released.set_value(committer.Syncs());
  });
  EXPECT_EQ(syncs_when_released.get_future().get(), 1u);
  EXPECT_TRUE(Released(committer));  // already durable: released at once, no second sync
  EXPECT_EQ(committer.Syncs(), 1u);
}

TEST(GroupCommitter, OneSyncCoversEveryTransactionCommittedBeforeIt) {
  testing::TempDbPath path;
  StateStore store(path.str());
  GroupCommitter committer(store, Closing(store));
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(store.Insert(Model("m" + std::to_string(i)), {}));
  std::vector<std::future<bool>> answers;
  std::vector<std::promise<bool>> releases(50);
  for (auto& release : releases) {
    answers.push_back(release.get_future());
    committer.WhenDurable([&release](bool durable) { release.set_value(durable); });
  }
  for (auto& answer : answers) EXPECT_TRUE(answer.get());
  EXPECT_EQ(committer.Syncs(), 1u);  // 50 transactions, one fdatasync
}

TEST(GroupCommitter, ConcurrentWritersAreAllReleasedAndShareSyncs) {
  testing::TempDbPath path;
  StateStore store(path.str());
  std::mutex store_lock;  // the store is single-threaded; the emulator serialises it the same way
  GroupCommitter committer(store, [&] {
    std::lock_guard lock(store_lock);
    const std::uint64_t covers = store.CommittedWrites();
    return GroupCommitter::Batch{covers, store.CommitBatch()};
  });
  constexpr int kThreads = 4;
  constexpr int kWrites = 100;
  std::vector<std::thread> writers;
  std::atomic<int> durable{0};
  for (int t = 0; t < kThreads; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < kWrites; ++i) {
        {
          std::lock_guard lock(store_lock);
          ASSERT_TRUE(store.Insert(Model("t" + std::to_string(t) + "-" + std::to_string(i)), {}));
        }
        if (Released(committer)) ++durable;
      }
    });
  }
  for (auto& writer : writers) writer.join();
  EXPECT_EQ(durable.load(), kThreads * kWrites);
  EXPECT_GE(committer.Syncs(), 1u);
  EXPECT_LE(committer.Syncs(), static_cast<std::uint64_t>(kThreads * kWrites));
  EXPECT_EQ(store.CommittedWrites(), static_cast<std::uint64_t>(kThreads * kWrites));
}

TEST(GroupCommitter, ReadsAndFailedWritesCountNoCommit) {
  StateStore store(":memory:");
  const std::uint64_t before = store.CommittedWrites();
  EXPECT_FALSE(store.Rows().Get({"111111111111", "us-east-1", "model", "none"}));
  ASSERT_TRUE(store.Insert(Model("once"), {}));
  EXPECT_FALSE(store.Insert(Model("once"), {}));  // a duplicate: rolled back, nothing written
  EXPECT_EQ(store.CommittedWrites(), before + 1);
}

TEST(GroupCommitter, AStoreInMemoryReleasesAtOnceOnTheCallersThread) {
  StateStore store(":memory:");
  GroupCommitter committer(store, Closing(store));
  ASSERT_TRUE(store.Insert(Model("m"), {}));
  std::thread::id released_on;
  committer.WhenDurable([&released_on](bool) { released_on = std::this_thread::get_id(); });
  EXPECT_EQ(released_on, std::this_thread::get_id());
  EXPECT_EQ(committer.Syncs(), 0u);
}

}  // namespace
}  // namespace smemu::store
