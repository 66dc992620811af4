#include "store/state_store.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string_view>

#include "embed/embedded_files.hpp"

namespace smemu::store {
namespace {

constexpr std::string_view kMigrationPrefix = "schemas/";

// Migrations embedded at build time, keyed by their number (the digits before the first '_').
std::map<int, std::string_view> EmbeddedMigrations() {
  std::map<int, std::string_view> migrations;
  for (const auto& [path, contents] : EmbeddedFiles()) {
    if (path.rfind(kMigrationPrefix, 0) != 0) continue;
    const std::string file = path.substr(kMigrationPrefix.size());
    migrations.emplace(std::stoi(file.substr(0, file.find('_'))), contents);
  }
  return migrations;
}

int64_t ToMillis(TimePoint t) { return t.time_since_epoch().count(); }
TimePoint FromMillis(int64_t ms) { return TimePoint{Millis{ms}}; }

// Reads the columns of kRowColumns.
ResourceRow ReadRow(SQLite::Statement& statement) {
  ResourceRow row;
  row.key.account = statement.getColumn(0).getString();
  row.key.region = statement.getColumn(1).getString();
  row.key.kind = statement.getColumn(2).getString();
  row.key.name = statement.getColumn(3).getString();
  row.arn = statement.getColumn(4).getString();
  row.status = statement.getColumn(5).getString();
  row.created = FromMillis(statement.getColumn(6).getInt64());
  row.modified = FromMillis(statement.getColumn(7).getInt64());
  row.doc = statement.getColumn(8).getString();
  return row;
}

constexpr const char* kRowColumns =
    "account, region, kind, name, arn, status, created_ms, modified_ms, doc";

void BindKey(SQLite::Statement& statement, const ResourceKey& key) {
  statement.bind(":account", key.account);
  statement.bind(":region", key.region);
  statement.bind(":kind", key.kind);
  statement.bind(":name_key", NameKey(key.name));
}

}  // namespace

// A cached statement, borrowed for one use: cleared bindings on the way in, reset on the way out
// (so no read stays open between calls). Methods never nest two uses of the same SQL text.
class StateStore::Prepared {
 public:
  explicit Prepared(SQLite::Statement& statement) : statement_(statement) {
    statement_.tryReset();
    statement_.clearBindings();
  }
  ~Prepared() { statement_.tryReset(); }
  Prepared(const Prepared&) = delete;
  Prepared& operator=(const Prepared&) = delete;
  SQLite::Statement& operator*() const { return statement_; }
  SQLite::Statement* operator->() const { return &statement_; }

 private:
  SQLite::Statement& statement_;
};

StateStore::Prepared StateStore::Prepare(const std::string& sql) const {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    it = statements_.emplace(sql, std::make_unique<SQLite::Statement>(*db_, sql)).first;
  }
  return Prepared(*it->second);
}

namespace {

// Appends `name` folded to lower case: the one place names are folded, for NameKey and the keys
// of the rows read.
void AppendNameKey(std::string& out, std::string_view name) {
  for (const char c : name) {
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
}

}  // namespace

std::string NameKey(std::string_view name) {
  std::string key;
  key.reserve(name.size());
  AppendNameKey(key, name);
  return key;
}

namespace {

// A file: URI for `path`, escaping what a URI would read as syntax.
std::string FileUri(const std::string& path) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789ABCDEF";
      uri += '%';
      uri += kHex[(c >> 4) & 0xF];
      uri += kHex[c & 0xF];
    } else {
      uri += c;
    }
  }
  return uri;
}

// Opens a write-protected database for reading. Read normally, a WAL database gets a -shm file;
// made by this process it would be write-protected too, and would stop the next start once the
// file is writable again. Opened immutable, SQLite creates nothing beside the file, which is
// right only while no -wal file holds changes that are not in the file yet.
std::unique_ptr<SQLite::Database> OpenReadOnly(const std::string& path) {
  std::error_code ignored;
  if (std::filesystem::file_size(path + "-wal", ignored) > 0 && !ignored) {
    throw std::runtime_error(
        "the file is read-only and its -wal file holds changes not yet written into it; make "
        "the file writable so that they can be");
  }
  return std::make_unique<SQLite::Database>(FileUri(path) + "?immutable=1",
                                            SQLite::OPEN_READONLY | SQLite::OPEN_URI);
}

}  // namespace

StateStore::StateStore(const std::string& path) : path_(path) {
  try {
    // SQLite falls back to reading only when the file is write-protected; that is detected below.
    // No SQLite mutexes: the owner serialises every call (see the header).
    db_ = std::make_unique<SQLite::Database>(
        path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE | SQLite::OPEN_NOMUTEX);
    read_only_ = sqlite3_db_readonly(db_->getHandle(), "main") == 1;
    if (read_only_) db_ = OpenReadOnly(path);
    db_->exec("PRAGMA foreign_keys = ON");
    db_->exec("PRAGMA synchronous = FULL");
    // A request's savepoint keeps the pages it changes in a statement journal, and sorts keep
    // their rows, in temporary files by default: a durable CreateModel spent a fifth of its
    // server time writing that journal (pwrite under the lock). Neither needs to outlive the
    // transaction, so neither is worth a file.
    db_->exec("PRAGMA temp_store = MEMORY");
    if (path != ":memory:" && !read_only_) {
      // This process is the file's only user: its ledger and settled lifecycles are in memory,
      // so a second server on the same file would contradict it. Holding the lock for the whole
      // run refuses that second server at start, and spares every transaction the file-lock
      // system calls (four per request, the largest cost after the socket itself).
      db_->exec("PRAGMA locking_mode = EXCLUSIVE");
      // A new file holds nothing to protect yet: switching it to WAL (which writes its first page
      // through a rollback journal) needs no flush now (see SyncCreatedFile).
      created_ = db_->execAndGet("PRAGMA page_count").getInt() == 0;
      if (created_) db_->exec("PRAGMA synchronous = OFF");
      // WAL with synchronous=FULL (from EndStartup() on): an acknowledged write survives a process
      // crash and a power loss.
      db_->exec("PRAGMA journal_mode = WAL");
      // Start-up mode (see the header). Without checkpoints the file itself is not written
      // until the WAL has been synced; that is what keeps unsynced commits from corrupting it.
      starting_ = true;
      autocheckpoint_pages_ = db_->execAndGet("PRAGMA wal_autocheckpoint").getInt();
      db_->exec("PRAGMA wal_autocheckpoint = 0");
      db_->exec("PRAGMA synchronous = OFF");
    }
    db_->setBusyTimeout(5000);
    Migrate();
  } catch (const SQLite::Exception& e) {
    if (e.getErrorCode() == SQLITE_BUSY) {
      throw std::runtime_error("cannot open database '" + path +
                               "': another process holds it (is a sagemaker-emulator already "
                               "serving this file?)");
    }
    throw std::runtime_error("cannot open database '" + path + "': " + e.what());
  }
}

