#include "ops/capacity_use.hpp"

#include <algorithm>
#include <limits>

namespace smemu::ops {
namespace {

using nlohmann::json;

void AddEndpoints(const store::StateStore& store, const std::string& region,
                  std::vector<Holder>& holders) {
  for (const store::ResourceRow& row : store.AllOfKind(kEndpointKind)) {
    if (!region.empty() && row.key.region != region) continue;
    const json doc = json::parse(row.doc);  // outlives the loop over its variants
    // A serving endpoint that is scaling holds its new count from the moment it asked for it.
    const bool serving = row.status == "InService" || row.status == "Updating";
    for (const json& variant : doc.at("Variants")) {
      const int current = variant.value("CurrentInstanceCount", 0);
      const int held =
          serving ? std::max(current, variant.value("DesiredInstanceCount", current)) : current;
      if (held <= 0) continue;
      std::string plan;
      if (variant.contains("CapacityReservationConfig")) {
        plan = variant["CapacityReservationConfig"].value("MlReservationArn", "");
      }
      holders.push_back(
          {row.arn, kEndpointKind, row.key.region, variant.value("InstanceType", ""), plan, held});
    }
  }
}

// A job holds its selected instances from the moment it starts running until it ends (a stopping
// job until it has stopped).
void AddJobs(const store::StateStore& store, const char* kind, const std::string& region,
             std::vector<Holder>& holders) {
  for (const char* status : kLiveJobStatuses) {
    for (const store::ResourceRow& row : store.AllOfKind(kind, std::string(status))) {
      if (!region.empty() && row.key.region != region) continue;
      const json doc = json::parse(row.doc);
      if (doc.value("Phase", "") != "Running") continue;
      const json& selected = doc.at("Selected");
      holders.push_back({row.arn, kind, row.key.region, selected.value("InstanceType", ""),
                         selected.value("PlanArn", ""), selected.value("InstanceCount", 0)});
    }
  }
}

}  // namespace

std::vector<Holder> HoldersIn(const store::StateStore& store, const std::string& region) {
  std::vector<Holder> holders;
  AddEndpoints(store, region, holders);
  AddJobs(store, kTrainingJobKind, region, holders);
  AddJobs(store, kProcessingJobKind, region, holders);
  return holders;
}

Holdings HoldingsIn(const store::StateStore& store, const std::string& region,
                    const std::string& except_arn) {
  Holdings holdings;
  for (const Holder& holder : HoldersIn(store, region)) {
    if (holder.arn == except_arn) continue;
    if (holder.training_plan_arn.empty()) {
      holdings.on_demand_by_type[holder.instance_type] += holder.count;
    } else {
      holdings.by_plan[holder.training_plan_arn] += holder.count;
    }
  }
  return holdings;
}

int OnDemandTotal(const Context& ctx, const std::string& region, const std::string& type) {
  bool listed = false;
  int total = 0;
  for (const auto& [key, pool] : ctx.ledger.pools()) {
    if (key.region == region && key.instance_type == type) {
      listed = true;
      total += pool.on_demand;
    }
  }
  return listed ? total : std::numeric_limits<int>::max();
}

int OnDemandFree(const Context& ctx, const std::string& region, const std::string& type,
                 Holdings& holdings) {
  const int total = OnDemandTotal(ctx, region, type);
  if (total == std::numeric_limits<int>::max()) return total;
  return total - holdings.on_demand_by_type[type];
}

}  // namespace smemu::ops
