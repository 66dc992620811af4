// StateStore's rows one at a time: Insert, Update and Delete, written to the database and then to
// the rows in memory; and loading those rows when the store opens.
#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
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
    int position = 0;
    for (const auto& [key, value] : tags) {
      tag.bind(1, row.arn);
      tag.bind(2, position++);
      tag.bind(3, key);
      tag.bind(4, value);
      tag.exec();
      tag.reset();
    }
    tables_.Insert(row, tags);
  }
  transaction.Commit();
  return true;
}

bool StateStore::Update(const ResourceRow& row) {
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
  if (changed) tables_.Update(row);
  transaction.Commit();
  return changed;
}

bool StateStore::Delete(const ResourceKey& key) {
  WriteScope transaction(*this);
  Prepared select_lease = Prepare(
      "SELECT arn FROM resources WHERE account = :account AND region = "
      ":region AND kind = :kind AND name_key = :name_key");
  SQLite::Statement& select = *select_lease;
  BindKey(select, key);
  if (!select.executeStep()) return false;
  const std::string arn = select.getColumn(0).getString();
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
  tables_.Delete(key);
  transaction.Commit();
  return true;
}

Tables StateStore::LoadTables() const {
  Tables::Contents contents;
  {
    Prepared rows_lease = Prepare(std::string("SELECT ") + kRowColumns + " FROM resources");
    SQLite::Statement& rows = *rows_lease;
    while (rows.executeStep())
      contents.rows.push_back(std::make_shared<const KeptRow>(ReadRow(rows)));
  }
  {
    // In the order of the primary key, so that each ARN's tags come together.
    Prepared tags_lease = Prepare("SELECT arn, position, key, value FROM tags ORDER BY arn, key");
    SQLite::Statement& tags = *tags_lease;
    KeptTags of_one;
    auto keep = [&contents, &of_one] {
      if (of_one.tags.empty()) return;
      std::sort(of_one.tags.begin(), of_one.tags.end(),
                [](const PositionedTag& a, const PositionedTag& b) {
                  return std::tie(a.position, a.key) < std::tie(b.position, b.key);
                });
      contents.tags.push_back(std::make_shared<const KeptTags>(std::move(of_one)));
      of_one = {};
    };
    while (tags.executeStep()) {
      const SQLite::Column arn = tags.getColumn(0);
      if (std::string_view(arn.getText(), static_cast<size_t>(arn.getBytes())) != of_one.arn) {
        keep();
        of_one.arn = arn.getString();
      }
      of_one.tags.push_back({tags.getColumn(1).getInt64(), tags.getColumn(2).getString(),
                             tags.getColumn(3).getString()});
    }
    keep();
  }
  ReadPlanCapacity(contents.plans);
  {
    Prepared settings_lease = Prepare("SELECT key, value FROM emulator_state");
    SQLite::Statement& settings = *settings_lease;
    while (settings.executeStep()) {
      contents.settings.emplace_back(settings.getColumn(0).getString(),
                                     settings.getColumn(1).getString());
    }
  }
  return Tables::Load(std::move(contents));
}

}  // namespace smemu::store
