// StateStore: the emulator's durable state in one SQLite database (a file, or ":memory:").
// Opening applies the numbered migrations in schemas/ (embedded in the binary) that the file has
// not seen yet, tracked with PRAGMA user_version. Every mutation runs in one transaction. Knows
// nothing of HTTP or of AWS request shapes; resources are rows with a JSON document as text.
//
// Thread-safety: none. The single owner (ops::Emulator) serialises all calls.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "smemu/clock.hpp"
#include "store/name_index.hpp"

namespace SQLite {
class Database;
class Statement;
}  // namespace SQLite
struct sqlite3;

namespace smemu::store {

// Identifies one resource. Lookups ignore the case of `name`.
struct ResourceKey {
  std::string account;
  std::string region;
  std::string kind;  // "model", "endpoint", ...
  std::string name;

  bool operator==(const ResourceKey&) const = default;
};

struct ResourceRow {
  ResourceKey key;
  std::string arn;
  std::string status;
  TimePoint created{};
  TimePoint modified{};
  std::string doc;  // JSON text owned by the handlers

  bool operator==(const ResourceRow&) const = default;
};

using Tags = std::vector<std::pair<std::string, std::string>>;

// One tag with its place in the resource's order: tags given at creation come first, in the order
// given, then every new key in the order it was added. Overwriting a value keeps the place.
struct PositionedTag {
  int64_t position = 0;
  std::string key;
  std::string value;

  bool operator==(const PositionedTag&) const = default;
};

// Instances of one type that a resource holds from some time on, on a plan or on demand.
struct HeldCount {
  std::string instance_type;
  std::string plan_arn;  // the ARN the resource names its plan by; empty: on demand
  int count = 0;

  auto operator<=>(const HeldCount&) const = default;
};

// A stretch of time during which a resource held `count` instances (the holdings log).
struct HeldStretch {
  std::string arn;
  std::string account;
  std::string region;
  std::string kind;
  std::string name;
  std::string instance_type;
  std::string plan_arn;  // empty: on demand
  int count = 0;
  TimePoint from{};
  std::optional<TimePoint> to;  // nullopt: still held

  bool operator==(const HeldStretch&) const = default;
};

// kPlanStart and kPlanPhase sort training plans by their reserved window (ListQuery::plan).
// Where a moment stands against a window [start, end) whose purchase is paid at `paid`: before
// the payment completes, then before, during or after the window; or, once a payment that fails
// would have completed, failed.
enum class WindowPhase { kBefore = 0, kDuring = 1, kAfter = 2, kUnpaid = 3, kFailed = 4 };

// The capacity a training plan reserves: its pool, window and instance count.
struct PlanCapacity {
  std::string arn;
  std::string region;
  std::string availability_zone;
  std::string instance_type;
  int instance_count = 0;
  TimePoint start{};
  TimePoint end{};
  TimePoint paid{};            // when the purchase's payment completes
  bool payment_fails = false;  // ... or fails: the plan reserves nothing from then on
  // A plan of two reserved capacities: the first ends at gap_start, the second starts at gap_end
  // (the same moment when they meet) in `zone`. The first is in availability_zone.
  struct SecondBlock {
    TimePoint gap_start{};
    TimePoint gap_end{};
    std::string zone;
  };
  std::optional<SecondBlock> second;
};

enum class SortField { kName, kCreationTime, kStatus, kPlanStart, kPlanPhase };
// A sort column's value: creation time in milliseconds, or the name key or status.
using SortValue = std::variant<int64_t, std::string>;

// A page of a filtered, sorted listing. `after` continues after the row that ended the last page.
struct ListQuery {
  std::string account;
  std::string region;
  std::string kind;
  std::optional<std::string> name_contains;  // case-insensitive substring
  std::optional<TimePoint> created_after;    // strictly after
  std::optional<TimePoint> created_before;   // strictly before
  std::optional<TimePoint> modified_after;   // strictly after
  std::optional<TimePoint> modified_before;  // strictly before
  std::optional<std::string> status;         // equal
  // Training plans only: what their reserved window filters and sorts on (table plan_capacity).
  struct PlanWindow {
    TimePoint now{};                        // the moment whose phase each window is in
    std::optional<TimePoint> start_after;   // strictly after
    std::optional<TimePoint> start_before;  // strictly before
    std::vector<WindowPhase> phases;        // in any of them; empty: any phase
    // The sort value of each phase (kBefore, kDuring, kAfter, kUnpaid, kFailed) under
    // SortField::kPlanPhase, so the caller decides how phases order (e.g. by the names it shows
    // for them).
    std::array<int64_t, 5> phase_rank{0, 1, 2, 3, 4};
  };
  std::optional<PlanWindow> plan;
  SortField sort = SortField::kCreationTime;
  bool descending = true;
  // The sort column's value and the name key of the row the listing continues after. The value
  // must be the column's type (an integer for kCreationTime, a string otherwise).
  struct Cursor {
    SortValue value;
    std::string name_key;
  };
  std::optional<Cursor> after;
  int limit = 100;
};

// A row as the store keeps it once read (StateStore's rows read), with what the codecs decoded
// from it. The row never changes: a write to it makes the store forget this one and read the
// new row when it is next asked for. Shared by the store and the pages that list it, so that a
// page takes its rows without copying their documents and decodes them without looking them up.
class KeptRow {
 public:
  explicit KeptRow(ResourceRow row) : row_(std::move(row)) {}
  const ResourceRow& row() const { return row_; }