StateStore::~StateStore() {
  // Closing checkpoints the WAL into the file, which must not happen unsynced.
  try {
    EndStartup();
    CommitBatch();  // writes nobody waited for are kept too
  } catch (const std::exception&) {
    // The file is left as the last synced commit had it; the WAL still holds the rest.
  }
  if (log_fd_ >= 0) ::close(log_fd_);
}

std::string StateStore::CommitBatch() {
  std::string failure;
  if (batch_lost_) {
    failure = "database '" + path_ + "' failed earlier in this batch and rolled it back";
  }
  batch_lost_ = false;
  if (!batch_open_) return failure;
  batch_open_ = false;
  try {
    Execute("COMMIT");
  } catch (const SQLite::Exception& e) {
    failure = "database '" + path_ + "' failed: " + e.what() + " (SQLite code " +
              std::to_string(e.getExtendedErrorCode()) + ")";
    if (sqlite3_get_autocommit(db_->getHandle()) == 0) Execute("ROLLBACK");
  }
  if (!failure.empty()) ForgetWhatWasRead();  // the batch's writes are gone
  return failure;
}

bool StateStore::DeferSyncs() {
  if (path_ == ":memory:" || read_only_) return false;
  // The log exists from the first transaction of a WAL connection on; the constructor ran some.
  log_fd_ = ::open((path_ + "-wal").c_str(), O_RDONLY | O_CLOEXEC);
  if (log_fd_ < 0) {
    throw std::runtime_error("cannot open the write-ahead log '" + path_ +
                             "-wal': " + std::strerror(errno));
  }
  batching_ = true;
  // A checkpoint runs inside the COMMIT that crosses the threshold, with every request waiting
  // for its two syncs; at the default of 1,000 pages a burst of writes met one every few dozen
  // requests. 10,000 pages (a log of up to 40 MB) checkpoints a tenth as often, and copies each
  // page that many transactions touched (index leaves) once instead of ten times.
  autocheckpoint_pages_ = 10000;
  if (!starting_) ApplySyncMode();  // otherwise EndStartup() does
  return true;
}

void StateStore::ApplySyncMode() {
  // In WAL mode, NORMAL still syncs the log before each checkpoint copies it into the file and the
  // file after it: what SyncWrites() made durable stays durable.
  db_->exec(batching_ ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL");
  sqlite3_wal_autocheckpoint(db_->getHandle(), autocheckpoint_pages_);
}

int StateStore::SyncWrites() const {
  if (log_fd_ < 0) return 0;
  return ::fdatasync(log_fd_) == 0 ? 0 : errno;
}

void StateStore::EndStartup() {
  if (!starting_) return;
  starting_ = false;
  try {
    // The safety level cannot change inside a transaction: the start-up writes of a batch are
    // committed first (unsynced, like every start-up write).
    if (batch_open_) {
      batch_open_ = false;
      Execute("COMMIT");
    }
    ApplySyncMode();
  } catch (const SQLite::Exception&) {
    RethrowNamingTheFile();
  }
  // A new file: the first commit from here on flushes the file's first page, then turns on the
  // auto-checkpoint that ApplySyncMode() set, which the hook replaces until then.
  if (created_) sqlite3_wal_hook(db_->getHandle(), &StateStore::SyncCreatedFile, this);
}

// The WAL hook from EndStartup() until the first commit after it (a synced one) has succeeded.
// The new file's first page was written without a flush, and the file is not flushed again until
// a checkpoint; if that page were lost, SQLite would find an empty file and delete the WAL with
// every acknowledged write in it. So it is flushed before the first of them is acknowledged. A
// failure fails that commit's request (500) and is tried again at the next commit.
int StateStore::SyncCreatedFile(void* store, sqlite3* db, const char* name, int wal_pages) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db, name, SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    return SQLITE_IOERR_FSYNC;
  }
  if (const int rc = file->pMethods->xSync(file, SQLITE_SYNC_NORMAL); rc != SQLITE_OK) return rc;
  // SQLite's own hook (auto-checkpoint) from now on, and what it would have done for this commit.
  const int checkpoint_pages = static_cast<StateStore*>(store)->autocheckpoint_pages_;
  sqlite3_wal_autocheckpoint(db, checkpoint_pages);
  if (checkpoint_pages > 0 && wal_pages >= checkpoint_pages) sqlite3_wal_checkpoint(db, name);
  return SQLITE_OK;
}

void StateStore::Migrate() {
  int version = db_->execAndGet("PRAGMA user_version").getInt();
  const auto migrations = EmbeddedMigrations();
  if (!migrations.empty() && version > migrations.rbegin()->first) {
    throw std::runtime_error("database schema version " + std::to_string(version) +
                             " is newer than this build supports (" +
                             std::to_string(migrations.rbegin()->first) + ")");
  }
  if (migrations.empty() || version == migrations.rbegin()->first) return;
  if (read_only_) {
    throw std::runtime_error("the file is read-only and its schema (version " +
                             std::to_string(version) + ") needs an upgrade to version " +
                             std::to_string(migrations.rbegin()->first));
  }
  // Every pending migration in one transaction: a new file gets its whole schema in one commit.
  WriteScope transaction(*this);
  for (const auto& [number, sql] : migrations) {
    if (number <= version) continue;
    db_->exec(std::string(sql));
    db_->exec("PRAGMA user_version = " + std::to_string(number));
  }
  transaction.Commit();
}

