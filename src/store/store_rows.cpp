// StateStore's rows one at a time: Get, Insert, Update, Delete and FindByArn, and the rows read
// (rows_read_) that Get and the listings share.
#include <SQLiteCpp/SQLiteCpp.h>

#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/state_store.hpp"
#include "store/store_internal.hpp"

namespace smemu::store {
namespace {

void BindKey(SQLite::Statement& statement, const ResourceKey& key) {
  statement.bind(":account", key.account);
  statement.bind(":region", key.region);
  statement.bind(":kind", key.kind);
  statement.bind(":name_key", NameKey(key.name));
}

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

std::optional<ResourceRow> StateStore::FindByArn(const std::string& arn) const {
  Prepared statement_lease =
      Prepare(std::string("SELECT ") + kRowColumns + " FROM resources WHERE arn = ?");
  SQLite::Statement& statement = *statement_lease;
  statement.bind(1, arn);
  if (!statement.executeStep()) return std::nullopt;
  return ReadRow(statement);
}

}  // namespace smemu::store
