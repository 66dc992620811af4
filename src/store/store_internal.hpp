// Private to the store: what the files of StateStore's implementation share (the statement
// lease, the columns of a row and the time conversions).
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <string>

#include "smemu/clock.hpp"
#include "store/state_store.hpp"

namespace smemu::store {

inline int64_t ToMillis(TimePoint t) { return t.time_since_epoch().count(); }
inline TimePoint FromMillis(int64_t ms) { return TimePoint{Millis{ms}}; }

inline constexpr const char* kRowColumns =
    "account, region, kind, name, arn, status, created_ms, modified_ms, doc";

// Reads the columns of kRowColumns.
inline ResourceRow ReadRow(SQLite::Statement& statement) {
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

}  // namespace smemu::store