void StateStore::RethrowNamingTheFile() const {
  try {
    throw;
  } catch (const SQLite::Exception& e) {
    throw StoreFailure("database '" + path_ + "' failed: " + e.what() + " (SQLite code " +
                       std::to_string(e.getExtendedErrorCode()) +
                       "); the request was rolled back and changed nothing");
  }
}

int StateStore::SchemaVersion() const { return db_->execAndGet("PRAGMA user_version").getInt(); }

bool StateStore::HasResources() const {
  return db_->execAndGet("SELECT EXISTS (SELECT 1 FROM resources)").getInt() == 1;
}

std::vector<StateStore::KindStatusCount> StateStore::CountByKindAndStatus() const {
  SQLite::Statement statement(
      *db_, "SELECT kind, status, COUNT(*) FROM resources GROUP BY kind, status ORDER BY 1, 2");
  std::vector<KindStatusCount> counts;
  while (statement.executeStep()) {
    counts.push_back({statement.getColumn(0).getString(), statement.getColumn(1).getString(),
                      statement.getColumn(2).getInt64()});
  }
  return counts;
}

namespace {

// The scope of a listing in names_.
std::string NameScope(const std::string& account, const std::string& region,
                      const std::string& kind) {
  return account + '\x1f' + region + '\x1f' + kind;
}

// The key of `key` in rows_read_, written into `text` (whose capacity a caller keeps: most
// lookups find the row, and then allocate nothing).
void AppendScopeKey(const ResourceKey& key, std::string& text) {
  text.clear();
  // '\x1f' (unit separator) cannot occur in account ids, region names, kinds or resource names.
  text.append(key.account).append(1, '\x1f').append(key.region).append(1, '\x1f');
  text.append(key.kind).append(1, '\x1f');
}

const std::string& RowCacheKey(const ResourceKey& key, std::string& text) {
  AppendScopeKey(key, text);
  AppendNameKey(text, key.name);
  return text;
}

// The same for a key whose name is a name key already (NameKey of a name key is itself).
const std::string& RowCacheKeyOfNameKey(const ResourceKey& key, std::string& text) {
  AppendScopeKey(key, text);
  text.append(key.name);
  return text;
}

}  // namespace

std::optional<ResourceRow> StateStore::Get(const ResourceKey& key) const {
  const KeptRowPtr* kept = ReadRowOf(key);
  if (kept == nullptr) return std::nullopt;
  return (*kept)->row();
}

const KeptRowPtr* StateStore::ReadRowOf(const ResourceKey& key) const {
  return ReadRowAt(RowCacheKey(key, cache_key_), key);
}

const KeptRowPtr* StateStore::ReadRowOfNameKey(const ResourceKey& key) const {
  return ReadRowAt(RowCacheKeyOfNameKey(key, cache_key_), key);
}

const KeptRowPtr* StateStore::ReadRowAt(const std::string& cache_key,
                                        const ResourceKey& key) const {
  if (const auto it = rows_read_.find(cache_key); it != rows_read_.end()) return &it->second;
  Prepared statement_lease = Prepare(std::string("SELECT ") + kRowColumns +
                                     " FROM resources WHERE account = :account AND region = "
                                     ":region AND kind = :kind AND name_key = :name_key");
  SQLite::Statement& statement = *statement_lease;
  BindKey(statement, key);
  if (!statement.executeStep()) return nullptr;
  if (rows_read_.size() >= kRowsReadLimit) ForgetRowsRead();
  return &rows_read_.emplace(cache_key, std::make_shared<const KeptRow>(ReadRow(statement)))
              .first->second;
}

bool StateStore::Insert(const ResourceRow& row, const Tags& tags) {
  return InsertAll({{row, tags}});
}

bool StateStore::InsertAll(const std::vector<std::pair<ResourceRow, Tags>>& rows) {
  WriteScope transaction(*this);
  Prepared insert_lease = Prepare(
      "INSERT OR IGNORE INTO resources (account, region, kind, name_key, "
      "name, arn, status, created_ms, modified_ms, doc) VALUES (:account, "
      ":region, :kind, :name_key, :name, :arn, :status, :created, :modified, "
      ":doc)");
  SQLite::Statement& insert = *insert_lease;
  Prepared tag_lease =
      Prepare("INSERT OR REPLACE INTO tags (arn, position, key, value) VALUES (?, ?, ?, ?)");
  SQLite::Statement& tag = *tag_lease;
  for (const auto& [row, tags] : rows) {
    BindKey(insert, row.key);
    insert.bind(":name", row.key.name);
    insert.bind(":arn", row.arn);
    insert.bind(":status", row.status);
    insert.bind(":created", ToMillis(row.created));
    insert.bind(":modified", ToMillis(row.modified));
    insert.bind(":doc", row.doc);
    const int inserted = insert.exec();
    insert.reset();
    if (inserted == 0) return false;  // the transaction's destructor rolls back
    if (!names_.Empty()) {  // no NameContains page yet: nothing to keep in step, nothing built
      names_.Add(NameScope(row.key.account, row.key.region, row.key.kind),
                 {ToMillis(row.created), NameKey(row.key.name)});
    }
    int position = 0;
    for (const auto& [key, value] : tags) {
      tag.bind(1, row.arn);
      tag.bind(2, position++);
      tag.bind(3, key);
      tag.bind(4, value);
      tag.exec();
      tag.reset();
    }
  }
  transaction.Commit();
  return true;
}

