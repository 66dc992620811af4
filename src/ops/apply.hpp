// The one write path. Every change to the emulator's state, whoever makes it (a handler's edit,
// settling, the admin API, the clock, a reset, the start), is an Edit::Change (ops/edit.hpp)
// applied here. This is the only code that calls the store's write API (scripts/check-structure
// checks it), and it keeps what memory holds beside the rows (the ledger's reservations, the
// holdings, the quotas in force) and the holdings log in step with every row it writes.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include "ops/edit.hpp"
#include "ops/versioned.hpp"

namespace smemu::ops {

// What the Applier writes: the store and what memory keeps beside it. Only the Emulator, which
// owns all four under its request lock, makes one.
struct Writer {
  store::StateStore& store;
  Versioned<domain::CapacityLedger>& ledger;
  Versioned<domain::Holdings>& holdings;
  Versioned<domain::QuotaTable>& quotas;
};

class Applier {
 public:
  explicit Applier(Writer writer) : writer_(writer) {}

  // Applies `change` at `at`, in the caller's write scope. A change that cannot apply (an insert
  // whose key exists, a reservation that no longer fits: handlers and settlers check both first)
  // throws std::logic_error, and the caller rolls the whole scope back.
  void Apply(const Edit::Change& change, TimePoint at);
  // Every change of `edit`, in order.
  void Apply(const Edit& edit, TimePoint at);

 private:
  Writer writer_;
};

// The settle loop of the kinds that hold instances one resource at a time (endpoints, clusters):
// settles each of `records` (their resource is the member `held`) with `settle_one`, the domain's
// Settle for the kind, whose answer has the resource after settling in its member `after` (empty
// when it is gone); applies what changed, as `save(record)` or `erase(record)`, and returns when
// the next of them falls due.
template <typename Record, typename Resource, typename Settlement, typename SettleOne,
          typename Save, typename Erase>
std::optional<TimePoint> SettleHeld(Applier& applier, TimePoint now, std::vector<Record> records,
                                    Resource Record::*held,
                                    std::optional<Resource> Settlement::*after, Save save,
                                    Erase erase, SettleOne settle_one) {
  std::optional<TimePoint> next_due;
  for (Record& record : records) {
    Resource& resource = record.*held;
    Settlement settled = settle_one(std::as_const(resource));
    next_due = Earliest(next_due, settled.next_due);
    std::optional<Resource>& settled_resource = settled.*after;
    if (!settled_resource) {
      applier.Apply(erase(record), now);
    } else if (*settled_resource != resource) {
      resource = std::move(*settled_resource);
      applier.Apply(save(std::move(record)), now);
    }
  }
  return next_due;
}

}  // namespace smemu::ops