 private:
  friend class StateStore;
  const ResourceRow row_;
  // One value per type (StateStore::DecodedRow, RowMemo). Touched only under the lock that
  // guards the store; a page written after that lock reads row() alone.
  mutable std::vector<std::pair<std::type_index, std::shared_ptr<const void>>> decoded_;
};
using KeptRowPtr = std::shared_ptr<const KeptRow>;

struct ListPage {
  std::vector<KeptRowPtr> kept;              // the rows, as the store keeps them
  std::vector<ListQuery::Cursor> positions;  // each row's sort value and name key
  bool has_more = false;
};

// The database refused a write (a full disk, a read-only file, an I/O error). The message names
// the file and SQLite's reason; the request that met it was rolled back.
class StoreFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

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

  // True when any account has any resource.
  bool HasResources() const;
  struct KindStatusCount {
    std::string kind;
    std::string status;
    long long count = 0;
  };
  // How many resources of every account there are, by kind and status.
  std::vector<KindStatusCount> CountByKindAndStatus() const;
  std::optional<ResourceRow> Get(const ResourceKey& key) const;
  // What `decode` (a codec: a pure function of the row, which must not read the store) makes of
  // the row of `key`, as a T; nullopt when there is no such row. The value is kept with the row
  // read (see rows_read_): a write to the row or a rollback drops both, so it is never stale, and
  // reading it again costs a hash lookup and a copy instead of a parse.
  template <class T, class Decode>
  std::optional<T> GetDecoded(const ResourceKey& key, Decode&& decode) const {
    const KeptRowPtr* kept = ReadRowOf(key);
    if (kept == nullptr) return std::nullopt;
    return *DecodedRow<T>(**kept, decode);
  }
  // The same value, shared rather than copied (a cluster's record holds every node); nullptr
  // when there is no such row.
  template <class T, class Decode>
  std::shared_ptr<const T> GetDecodedShared(const ResourceKey& key, Decode&& decode) const {
    const KeptRowPtr* kept = ReadRowOf(key);
    if (kept == nullptr) return nullptr;
    return DecodedRow<T>(**kept, decode);
  }
  // The same for a row a listing read (ListPage::kept), without looking it up: a page listed
  // again (a dispatcher polling its jobs) is not decoded again. Shared, not copied: a decoded
  // job holds its whole Create request.
  template <class T, class Decode>
  std::shared_ptr<const T> DecodedRow(const KeptRow& kept, Decode&& decode) const {
    if (const auto* value = KeptValue(kept, typeid(T))) {
      return std::static_pointer_cast<const T>(*value);
    }
    auto value = std::make_shared<const T>(decode(kept.row()));
    kept.decoded_.emplace_back(typeid(T), value);
    return value;
  }
  // A value of type T kept with a row a listing read (what a summary wrote of it), made by T's
  // default constructor the first time. Unlike what the codecs decode, it may change: only its
  // owner touches it, under the lock that guards the store. A write to the row or a rollback
  // makes the store forget it with the row.
  template <class T>
  T& RowMemo(const KeptRow& kept) const {
    if (const auto* value = KeptValue(kept, typeid(T))) {
      return *std::const_pointer_cast<T>(std::static_pointer_cast<const T>(*value));
    }
    auto value = std::make_shared<T>();
    kept.decoded_.emplace_back(typeid(T), value);
    return *value;
  }
  // Inserts the row and its tags in one transaction. Returns false if the key already exists.
  bool Insert(const ResourceRow& row, const Tags& tags);
  // Inserts all rows (with their tags) in one transaction, or none when any key already exists.
  bool InsertAll(const std::vector<std::pair<ResourceRow, Tags>>& rows);
  // Every row of a kind (optionally with one status), of every account and region, by creation
  // time, then status, then account, region and name key.
  std::vector<ResourceRow> AllOfKind(const std::string& kind,
                                     const std::optional<std::string>& status = {}) const;
  // Every (account, region) that has a resource, in order.
  std::vector<std::pair<std::string, std::string>> Scopes() const;
  // The capacity of every training plan of every account, read from columns (no document), in
  // no particular order.
  std::vector<PlanCapacity> AllPlanCapacity() const;
  // The same, each passed to `visit` in turn: the value is reused from one call to the next.
  void ForEachPlanCapacity(const std::function<void(const PlanCapacity&)>& visit) const;
  // Sets what the resource `key` (ARN capacity.arn) reserves, for AllPlanCapacity and the window
  // sorts and filters of List (ListQuery::plan). The caller writes it with the resource's row, in
  // the same write scope; deleting the row deletes it.
  void PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity);
  // Every row of a kind in one account and region, in name order.
  std::vector<ResourceRow> AllOf(const std::string& account, const std::string& region,
                                 const std::string& kind) const;
  // Replaces status, modified time and doc of an existing row. Returns false if it is missing.
  bool Update(const ResourceRow& row);
  // Deletes the row and its tags in one transaction. Returns false if it was missing.
  bool Delete(const ResourceKey& key);
  ListPage List(const ListQuery& query) const;
  // The tags of `arn` in order, without their positions (GetPositionedTags).
  Tags GetTags(const std::string& arn) const;

  // The row whose ARN is exactly `arn`, of any account, region and kind.
  std::optional<ResourceRow> FindByArn(const std::string& arn) const;
  // The tags of `arn` with their positions, ordered by position (then key).
  std::vector<PositionedTag> GetPositionedTags(const std::string& arn) const;
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

  std::optional<std::string> GetSetting(const std::string& key) const;
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
  // Rows read by Get() and by listings, by key: most requests read one or two rows again and
  // again (an endpoint and its config per invocation), and a hash lookup costs a fraction of a
  // query. A write drops the row it touches; a rollback (of a request or of a group-commit batch)
  // drops them all, since rows read inside it may be gone. Bounded: when full it starts again
  // empty. Each row read keeps what the codecs decoded from it (KeptRow): the only cache of
  // decoded records.
  mutable std::unordered_map<std::string, KeptRowPtr> rows_read_;
  mutable std::string cache_key_;  // RowCacheKey()'s text, reused from one lookup to the next
  // The entry of `key`, read from the database when it is not kept yet; nullptr when there is no
  // such row. The pointer is valid until the next call that may change the rows read.
  const KeptRowPtr* ReadRowOf(const ResourceKey& key) const;
  // The same for a key whose name is already a name key (a listing's), without folding it again.
  const KeptRowPtr* ReadRowOfNameKey(const ResourceKey& key) const;
  const KeptRowPtr* ReadRowAt(const std::string& cache_key, const ResourceKey& key) const;
  // The rows of `page.positions`, a page of keys that List() picked, from the rows read or else
  // read now, into `page.kept`.
  void TakeKeptRows(const ListQuery& query, ListPage& page) const;
  // The value of `type` kept with the row; nullptr when there is none yet.
  static const std::shared_ptr<const void>* KeptValue(const KeptRow& kept, std::type_index type) {
    for (const auto& [kept_type, value] : kept.decoded_) {
      if (kept_type == type) return &value;
    }
    return nullptr;
  }
  static constexpr std::size_t kRowsReadLimit = 4096;  // pages of listings too
  void ForgetRowsRead() const { rows_read_.clear(); }
  // The names of each scope a NameContains page has listed, kept in step by InsertAll and
  // Delete; forgotten with the rows read when a rollback may have undone writes.
  mutable NameIndex names_;
  void ForgetWhatWasRead() const {
    ForgetRowsRead();
    names_.Clear();
  }
  // A NameContains page in creation order from names_, or nullopt when names_ cannot answer it
  // (a pattern shorter than a trigram, another sort, a filter on a column that changes).
  std::optional<ListPage> ListByName(const ListQuery& query) const;
  int write_depth_ = 0;
  std::atomic<std::uint64_t> committed_writes_{0};
  int log_fd_ = -1;          // the write-ahead log, opened by DeferSyncs() for SyncWrites()
  bool batching_ = false;    // DeferSyncs() was called
  bool batch_open_ = false;  // the batch transaction has begun
  bool batch_lost_ = false;  // SQLite rolled the open batch back after an error
};

// Lower-cases ASCII letters; AWS names are ASCII.
std::string NameKey(std::string_view name);

}  // namespace smemu::store