std::vector<std::pair<std::string, std::string>> StateStore::Scopes() const {
  // A skip scan: one seek into the table's key per step, however many rows each scope holds.
  Prepared next_account_lease = Prepare(
      "SELECT account, region FROM resources WHERE account > ? ORDER BY account, region LIMIT 1");
  Prepared next_region_lease = Prepare(
      "SELECT region FROM resources WHERE account = ? AND region > ? ORDER BY region LIMIT 1");
  SQLite::Statement& next_account = *next_account_lease;
  SQLite::Statement& next_region = *next_region_lease;
  std::vector<std::pair<std::string, std::string>> scopes;
  std::string account;
  while (true) {
    next_account.reset();
    next_account.bind(1, account);
    if (!next_account.executeStep()) break;
    account = next_account.getColumn(0).getString();
    scopes.emplace_back(account, next_account.getColumn(1).getString());
    while (true) {
      next_region.reset();
      next_region.bind(1, account);
      next_region.bind(2, scopes.back().second);
      if (!next_region.executeStep()) break;
      scopes.emplace_back(account, next_region.getColumn(0).getString());
    }
  }
  return scopes;
}

std::vector<ResourceRow> StateStore::AllOfKind(const std::string& kind,
                                               const std::optional<std::string>& status) const {
  std::vector<ResourceRow> rows;
  if (status) {  // few rows: the index on kind and status finds them
    Prepared statement_lease = Prepare(std::string("SELECT ") + kRowColumns +
                                       " FROM resources WHERE kind = ? AND status = ?");
    SQLite::Statement& statement = *statement_lease;
    statement.bind(1, kind);
    statement.bind(2, *status);
    while (statement.executeStep()) rows.push_back(ReadRow(statement));
  } else {
    // Each scope's rows are one range of the table's key, read in order. Through the index on
    // kind, each row cost a seek into the table (10,000 plans: 19 ms instead of 8 in the sqlite3
    // shell, and a third of the dashboard's state view).
    Prepared statement_lease = Prepare(std::string("SELECT ") + kRowColumns +
                                       " FROM resources WHERE account = ? AND region = ? AND "
                                       "kind = ?");
    SQLite::Statement& statement = *statement_lease;
    for (const auto& [account, region] : Scopes()) {
      statement.reset();
      statement.bind(1, account);
      statement.bind(2, region);
      statement.bind(3, kind);
      while (statement.executeStep()) rows.push_back(ReadRow(statement));
    }
  }
  // By creation time, then status, then key (the order the index on kind and status gave, which
  // the dashboard's answers have kept since). Sorted here rather than by SQLite (its sorter
  // spilled the rows, documents and all, to a temporary file), and through their places: a row
  // is six strings, and moving each once costs less than moving them about while sorting.
  std::vector<size_t> order(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&rows](size_t a, size_t b) {
    const ResourceRow& first = rows[a];
    const ResourceRow& second = rows[b];
    if (first.created != second.created) return first.created < second.created;
    if (first.status != second.status) return first.status < second.status;
    return a < b;  // read in key order
  });
  std::vector<ResourceRow> sorted;
  sorted.reserve(rows.size());
  for (const size_t place : order) sorted.push_back(std::move(rows[place]));
  return sorted;
}

std::vector<ResourceRow> StateStore::AllOf(const std::string& account, const std::string& region,
                                           const std::string& kind) const {
  Prepared statement_lease = Prepare(std::string("SELECT ") + kRowColumns +
                                     " FROM resources WHERE account = ? AND region = ? AND "
                                     "kind = ? ORDER BY name_key");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, account);
  statement.bind(2, region);
  statement.bind(3, kind);
  std::vector<ResourceRow> rows;
  while (statement.executeStep()) rows.push_back(ReadRow(statement));
  return rows;
}

bool StateStore::Update(const ResourceRow& row) {
  rows_read_.erase(RowCacheKey(row.key, cache_key_));
  WriteScope transaction(*this);
  Prepared update_lease = Prepare(
      "UPDATE resources SET status = :status, modified_ms = :modified, doc = "
      ":doc WHERE account = :account AND region = :region AND kind = :kind "
      "AND name_key = :name_key");
  SQLite::Statement& update = *update_lease;
  BindKey(update, row.key);
  update.bind(":status", row.status);
  update.bind(":modified", ToMillis(row.modified));
  update.bind(":doc", row.doc);
  const bool changed = update.exec() > 0;
  transaction.Commit();
  return changed;
}

bool StateStore::Delete(const ResourceKey& key) {
  rows_read_.erase(RowCacheKey(key, cache_key_));
  WriteScope transaction(*this);
  Prepared select_lease = Prepare(
      "SELECT arn, created_ms FROM resources WHERE account = :account AND region = "
      ":region AND kind = :kind AND name_key = :name_key");
  SQLite::Statement& select = *select_lease;
  BindKey(select, key);
  if (!select.executeStep()) return false;
  const std::string arn = select.getColumn(0).getString();
  if (!names_.Empty()) {
    names_.Remove(NameScope(key.account, key.region, key.kind),
                  {select.getColumn(1).getInt64(), NameKey(key.name)});
  }
  Prepared remove_lease = Prepare(
      "DELETE FROM resources WHERE account = :account AND region = :region "
      "AND kind = :kind AND name_key = :name_key");
  SQLite::Statement& remove = *remove_lease;
  BindKey(remove, key);
  remove.exec();
  Prepared remove_tags_lease = Prepare("DELETE FROM tags WHERE arn = ?");
  SQLite::Statement& remove_tags = *remove_tags_lease;
  remove_tags.bind(1, arn);
  remove_tags.exec();
  Prepared remove_capacity_lease = Prepare("DELETE FROM plan_capacity WHERE arn = ?");
  SQLite::Statement& remove_capacity = *remove_capacity_lease;
  remove_capacity.bind(1, arn);
  remove_capacity.exec();
  transaction.Commit();
  return true;
}

