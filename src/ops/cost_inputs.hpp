// What the cost ledger (domain/costs.hpp) is computed from, read from the store: the sold plans
// with their fees, the holdings log, and the jobs that listed instance preferences.
#pragma once

#include <optional>
#include <string>

#include "domain/aws_error.hpp"
#include "domain/costs.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

struct CostQuery {
  std::optional<TimePoint> from;       // default: the earliest plan window or holding
  std::optional<TimePoint> to;         // default: now
  std::optional<std::string> account;  // default: every account

  bool operator==(const CostQuery&) const = default;
};

// The ledger for `query` as of ctx.now. ValidationException when `from` is not before `to`.
domain::Result<domain::CostLedger> CostsAt(const Context& ctx, const CostQuery& query);

}  // namespace smemu::ops
