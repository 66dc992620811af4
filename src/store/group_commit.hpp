// GroupCommitter: acknowledges writes only once they are on disk, with one commit and one sync for
// many of them. A durable COMMIT used to write its pages and wait for its own fdatasync (about
// 2 ms here) while holding the lock every request needs, so writes went one at a time at the
// disk's pace. Now a request's writes go into the store's open batch (a savepoint), its answer
// waits, and one thread commits the batch, syncs the log and releases all those answers together.
//
// Thread-safe. The store must outlive it; its destructor commits, syncs and releases what still
// waits.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "smemu/mutex.hpp"
#include "store/state_store.hpp"

namespace smemu::store {

class GroupCommitter {
 public:
  struct Batch {
    std::uint64_t covers = 0;  // the store's CommittedWrites() when the batch was committed
    std::string failure;       // set when the batch's writes are lost (StateStore::CommitBatch)
  };
  // Commits the store's open batch, holding whatever lock serialises the store's users.
  using CloseBatch = std::function<Batch()>;

  // Puts the store in deferred-sync mode; a store that never needs syncing (":memory:",
  // read-only) is left as it is, and every answer is released at once. So it is when `enabled` is
  // false: for a tool that holds its own transaction around many requests (bench/seed_db), whose
  // writes are durable when that transaction commits.
  GroupCommitter(StateStore& store, CloseBatch close_batch, bool enabled = true);
  ~GroupCommitter();
  GroupCommitter(const GroupCommitter&) = delete;
  GroupCommitter& operator=(const GroupCommitter&) = delete;

  // Calls `released` once every write committed before this call is durable: at once when it
  // already is, otherwise from the committer's thread after its next sync. `durable` is false
  // when that sync failed (the disk refused it), and the write must not be acknowledged.
  void WhenDurable(std::function<void(bool durable)> released);

  // Syncs done so far (each covering every transaction committed before it began).
  std::uint64_t Syncs() const;

 private:
  void Run();

  StateStore& store_;
  const CloseBatch close_batch_;
  mutable Mutex mutex_;
  std::condition_variable wake_;
  // CommittedWrites() that the last successful sync covered.
  std::uint64_t synced_ SMEMU_GUARDED_BY(mutex_) = 0;
  std::uint64_t syncs_ SMEMU_GUARDED_BY(mutex_) = 0;
  std::vector<std::pair<std::uint64_t, std::function<void(bool)>>> waiting_
      SMEMU_GUARDED_BY(mutex_);
  bool stopping_ SMEMU_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // started only when the store defers its syncs
};

}  // namespace smemu::store