void StateStore::PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity) {
  WriteScope transaction(*this);
  Prepared put_lease = Prepare(
      "INSERT OR REPLACE INTO plan_capacity VALUES (:account, :region, :name_key, :arn, :zone, "
      ":type, :count, :start_ms, :end_ms, :paid_ms, :gap_start_ms, :gap_end_ms, :second_zone, "
      ":payment_fails)");
  SQLite::Statement& put = *put_lease;
  put.bind(":account", key.account);
  put.bind(":region", key.region);
  put.bind(":name_key", NameKey(key.name));
  put.bind(":arn", capacity.arn);
  put.bind(":zone", capacity.availability_zone);
  put.bind(":type", capacity.instance_type);
  put.bind(":count", capacity.instance_count);
  put.bind(":start_ms", ToMillis(capacity.start));
  put.bind(":end_ms", ToMillis(capacity.end));
  put.bind(":paid_ms", ToMillis(capacity.paid));
  put.bind(":gap_start_ms", capacity.second ? ToMillis(capacity.second->gap_start) : 0);
  put.bind(":gap_end_ms", capacity.second ? ToMillis(capacity.second->gap_end) : 0);
  put.bind(":second_zone", capacity.second ? capacity.second->zone : std::string());
  put.bind(":payment_fails", capacity.payment_fails ? 1 : 0);
  put.exec();
  transaction.Commit();
}

namespace {

// A page's extra row only tells that another page exists.
void CutToLimit(ListPage& page, int limit) {
  if (static_cast<int64_t>(page.positions.size()) > limit) {
    page.kept.pop_back();
    page.positions.pop_back();
    page.has_more = true;
  }
}

}  // namespace

std::optional<ListPage> StateStore::ListByName(const ListQuery& query) const {
  // The index holds names and creation times, which never change: the status and the modified
  // time are filtered by the scan below, and so is a sort on either.
  if (!query.name_contains || query.plan || query.sort != SortField::kCreationTime ||
      query.modified_after || query.modified_before || query.status ||
      (query.after && !std::holds_alternative<int64_t>(query.after->value))) {
    return std::nullopt;
  }
  const std::string pattern = NameKey(*query.name_contains);
  if (pattern.size() < NameIndex::kMinPattern) return std::nullopt;
  const std::string scope = NameScope(query.account, query.region, query.kind);
  if (!names_.Has(scope)) {
    Prepared statement_lease = Prepare(
        "SELECT created_ms, name_key FROM resources WHERE account = ? AND region = ? AND kind = ?");
    SQLite::Statement& statement = *statement_lease;
    statement.bind(1, query.account);
    statement.bind(2, query.region);
    statement.bind(3, query.kind);
    std::vector<NameIndex::Name> names;
    while (statement.executeStep()) {
      names.push_back({statement.getColumn(0).getInt64(), statement.getColumn(1).getString()});
    }
    names_.Build(scope, std::move(names));
  }
  NameIndex::Search search;
  search.pattern = pattern;
  search.descending = query.descending;
  if (query.after) {
    search.after = NameIndex::Name{std::get<int64_t>(query.after->value), query.after->name_key};
  }
  if (query.created_after) search.created_after = ToMillis(*query.created_after);
  if (query.created_before) search.created_before = ToMillis(*query.created_before);
  search.limit = static_cast<size_t>(query.limit) + 1;  // one more tells whether a page follows
  ListPage page;
  ResourceKey key{query.account, query.region, query.kind, {}};
  for (NameIndex::Name& name : names_.Find(scope, search)) {
    key.name = name.name_key;  // NameKey of a name key is itself
    const KeptRowPtr* kept = ReadRowOfNameKey(key);
    if (kept == nullptr) continue;  // not possible: the index follows every insert and delete
    page.kept.push_back(*kept);
    page.positions.push_back({name.created_ms, std::move(name.name_key)});
  }
  CutToLimit(page, query.limit);
  return page;
}

