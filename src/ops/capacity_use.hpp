// Who holds which instances right now: endpoints and jobs of a region, on training plans and on the
// region's on-demand pools. Endpoints and jobs compete for the same instances through this view.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/context.hpp"
#include "ops/resource_kinds.hpp"

namespace smemu::ops {

// The statuses of a job that may still hold instances: running, or shutting them down.
inline constexpr const char* kLiveJobStatuses[] = {"InProgress", "Stopping"};

// Instances held in a region: per plan ARN, and per on-demand instance type.
struct Holdings {
  std::map<std::string, int> by_plan;
  std::map<std::string, int> on_demand_by_type;
};

// One endpoint variant or job holding instances, on a plan or on demand.
struct Holder {
  std::string arn;
  std::string kind;  // endpoint, training-job, processing-job
  std::string region;
  std::string instance_type;
  std::string training_plan_arn;  // empty: on-demand
  int count = 0;
};

// Every holder in `region` (all regions when empty), endpoints first, then jobs.
std::vector<Holder> HoldersIn(const store::StateStore& store, const std::string& region);

// `except_arn`: a resource whose holdings are left out (an endpoint swapping to a new config).
Holdings HoldingsIn(const store::StateStore& store, const std::string& region,
                    const std::string& except_arn = "");

// On-demand instances of a type in a region; unlimited (INT_MAX) when the configuration does not
// list the type.
int OnDemandTotal(const Context& ctx, const std::string& region, const std::string& type);

// On-demand instances of a type still free in a region, given what `holdings` already holds.
int OnDemandFree(const Context& ctx, const std::string& region, const std::string& type,
                 Holdings& holdings);

}  // namespace smemu::ops
