// Tables' reads of many rows: List's filtered, sorted pages, and the whole-kind reads AllOf and
// AllOfKind. A page sorted by name, creation time or a plan's start walks the index in that order
// from where the last page ended, so it costs the rows it returns (and those its filters skip),
// not the scope's size; the other sorts (status, a plan's phase) sort the scope's rows.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "store/tables.hpp"
#include "store/tables_keys.hpp"

namespace smemu::store {
namespace {

std::string ScopePrefix(const std::string& kind, const std::string& account,
                        const std::string& region) {
  std::string prefix;
  keys::Field(prefix, kind);
  keys::Field(prefix, account);
  keys::Field(prefix, region);
  return prefix;
}

std::string PlanScopePrefix(const std::string& account, const std::string& region) {
  std::string prefix;
  keys::Field(prefix, account);
  keys::Field(prefix, region);
  return prefix;
}

WindowPhase PhaseAt(const PlanCapacity& plan, TimePoint now) {
  if (now < plan.paid) return WindowPhase::kUnpaid;
  if (plan.payment_fails) return WindowPhase::kFailed;
  if (now < plan.start) return WindowPhase::kBefore;
  if (plan.second && now >= plan.second->gap_start && now < plan.second->gap_end) {
    return WindowPhase::kBefore;  // between the two blocks
  }
  if (now < plan.end) return WindowPhase::kDuring;
  return WindowPhase::kAfter;
}

// One row the page may take, with its place in the sort.
struct Candidate {
  SortValue value;
  std::string name_key;
  KeptRowPtr kept;
};

// A page's extra row only tells that another page exists.
void CutToLimit(ListPage& page, int limit) {
  if (static_cast<int64_t>(page.positions.size()) > limit) {
    page.kept.pop_back();
    page.positions.pop_back();
    page.has_more = true;
  }
}

size_t Wanted(const ListQuery& query) { return static_cast<size_t>(query.limit) + 1; }

// Walks `map`'s keys that start with `prefix` in the query's direction, from just past `from`
// (a key spelt like the map's, or empty: from the first), until `visit` returns false.
template <class Map, class Visit>
void WalkScope(const Map& map, const std::string& prefix, const std::string& from, bool descending,
               Visit&& visit) {
  auto in_scope = [&](std::string_view key, const auto& value) {
    return keys::StartsWith(key, prefix) && visit(key, value);
  };
  if (descending) {
    map.Descend(from.empty() ? prefix + keys::kAfterAll : from, false, in_scope);
  } else {
    map.Ascend(from.empty() ? prefix : from, from.empty(), in_scope);
  }
}

}  // namespace

bool Tables::Passes(const ListQuery& query, const ResourceRow& row,
                    const PlanCapacity* plan) const {
  if (query.created_after && !(row.created > *query.created_after)) return false;
  if (query.created_before && !(row.created < *query.created_before)) return false;
  if (query.modified_after && !(row.modified > *query.modified_after)) return false;
  if (query.modified_before && !(row.modified < *query.modified_before)) return false;
  if (query.status && row.status != *query.status) return false;
  if (query.plan) {
    if (plan == nullptr) return false;  // a plan is listed by what it reserves
    const ListQuery::PlanWindow& window = *query.plan;
    if (window.start_after && !(plan->start > *window.start_after)) return false;
    if (window.start_before && !(plan->start < *window.start_before)) return false;
    if (!window.phases.empty() && std::find(window.phases.begin(), window.phases.end(),
                                            PhaseAt(*plan, window.now)) == window.phases.end()) {
      return false;
    }
  }
  return true;
}

ListPage Tables::List(const ListQuery& query) const {
  if ((query.sort == SortField::kPlanStart || query.sort == SortField::kPlanPhase) && !query.plan) {
    throw std::logic_error("a listing sorted by a plan's window needs ListQuery::plan");
  }
  ListPage page;
  if (!ListAlongIndex(query, page)) ListBySorting(query, page);
  CutToLimit(page, query.limit);
  return page;
}

bool Tables::ListAlongIndex(const ListQuery& query, ListPage& page) const {
  const bool by_time =
      query.sort == SortField::kCreationTime || query.sort == SortField::kPlanStart;
  if (by_time && query.after && !std::holds_alternative<int64_t>(query.after->value)) {
    return false;  // a cursor of another type: ordered as the database orders mixed types
  }
  const std::string pattern = query.name_contains ? NameKey(*query.name_contains) : "";
  const std::string row_prefix = ScopePrefix(query.kind, query.account, query.region);
  const std::string plan_prefix = PlanScopePrefix(query.account, query.region);
  // The keys of one name, written into buffers kept from one row to the next.
  std::string row_key = row_prefix;
  std::string plan_key = plan_prefix;
  auto key_of = [](std::string& key, size_t prefix, std::string_view name_key) -> std::string& {
    key.resize(prefix);
    key.append(name_key).push_back(keys::kEnd);
    return key;
  };
  // Takes the row of `name_key` if it passes the filters; false once the page is full. `kept` and
  // `plan` are the row and the plan's capacity when the walk has them already.
  auto take = [&](std::string_view name_key, const KeptRowPtr* kept, SortValue value,
                  const PlanPtr* plan = nullptr) {
    if (!pattern.empty() && name_key.find(pattern) == std::string_view::npos) return true;
    if (kept == nullptr) kept = rows_.Find(key_of(row_key, row_prefix.size(), name_key));
    if (kept == nullptr) return true;  // a plan's capacity of another kind's name
    if (query.plan && plan == nullptr) {
      plan = plans_.Find(key_of(plan_key, plan_prefix.size(), name_key));
      if (plan == nullptr) return true;
    }
    if (!Passes(query, (*kept)->row(), plan ? plan->get() : nullptr)) return true;
    page.kept.push_back(*kept);
    page.positions.push_back({std::move(value), std::string(name_key)});
    return page.kept.size() < Wanted(query);
  };
  auto after_time = [&](const std::string& prefix) {
    if (!query.after) return std::string();
    std::string from = prefix;
    keys::Time(from, std::get<int64_t>(query.after->value));
    keys::Field(from, query.after->name_key);
    return from;
  };
  switch (query.sort) {
    case SortField::kName: {
      const std::string& prefix = query.plan ? plan_prefix : row_prefix;
      const std::string from = query.after ? prefix + query.after->name_key + keys::kEnd : "";
      auto visit = [&](std::string_view key, const auto& value) {
        const std::string_view name_key = keys::LastField(key);
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, KeptRowPtr>) {
          return take(name_key, &value, std::string(name_key));
        } else {
          return take(name_key, nullptr, std::string(name_key), &value);
        }
      };
      if (query.plan) {
        WalkScope(plans_, prefix, from, query.descending, visit);
      } else {
        WalkScope(rows_, prefix, from, query.descending, visit);
      }
      return true;
    }
    case SortField::kCreationTime:
      WalkScope(by_created_, row_prefix, after_time(row_prefix), query.descending,
                [&](std::string_view key, const KeptRowPtr& kept) {
                  return take(keys::LastField(key), &kept, keys::Millis(kept->row().created));
                });
      return true;
    case SortField::kPlanStart:
      WalkScope(plans_by_start_, plan_prefix, after_time(plan_prefix), query.descending,
                [&](std::string_view key, const PlanPtr& plan) {
                  return take(keys::LastField(key), nullptr, keys::Millis(plan->start), &plan);
                });
      return true;
    case SortField::kStatus:
    case SortField::kPlanPhase:
      return false;
  }
  return false;
}

