#include "store/group_commit.hpp"

#include <cerrno>
#include <cstring>

#include "log/log.hpp"

namespace smemu::store {

GroupCommitter::GroupCommitter(StateStore& store, CloseBatch close_batch, bool enabled)
    : store_(store), close_batch_(std::move(close_batch)) {
  if (!enabled || !store_.DeferSyncs()) return;
  synced_ = store_.CommittedWrites();  // earlier writes were committed and synced one by one
  thread_ = std::thread([this] { Run(); });
}

GroupCommitter::~GroupCommitter() {
  {
    MutexLock lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void GroupCommitter::WhenDurable(std::function<void(bool)> released) {
  const std::uint64_t committed = store_.CommittedWrites();
  {
    MutexLock lock(mutex_);
    if (!thread_.joinable() || committed <= synced_) {
      // Fall through to release outside the lock.
    } else {
      waiting_.emplace_back(committed, std::move(released));
      wake_.notify_one();
      return;
    }
  }
  released(true);
}

std::uint64_t GroupCommitter::Syncs() const {
  MutexLock lock(mutex_);
  return syncs_;
}

void GroupCommitter::Run() {
  MutexLock lock(mutex_);
  for (;;) {
    lock.Wait(wake_, [this]() SMEMU_REQUIRES(mutex_) { return stopping_ || !waiting_.empty(); });
    if (waiting_.empty()) return;  // stopping, and nobody waits
    // Everything written up to now rides on this commit and sync, including writes whose
    // requests have not asked to wait yet.
    lock.Unlock();
    const Batch batch = close_batch_();
    const std::uint64_t covered = batch.covers;
    const int error = batch.failure.empty() ? store_.SyncWrites() : EIO;
    if (!batch.failure.empty()) {
      log::Event(spdlog::level::err, "internal error",
                 {{"error", batch.failure + "; the batch of requests was rolled back and "
                                            "changed nothing, and each was answered 500"}});
    } else if (error != 0) {
      log::Event(spdlog::level::err, "syncing the write-ahead log failed",
                 {{"db", store_.Path()}, {"error", std::strerror(error)}});
    }
    lock.Lock();
    ++syncs_;
    if (error == 0) synced_ = std::max(synced_, covered);
    std::vector<std::function<void(bool)>> released;
    auto still_waiting = waiting_.begin();
    for (auto& [needs, callback] : waiting_) {
      if (needs <= covered) {
        released.push_back(std::move(callback));
      } else {
        *still_waiting++ = {needs, std::move(callback)};
      }
    }
    waiting_.erase(still_waiting, waiting_.end());
    lock.Unlock();
    for (auto& callback : released) callback(error == 0);
    lock.Lock();
  }
}

}  // namespace smemu::store