ListPage StateStore::List(const ListQuery& query) const {
  if (auto page = ListByName(query)) return std::move(*page);
  // The SQL text is chosen from fixed fragments; every value is bound. Training plans listed by
  // their window are read from plan_capacity's index first (CROSS JOIN keeps it the outer loop,
  // so a page costs a keyset seek, not a sort of every plan), then each row by its key.
  const bool plans = query.plan.has_value();
  // The phase of the plan's window at :now, as 3 (not paid yet), 4 (its payment failed), 0
  // (before, or between its two blocks), 1 (during) or 2 (after): the values of WindowPhase.
  const char* phase =
      "(CASE WHEN :now < p.paid_ms THEN 3 WHEN p.payment_fails THEN 4 WHEN :now < p.start_ms THEN "
      "0 WHEN :now >= p.gap_start_ms AND :now < p.gap_end_ms THEN 0 WHEN :now < p.end_ms THEN 1 "
      "ELSE 2 END)";
  // The name key is the tiebreak; plan_capacity's copy of it lets its indexes order the page.
  const char* name_key = plans ? "p.name_key" : "r.name_key";
  std::string sort_value;
  switch (query.sort) {
    case SortField::kName:
      sort_value = name_key;
      break;
    case SortField::kCreationTime:
      sort_value = "r.created_ms";
      break;
    case SortField::kStatus:
      sort_value = "r.status";
      break;
    case SortField::kPlanStart:
      sort_value = "p.start_ms";
      break;
    case SortField::kPlanPhase:
      sort_value = std::string("(CASE ") + phase +
                   " WHEN 0 THEN :rank_before WHEN 1 THEN :rank_during WHEN 2 THEN :rank_after"
                   " WHEN 3 THEN :rank_unpaid ELSE :rank_failed END)";
      break;
  }
  if ((query.sort == SortField::kPlanStart || query.sort == SortField::kPlanPhase) && !plans) {
    throw std::logic_error("a listing sorted by a plan's window needs ListQuery::plan");
  }
  std::string from;
  if (plans) {
    from =
        " FROM plan_capacity p CROSS JOIN resources r ON r.account = p.account AND r.region = "
        "p.region AND r.kind = :kind AND r.name_key = p.name_key WHERE p.account = :account AND "
        "p.region = :region";
    if (query.plan->start_after) from += " AND p.start_ms > :start_after";
    if (query.plan->start_before) from += " AND p.start_ms < :start_before";
    if (!query.plan->phases.empty()) {
      from += std::string(" AND ") + phase + " IN (";
      for (size_t i = 0; i < query.plan->phases.size(); ++i) {
        from += (i ? "," : "") + std::to_string(static_cast<int>(query.plan->phases[i]));
      }
      from += ")";
    }
  } else {
    from = " FROM resources r WHERE r.account = :account AND r.region = :region AND r.kind = :kind";
  }
  if (query.name_contains) from += std::string(" AND instr(") + name_key + ", :contains) > 0";
  if (query.created_after) from += " AND r.created_ms > :created_after";
  if (query.created_before) from += " AND r.created_ms < :created_before";
  if (query.modified_after) from += " AND r.modified_ms > :modified_after";
  if (query.modified_before) from += " AND r.modified_ms < :modified_before";
  if (query.status) from += " AND r.status = :status";
  const char* direction = query.descending ? " DESC" : " ASC";
  const char* beyond = query.descending ? "<" : ">";
  std::string order;
  if (query.sort == SortField::kName) {
    if (query.after) from += std::string(" AND ") + name_key + " " + beyond + " :after_name";
    order = std::string(" ORDER BY sort_value") + direction;
  } else {
    if (query.after) {
      from +=
          " AND (" + sort_value + ", " + name_key + ") " + beyond + " (:after_value, :after_name)";
    }
    order = std::string(" ORDER BY sort_value") + direction + ", key" + direction;
  }
  // A page picks its keys first, from an index alone (plan_capacity's for plans,
  // resources_by_creation or the table's key otherwise), then takes each row from the rows read
  // (rows_read_), reading only those not kept: a page listed again (a dispatcher polling, a
  // dashboard refreshing) costs a hash lookup per row instead of a seek into the table by its
  // text key (a third of a ListTrainingPlans page's time under the lock), and shares the rows
  // instead of copying them (ListEndpoints, whose summaries are all columns: 18% -> 29-32% of
  // DescribeEndpoint's rate, by hand).
  if (plans && !(query.created_after || query.created_before || query.modified_after ||
                 query.modified_before || query.status)) {
    // Only the resources' own columns need the join (every plan has both rows, written and
    // deleted together).
    from = from.substr(0, from.find(" CROSS JOIN")) + from.substr(from.find(" WHERE"));
  }
  const std::string sql = "SELECT " + sort_value + " AS sort_value, " + name_key + " AS key" +
                          from + order + " LIMIT :limit";

  Prepared statement_lease = Prepare(sql);
  SQLite::Statement& statement = *statement_lease;
  statement.bind(":account", query.account);
  statement.bind(":region", query.region);
  // A page of plans' keys alone is read from plan_capacity, which has no kind.
  if (sql.find(":kind") != std::string::npos) statement.bind(":kind", query.kind);
  if (plans) {
    if (sql.find(":now") != std::string::npos) statement.bind(":now", ToMillis(query.plan->now));
    if (query.plan->start_after) statement.bind(":start_after", ToMillis(*query.plan->start_after));
    if (query.plan->start_before) {
      statement.bind(":start_before", ToMillis(*query.plan->start_before));
    }
    if (query.sort == SortField::kPlanPhase) {
      statement.bind(":rank_before", query.plan->phase_rank[0]);
      statement.bind(":rank_during", query.plan->phase_rank[1]);
      statement.bind(":rank_after", query.plan->phase_rank[2]);
      statement.bind(":rank_unpaid", query.plan->phase_rank[3]);
      statement.bind(":rank_failed", query.plan->phase_rank[4]);
    }
  }
  if (query.name_contains) statement.bind(":contains", NameKey(*query.name_contains));
  if (query.created_after) statement.bind(":created_after", ToMillis(*query.created_after));
  if (query.created_before) statement.bind(":created_before", ToMillis(*query.created_before));
  if (query.modified_after) statement.bind(":modified_after", ToMillis(*query.modified_after));
  if (query.modified_before) statement.bind(":modified_before", ToMillis(*query.modified_before));
  if (query.status) statement.bind(":status", *query.status);
  if (query.after) {
    statement.bind(":after_name", query.after->name_key);
    if (query.sort != SortField::kName) {
      std::visit([&](const auto& value) { statement.bind(":after_value", value); },
                 query.after->value);
    }
  }
  // One more tells whether another page exists (64-bit: a limit of INT_MAX means "all").
  statement.bind(":limit", static_cast<int64_t>(query.limit) + 1);

  ListPage page;
  const size_t expected = std::min<size_t>(static_cast<size_t>(query.limit) + 1, 1024);
  page.positions.reserve(expected);
  while (statement.executeStep()) {
    const SQLite::Column value = statement.getColumn(0);
    ListQuery::Cursor position{SortValue{}, statement.getColumn(1).getString()};
    if (value.isInteger()) {
      position.value = value.getInt64();
    } else {
      position.value = value.getString();
    }
    page.positions.push_back(std::move(position));
  }
  statement.tryReset();  // done: ReadRowOf may run a query of its own
  TakeKeptRows(query, page);
  CutToLimit(page, query.limit);
  return page;
}

void StateStore::TakeKeptRows(const ListQuery& query, ListPage& page) const {
  std::vector<ListQuery::Cursor> positions = std::move(page.positions);
  page.positions.clear();
  page.positions.reserve(positions.size());
  page.kept.reserve(positions.size());
  ResourceKey key{query.account, query.region, query.kind, {}};
  for (ListQuery::Cursor& position : positions) {
    key.name = position.name_key;  // NameKey of a name key is itself
    const KeptRowPtr* kept = ReadRowOfNameKey(key);
    if (kept == nullptr) continue;  // not possible within the lock; skipped, not invented
    page.kept.push_back(*kept);
    page.positions.push_back(std::move(position));
  }
}