void Tables::ListBySorting(const ListQuery& query, ListPage& page) const {
  const std::string pattern = query.name_contains ? NameKey(*query.name_contains) : "";
  const std::string row_prefix = ScopePrefix(query.kind, query.account, query.region);
  const std::string plan_prefix = PlanScopePrefix(query.account, query.region);
  std::vector<Candidate> candidates;
  auto consider = [&](std::string_view name_key, const KeptRowPtr& kept, const PlanCapacity* plan) {
    if (!pattern.empty() && name_key.find(pattern) == std::string_view::npos) return;
    if (!Passes(query, kept->row(), plan)) return;
    SortValue value;
    switch (query.sort) {
      case SortField::kName:
        value = std::string(name_key);
        break;
      case SortField::kCreationTime:
        value = keys::Millis(kept->row().created);
        break;
      case SortField::kStatus:
        value = kept->row().status;
        break;
      case SortField::kPlanStart:
        value = keys::Millis(plan->start);
        break;
      case SortField::kPlanPhase:
        value = query.plan->phase_rank[static_cast<size_t>(PhaseAt(*plan, query.plan->now))];
        break;
    }
    candidates.push_back({std::move(value), std::string(name_key), kept});
  };
  if (query.plan) {
    WalkScope(plans_, plan_prefix, "", false, [&](std::string_view key, const PlanPtr& plan) {
      const std::string_view name_key = keys::LastField(key);
      if (const KeptRowPtr* kept = rows_.Find(row_prefix + std::string(name_key) + keys::kEnd)) {
        consider(name_key, *kept, plan.get());
      }
      return true;
    });
  } else {
    WalkScope(rows_, row_prefix, "", false, [&](std::string_view key, const KeptRowPtr& kept) {
      consider(keys::LastField(key), kept, nullptr);
      return true;
    });
  }
  // Mixed types order as the database orders them: integers before text.
  auto before = [&query](const Candidate& a, const Candidate& b) {
    return query.descending ? std::tie(b.value, b.name_key) < std::tie(a.value, a.name_key)
                            : std::tie(a.value, a.name_key) < std::tie(b.value, b.name_key);
  };
  if (query.after) {
    const Candidate cursor{
        query.sort == SortField::kName ? SortValue(query.after->name_key) : query.after->value,
        query.after->name_key, nullptr};
    std::erase_if(candidates, [&](const Candidate& c) { return !before(cursor, c); });
  }
  const size_t wanted = std::min(Wanted(query), candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(wanted),
                    candidates.end(), before);
  candidates.resize(wanted);
  for (Candidate& candidate : candidates) {
    page.kept.push_back(std::move(candidate.kept));
    page.positions.push_back({std::move(candidate.value), std::move(candidate.name_key)});
  }
}

