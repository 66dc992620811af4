// StateStore: the emulator's durable state in one SQLite database (a file, or ":memory:").
// Opening applies the numbered migrations in schemas/ (embedded in the binary) that the file has
// not seen yet, tracked with PRAGMA user_version. Every mutation runs in one transaction. Knows
// nothing of HTTP or of AWS request shapes; resources are rows with a JSON document as text.
// Every row is also kept in memory (Tables), loaded once at open: reads are answered from there,
// and the database is written, never read again but for the holdings log.
//
// Thread-safety: none. The single owner (ops::Emulator) serialises all calls; other threads read
// copies of Rows() (see store/tables.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "smemu/clock.hpp"
#include "store/rows.hpp"
#include "store/tables.hpp"

namespace SQLite {
class Database;
class Statement;
}  // namespace SQLite
struct sqlite3;

namespace smemu::store {

class StateStore {
 public:
  // Opens (creating if needed) the database at `path` and migrates it. Throws std::runtime_error
  // with a message naming the file on failure: a start-up error.
  //
  // The store opens in start-up mode: commits are not synced to disk and no checkpoint runs, so
  // that opening a database and the owner's own start-up writes (its persisted settings) cost no
  // disk flush. A crash before the first synced commit may lose them, never corrupt the file (WAL
  // frames are checksummed; the file itself is not written until a checkpoint).
  explicit StateStore(const std::string& path);
  // Ends start-up mode (if the destructor has to, it does so itself).
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  // True when the file could only be opened for reading (its permissions or its file system).
  // Reads are served; every write fails with a StoreFailure.
  bool ReadOnly() const { return read_only_; }
  // True when the database rolled back the open group-commit batch (a full disk, an I/O error):
  // the writes of the requests before, in that batch, are gone with it, and the rows in memory
  // were loaded again from what the database still has. Until CommitBatch() reports it.
  bool BatchLost() const { return batch_lost_; }
  const std::string& Path() const { return path_; }

  // Ends start-up mode: from now on every commit is synced before it returns (synchronous=FULL),
  // and the first one makes everything written before it durable too, in the same flush of the
  // WAL (for a file this open created, the first commit also flushes the file itself). Call when
  // the start-up writes are done, before acknowledging any write.
  void EndStartup();

  // Rethrows the exception in flight; one raised by SQLite becomes a StoreFailure naming the file.
  [[noreturn]] void RethrowNamingTheFile() const;

  // Schema version after migrations (the highest migration number applied).
  int SchemaVersion() const;

  // Every row, as the last write left it (inside a WriteScope: with that scope's writes). Read
  // by one thread with the writes; another thread takes a copy made outside any WriteScope: a
  // version that never changes (see store/tables.hpp).
  const Tables& Rows() const { return tables_; }

  // Inserts the row and its tags in one transaction. Returns false if the key already exists.
  bool Insert(const ResourceRow& row, const Tags& tags);
  // Inserts all rows (with their tags) in one transaction, or none when any key already exists.
  bool InsertAll(const std::vector<std::pair<ResourceRow, Tags>>& rows);
  // Sets what the resource `key` (ARN capacity.arn) reserves, for Tables::AllPlanCapacity and the
  // window sorts and filters of Tables::List (ListQuery::plan). The caller writes it with the
  // resource's row, in the same write scope; deleting the row deletes it.
  void PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity);
  // Replaces status, modified time and doc of an existing row. Returns false if it is missing.
  bool Update(const ResourceRow& row);
  // Deletes the row and its tags in one transaction. Returns false if it was missing.
  bool Delete(const ResourceKey& key);
  // Sets each (key, value) of `tags` on `arn` in one transaction: a key it has keeps its position
  // and takes the new value; a new key goes after the last one. A key repeated in `tags` ends with
  // its last value. Does not check that a resource has this ARN.
  void PutTags(const std::string& arn, const Tags& tags);
  // Removes the tags of `arn` with these keys in one transaction; keys it does not have are
  // ignored. Returns how many tags were removed.
  int DeleteTags(const std::string& arn, const std::vector<std::string>& keys);

  // The holdings log. From `at` on, the resource `key` (ARN `arn`) holds `holds` and nothing else:
  // the stretches it had open end at `at` (those that began at `at` or later are dropped, as they
  // never held anything), and one opens per entry of `holds` with a positive count.
  void LogHolds(const ResourceKey& key, const std::string& arn, const std::vector<HeldCount>& holds,
                TimePoint at);
  // Every stretch that overlaps [from, to) (open ones overlap everything after their start), of
  // one account or of all, in the order they were logged.
  std::vector<HeldStretch> HeldBetween(TimePoint from, TimePoint to,
                                       const std::optional<std::string>& account = {}) const;
  // The stretches still open, of every resource.
  std::vector<HeldStretch> HeldNow() const;
  // Forgets the history after `at`: for a clock set back, so that what happens again is not
  // counted twice. Stretches that began after `at` go; those running past it end at it.
  void CutHoldingsLogAt(TimePoint at);