void StateStore::ForEachPlanCapacity(const std::function<void(const PlanCapacity&)>& visit) const {
  Prepared statement_lease = Prepare(
      "SELECT arn, region, availability_zone, instance_type, instance_count, start_ms, end_ms, "
      "paid_ms, gap_start_ms, gap_end_ms, second_zone, payment_fails FROM plan_capacity");
  SQLite::Statement& statement = *statement_lease;
  // One value, its strings assigned in place: start-up reads every plan this way, and a vector
  // of them, copied again into commitments, was most of rebuilding the ledger (page faults and
  // copies, in a profile of a start with 10,000 plans).
  PlanCapacity plan;
  PlanCapacity::SecondBlock second;
  auto text = [&statement](int column, std::string& into) {
    const SQLite::Column value = statement.getColumn(column);
    into.assign(static_cast<const char*>(value.getBlob()), static_cast<size_t>(value.getBytes()));
  };
  while (statement.executeStep()) {
    text(0, plan.arn);
    text(1, plan.region);
    text(2, plan.availability_zone);
    text(3, plan.instance_type);
    plan.instance_count = statement.getColumn(4).getInt();
    plan.start = FromMillis(statement.getColumn(5).getInt64());
    plan.end = FromMillis(statement.getColumn(6).getInt64());
    plan.paid = FromMillis(statement.getColumn(7).getInt64());
    plan.payment_fails = statement.getColumn(11).getInt() != 0;
    if (plan.second) second = std::move(*plan.second);
    plan.second.reset();
    text(10, second.zone);
    if (!second.zone.empty()) {
      second.gap_start = FromMillis(statement.getColumn(8).getInt64());
      second.gap_end = FromMillis(statement.getColumn(9).getInt64());
      plan.second = std::move(second);
    }
    visit(plan);
  }
}

std::vector<PlanCapacity> StateStore::AllPlanCapacity() const {
  std::vector<PlanCapacity> plans;
  ForEachPlanCapacity([&plans](const PlanCapacity& plan) { plans.push_back(plan); });
  return plans;
}

Tags StateStore::GetTags(const std::string& arn) const {
  Tags tags;
  for (PositionedTag& tag : GetPositionedTags(arn)) {
    tags.emplace_back(std::move(tag.key), std::move(tag.value));
  }
  return tags;
}

std::optional<ResourceRow> StateStore::FindByArn(const std::string& arn) const {
  Prepared statement_lease =
      Prepare(std::string("SELECT ") + kRowColumns + " FROM resources WHERE arn = ?");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, arn);
  if (!statement.executeStep()) return std::nullopt;
  return ReadRow(statement);
}

std::vector<PositionedTag> StateStore::GetPositionedTags(const std::string& arn) const {
  Prepared statement_lease =
      Prepare("SELECT position, key, value FROM tags WHERE arn = ? ORDER BY position, key");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, arn);
  std::vector<PositionedTag> tags;
  while (statement.executeStep()) {
    tags.push_back({statement.getColumn(0).getInt64(), statement.getColumn(1).getString(),
                    statement.getColumn(2).getString()});
  }
  return tags;
}

void StateStore::PutTags(const std::string& arn, const Tags& tags) {
  WriteScope transaction(*this);
  Prepared upsert_lease = Prepare(
      "INSERT INTO tags (arn, position, key, value) VALUES (:arn, (SELECT COALESCE(MAX(position), "
      "-1) + 1 FROM tags WHERE arn = :arn), :key, :value) ON CONFLICT (arn, key) DO UPDATE SET "
      "value = excluded.value");
  SQLite::Statement& upsert = *upsert_lease;
  for (const auto& [key, value] : tags) {
    upsert.bind(":arn", arn);
    upsert.bind(":key", key);
    upsert.bind(":value", value);
    upsert.exec();
    upsert.reset();
  }
  transaction.Commit();
}

int StateStore::DeleteTags(const std::string& arn, const std::vector<std::string>& keys) {
  WriteScope transaction(*this);
  Prepared remove_lease = Prepare("DELETE FROM tags WHERE arn = ? AND key = ?");
  SQLite::Statement& remove = *remove_lease;
  int removed = 0;
  for (const std::string& key : keys) {
    remove.bind(1, arn);
    remove.bind(2, key);
    removed += remove.exec();
    remove.reset();
  }
  transaction.Commit();
  return removed;
}

std::optional<std::string> StateStore::GetSetting(const std::string& key) const {
  Prepared statement_lease = Prepare("SELECT value FROM emulator_state WHERE key = ?");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, key);
  if (!statement.executeStep()) return std::nullopt;
  return statement.getColumn(0).getString();
}

void StateStore::PutSetting(const std::string& key, const std::string& value) {
  WriteScope transaction(*this);
  Prepared statement_lease = Prepare(
      "INSERT INTO emulator_state (key, value) VALUES (?, ?) ON CONFLICT "
      "(key) DO UPDATE SET value = excluded.value");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, key);
  statement.bind(2, value);
  statement.exec();
  transaction.Commit();
}

void StateStore::DeleteSetting(const std::string& key) {
  WriteScope transaction(*this);
  Prepared statement_lease = Prepare("DELETE FROM emulator_state WHERE key = ?");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, key);
  statement.exec();
  transaction.Commit();
}