std::vector<KeptRowPtr> Tables::AllOfKind(const std::string& kind,
                                          const std::optional<std::string>& status) const {
  std::vector<KeptRowPtr> rows;
  std::string prefix;
  keys::Field(prefix, kind);
  if (status) keys::Field(prefix, *status);
  // With a status, the index orders them: by creation time, then account, region and name key.
  // Without, they come in key order (account, region, name key) and are sorted.
  WalkScope(status ? by_status_ : rows_, prefix, "", false,
            [&rows](std::string_view, const KeptRowPtr& kept) {
              rows.push_back(kept);
              return true;
            });
  if (!status) {
    std::stable_sort(rows.begin(), rows.end(), [](const KeptRowPtr& a, const KeptRowPtr& b) {
      return std::tie(a->row().created, a->row().status) <
             std::tie(b->row().created, b->row().status);
    });
  }
  return rows;
}

std::vector<KeptRowPtr> Tables::AllOf(const std::string& account, const std::string& region,
                                      const std::string& kind) const {
  std::vector<KeptRowPtr> rows;
  WalkScope(rows_, ScopePrefix(kind, account, region), "", false,
            [&rows](std::string_view, const KeptRowPtr& kept) {
              rows.push_back(kept);
              return true;
            });
  return rows;
}

}  // namespace smemu::store