  void PutSetting(const std::string& key, const std::string& value);

  // Deletes every resource, tag and setting of every account in one transaction.
  void DeleteEverything();

  // Rows inserted, updated or deleted through this store since it opened: when it has not moved,
  // nothing was written (sqlite3_total_changes).
  long long TotalChanges() const;

  // Result of PRAGMA integrity_check ("ok" when healthy).
  std::string IntegrityCheck() const;

  // Group commit. By default every WriteScope is a transaction of its own whose COMMIT waits for
  // the disk (synchronous=FULL). After DeferSyncs(), WriteScopes become savepoints inside one
  // open batch transaction: a page that many requests change (an index leaf) is written once per
  // batch, not once per request. CommitBatch() writes the batch to the write-ahead log and
  // SyncWrites() makes it durable with one fdatasync (GroupCommitter does both on its own thread
  // while requests go on). Returns false for a database that never needs syncing (":memory:",
  // read-only): such a store stays as it is.
  bool DeferSyncs();
  // How many WriteScopes that wrote something have completed since the store opened. Any thread.
  std::uint64_t CommittedWrites() const { return committed_writes_.load(); }
  // Commits the open batch, if any. Returns why it failed, naming the file (empty on success):
  // the COMMIT failed, or an earlier failure lost the batch (SQLite rolled the whole transaction
  // back). Either way the writes since the last batch are gone.
  std::string CommitBatch();
  // Makes every committed batch durable. Thread-safe: it touches only the log's file descriptor.
  // Returns 0, or the errno of the failed sync.
  int SyncWrites() const;

  // Makes every write until Commit() one transaction: all or nothing, and one sync to disk. The
  // store's own methods run inside the outermost scope as savepoints. Without Commit() the
  // destructor rolls everything back (an exception mid-request leaves nothing half-written).
  // Not thread-safe: the caller serialises requests.
  class WriteScope {
   public:
    explicit WriteScope(StateStore& store);
    ~WriteScope();
    WriteScope(const WriteScope&) = delete;
    WriteScope& operator=(const WriteScope&) = delete;
    void Commit();

   private:
    StateStore& store_;
    int depth_;
    long long changes_before_ = 0;  // the connection's change count when the scope began
    Tables tables_before_;          // what a rollback puts back
    bool done_ = false;
  };

 private:
  class Prepared;
  void Migrate();
  static int SyncCreatedFile(void* store, sqlite3* db, const char* name, int wal_pages);
  // synchronous and the auto-checkpoint threshold for serving: FULL, or NORMAL with group commit.
  void ApplySyncMode();
  // The statement for `sql`, compiled once per connection and kept: every request runs the same
  // few queries, and compiling them again each time cost as much as running them. The returned
  // lease resets the statement when it goes out of scope.
  Prepared Prepare(const std::string& sql) const;
  // Runs one statement that returns no rows, through the statement cache.
  void Execute(const std::string& sql);

  std::string path_;
  std::unique_ptr<SQLite::Database> db_;
  bool read_only_ = false;
  bool starting_ = false;  // in start-up mode: commits are not synced and nothing is checkpointed
  bool created_ = false;   // this open created the file (it had no page yet)
  int autocheckpoint_pages_ = 0;  // SQLite's WAL auto-checkpoint threshold, off in start-up
  // Declared after db_, so the statements are finalized before the connection closes.
  mutable std::unordered_map<std::string, std::unique_ptr<SQLite::Statement>> statements_;
  // Every row, in step with the database: written after it, put back by a rollback, loaded again
  // when the database lost a batch.
  Tables tables_;
  Tables LoadTables() const;
  void ReadPlanCapacity(std::vector<std::shared_ptr<const KeptPlan>>& plans) const;
  int write_depth_ = 0;
  std::atomic<std::uint64_t> committed_writes_{0};
  int log_fd_ = -1;          // the write-ahead log, opened by DeferSyncs() for SyncWrites()
  bool batching_ = false;    // DeferSyncs() was called
  bool batch_open_ = false;  // the batch transaction has begun
  bool batch_lost_ = false;  // SQLite rolled the open batch back after an error
};

}  // namespace smemu::store