void StateStore::LogHolds(const ResourceKey& key, const std::string& arn,
                          const std::vector<HeldCount>& holds, TimePoint at) {
  WriteScope transaction(*this);
  const int64_t at_ms = ToMillis(at);
  {
    Prepared drop =
        Prepare("DELETE FROM holdings_log WHERE arn = ? AND to_ms IS NULL AND from_ms >= ?");
    drop->bind(1, arn);
    drop->bind(2, at_ms);
    drop->exec();
  }
  {
    Prepared close = Prepare("UPDATE holdings_log SET to_ms = ? WHERE arn = ? AND to_ms IS NULL");
    close->bind(1, at_ms);
    close->bind(2, arn);
    close->exec();
  }
  for (const HeldCount& held : holds) {
    if (held.count <= 0) continue;
    Prepared open = Prepare(
        "INSERT INTO holdings_log (arn, account, region, kind, name, instance_type, plan_arn, "
        "count, from_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
    SQLite::Statement& insert = *open;
    insert.bind(1, arn);
    insert.bind(2, key.account);
    insert.bind(3, key.region);
    insert.bind(4, key.kind);
    insert.bind(5, key.name);
    insert.bind(6, held.instance_type);
    insert.bind(7, held.plan_arn);
    insert.bind(8, held.count);
    insert.bind(9, at_ms);
    insert.exec();
  }
  transaction.Commit();
}

namespace {

constexpr const char* kStretchColumns =
    "arn, account, region, kind, name, instance_type, plan_arn, count, from_ms, to_ms";

HeldStretch StretchFromRow(SQLite::Statement& statement) {
  HeldStretch stretch;
  stretch.arn = statement.getColumn(0).getString();
  stretch.account = statement.getColumn(1).getString();
  stretch.region = statement.getColumn(2).getString();
  stretch.kind = statement.getColumn(3).getString();
  stretch.name = statement.getColumn(4).getString();
  stretch.instance_type = statement.getColumn(5).getString();
  stretch.plan_arn = statement.getColumn(6).getString();
  stretch.count = statement.getColumn(7).getInt();
  stretch.from = FromMillis(statement.getColumn(8).getInt64());
  if (!statement.getColumn(9).isNull()) stretch.to = FromMillis(statement.getColumn(9).getInt64());
  return stretch;
}

}  // namespace

std::vector<HeldStretch> StateStore::HeldBetween(TimePoint from, TimePoint to,
                                                 const std::optional<std::string>& account) const {
  Prepared statement_lease =
      Prepare(std::string("SELECT ") + kStretchColumns +
              " FROM holdings_log WHERE from_ms < :to AND (to_ms IS NULL OR to_ms > :from) "
              "AND (:account IS NULL OR account = :account) ORDER BY rowid");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(":to", ToMillis(to));
  statement.bind(":from", ToMillis(from));
  if (account) {
    statement.bind(":account", *account);
  } else {
    statement.bind(":account");
  }
  std::vector<HeldStretch> stretches;
  while (statement.executeStep()) stretches.push_back(StretchFromRow(statement));
  return stretches;
}

std::vector<HeldStretch> StateStore::HeldNow() const {
  Prepared statement_lease = Prepare(std::string("SELECT ") + kStretchColumns +
                                     " FROM holdings_log WHERE to_ms IS NULL ORDER BY rowid");
  std::vector<HeldStretch> stretches;
  while (statement_lease->executeStep()) stretches.push_back(StretchFromRow(*statement_lease));
  return stretches;
}

void StateStore::CutHoldingsLogAt(TimePoint at) {
  WriteScope transaction(*this);
  {
    Prepared drop = Prepare("DELETE FROM holdings_log WHERE from_ms > ?");
    drop->bind(1, ToMillis(at));
    drop->exec();
  }
  {
    Prepared cut = Prepare("UPDATE holdings_log SET to_ms = ? WHERE to_ms > ?");
    cut->bind(1, ToMillis(at));
    cut->bind(2, ToMillis(at));
    cut->exec();
  }
  transaction.Commit();
}

void StateStore::DeleteEverything() {
  ForgetWhatWasRead();
  WriteScope transaction(*this);
  db_->exec(
      "DELETE FROM resources; DELETE FROM tags; DELETE FROM emulator_state; "
      "DELETE FROM holdings_log; DELETE FROM plan_capacity;");
  transaction.Commit();
}

long long StateStore::TotalChanges() const { return db_->getTotalChanges(); }

std::string StateStore::IntegrityCheck() const {
  return db_->execAndGet("PRAGMA integrity_check").getString();
}

// Transaction control runs through cached statements too: compiling BEGIN and COMMIT for every
// request cost more than running them.
void StateStore::Execute(const std::string& sql) { Prepare(sql)->exec(); }

StateStore::WriteScope::WriteScope(StateStore& store)
    : store_(store), depth_(store.write_depth_++) {
  try {
    if (depth_ > 0 || store_.batching_) {
      if (depth_ == 0 && !store_.batch_open_) {
        store_.Execute("BEGIN IMMEDIATE");
        store_.batch_open_ = true;
      }
      store_.Execute("SAVEPOINT s" + std::to_string(depth_));
    } else {
      // A read-only file cannot take the write lock that BEGIN IMMEDIATE asks for; a deferred
      // transaction still serves reads and fails at the first write.
      store_.Execute(store_.read_only_ ? "BEGIN" : "BEGIN IMMEDIATE");
    }
    changes_before_ = store_.db_->getTotalChanges();
  } catch (...) {
    --store_.write_depth_;
    throw;
  }
}

void StateStore::WriteScope::Commit() {
  const bool own_transaction = depth_ == 0 && !store_.batching_;
  store_.Execute(own_transaction ? std::string("COMMIT") : "RELEASE s" + std::to_string(depth_));
  if (depth_ == 0 && store_.db_->getTotalChanges() != changes_before_) ++store_.committed_writes_;
  done_ = true;
  --store_.write_depth_;
}

StateStore::WriteScope::~WriteScope() {
  if (done_) return;
  store_.ForgetWhatWasRead();  // rows read since the scope began may be rolled back with it
  try {
    if (depth_ == 0 && !store_.batching_) {
      store_.Execute("ROLLBACK");
    } else {
      store_.Execute("ROLLBACK TO s" + std::to_string(depth_));
      store_.Execute("RELEASE s" + std::to_string(depth_));
    }
  } catch (const std::exception&) {
    // Rolling back can fail only if the connection is broken; there is nothing left to undo.
  }
  // Some errors (a full disk, an I/O error) make SQLite roll the whole transaction back: with
  // batching, the writes of earlier requests in the batch are gone too.
  if (store_.batch_open_ && sqlite3_get_autocommit(store_.db_->getHandle()) != 0) {
    store_.batch_open_ = false;
    store_.batch_lost_ = true;
  }
  --store_.write_depth_;
}

}  // namespace smemu::store
