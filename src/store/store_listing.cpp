// StateStore's reads of many rows: List's filtered, sorted pages (from NameIndex, or from SQL with
// training plans ordered by their window), and the whole-kind reads AllOf and AllOfKind.
#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "store/state_store.hpp"
#include "store/store_internal.hpp"

namespace smemu::store {

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

}  // namespace smemu::store
