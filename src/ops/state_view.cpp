#include "ops/state_view.hpp"

#include "domain/training_plan.hpp"

namespace smemu::ops {

nlohmann::json StateQuery::WithSource(nlohmann::json entry, const domain::Owner& owner,
                                      const std::string& plan_arn) const {
  if (plan_arn.empty()) {
    entry["on_demand"] = true;
    return entry;
  }
  entry["training_plan_arn"] = plan_arn;
  if (const auto plan = facts_.Plan(owner, plan_arn)) {
    entry["training_plan_status"] = domain::PlanStatusAt(plan->window, ctx_.now);
  }
  return entry;
}

}  // namespace smemu::ops
