// Sold training plans as the operation handlers keep them in the store, and how other operations
// (endpoint configs, endpoints, jobs) find the plan an ARN names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_ledger.hpp"
#include "ops/context.hpp"
#include "ops/resource_kinds.hpp"

namespace smemu::ops {

// A sold plan as kept in the store's JSON document.
struct Plan {
  std::string name;
  std::string arn;
  domain::PoolKey pool;
  int instance_count = 0;
  domain::Window window;
  std::vector<std::string> target_resources;
  std::string upfront_fee;  // everything paid: the plan and its extensions
  std::string reserved_capacity_id;
  struct Extension {
    std::string offering_id;
    TimePoint extended_at;
    domain::Window window;
    std::string upfront_fee;
  };
  std::vector<Extension> extensions;
};

nlohmann::json PlanDoc(const Plan& plan);
Plan PlanFromRow(const store::ResourceRow& row);

std::string ReservedCapacityArn(const Caller& caller, const std::string& id);

// The caller's plan named by its training-plan ARN (same account and region), if any.
std::optional<store::ResourceRow> PlanByArn(const Context& ctx, const std::string& arn);

// The caller's plan named by a training-plan ARN or by the ARN of its reserved capacity.
std::optional<Plan> PlanByReservationArn(const Context& ctx, const std::string& arn);

}  // namespace smemu::ops
