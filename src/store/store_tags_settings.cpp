// StateStore's tags of every resource, by ARN (table tags), and the emulator's own settings
// (table emulator_state).
#include <SQLiteCpp/SQLiteCpp.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/state_store.hpp"
#include "store/store_internal.hpp"

namespace smemu::store {

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
  tables_.PutTags(arn, tags);
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
  tables_.DeleteTags(arn, keys);
  transaction.Commit();
  return removed;
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
  tables_.PutSetting(key, value);
  transaction.Commit();
}

}  // namespace smemu::store
