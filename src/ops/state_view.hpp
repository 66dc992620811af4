// How resources show in the dashboard's state (GET /_emulator/state). Each kind's descriptor
// (ops/kinds.hpp) adds its resources' entries to its own section of the state; the admin views
// put the pools, the on-demand use and the quotas around them.
#pragma once

#include <optional>
#include <string>

#include "domain/capacity_facts.hpp"
#include "ops/context.hpp"
#include "ops/json_writer.hpp"

namespace smemu::ops {

class StateQuery {
 public:
  // `account`: show only that account's resources; all accounts' when unset.
  StateQuery(const Context& ctx, const std::optional<std::string>& account)
      : ctx_(ctx), account_(account) {}

  const Context& ctx() const { return ctx_; }
  bool Shows(const std::string& account) const { return !account_ || *account_ == account; }

  // Writes, into the entry `out` has open, where its instances come from: `on_demand`, or the
  // plan `plan_arn` of `owner` with the plan's status now (Expired when its holders lost it).
  void WriteSource(JsonWriter& out, const domain::Owner& owner, const std::string& plan_arn) const;

 private:
  const Context& ctx_;
  const std::optional<std::string>& account_;
};

}  // namespace smemu::ops
