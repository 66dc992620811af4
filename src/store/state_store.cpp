// StateStore's opening and migrations, its sync modes and group commit, its transactions
// (WriteScope) and what concerns the whole database.
#include "store/state_store.hpp"

#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <string_view>

#include "embed/embedded_files.hpp"
#include "store/store_internal.hpp"

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

}  // namespace

StateStore::Prepared StateStore::Prepare(const std::string& sql) const {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    it = statements_.emplace(sql, std::make_unique<SQLite::Statement>(*db_, sql)).first;
  }
  return Prepared(*it->second);
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
    tables_ = LoadTables();
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
  if (!failure.empty()) tables_ = LoadTables();  // the batch's writes are gone
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

void StateStore::DeleteEverything() {
  WriteScope transaction(*this);
  db_->exec(
      "DELETE FROM resources; DELETE FROM tags; DELETE FROM emulator_state; "
      "DELETE FROM holdings_log; DELETE FROM plan_capacity;");
  tables_.Clear();
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
    : store_(store), depth_(store.write_depth_++), tables_before_(store.tables_) {
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
  store_.tables_ = tables_before_;
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
    try {
      store_.tables_ = store_.LoadTables();  // what the database still has
    } catch (const std::exception&) {
      // A connection too broken to read: the next request fails the same way.
    }
  }
  --store_.write_depth_;
}

}  // namespace smemu::store
