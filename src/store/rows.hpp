// The store's rows and what is asked of them: a resource's key and row, its tags, what a
// training plan reserves, the holdings log's stretches, and a listing's query. Plain values, shared
// by the rows in memory (store/tables.hpp) and the database (store/state_store.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "smemu/clock.hpp"

namespace smemu::store {

// Identifies one resource. Lookups ignore the case of `name`.
struct ResourceKey {
  std::string account;
  std::string region;
  std::string kind;  // a kind's wire name (domain::WireName)
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

    bool operator==(const SecondBlock&) const = default;
  };
  std::optional<SecondBlock> second;

  bool operator==(const PlanCapacity&) const = default;
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

// The database refused a write (a full disk, a read-only file, an I/O error). The message names
// the file and SQLite's reason; the request that met it was rolled back.
class StoreFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Lower-cases ASCII letters; AWS names are ASCII.
std::string NameKey(std::string_view name);

}  // namespace smemu::store
