// StateStore's holdings log (table holdings_log): the stretches of time during which each resource
// held instances, logged by LogHolds, read by HeldBetween and HeldNow, cut by CutHoldingsLogAt.
#include <SQLiteCpp/SQLiteCpp.h>

#include <optional>
#include <string>
#include <vector>

#include "store/state_store.hpp"
#include "store/store_internal.hpp"

namespace smemu::store {

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

}  // namespace smemu::store
