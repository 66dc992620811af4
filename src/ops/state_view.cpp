#include "ops/state_view.hpp"

#include "domain/training_plan.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {

void StateQuery::WriteSource(JsonWriter& out, const domain::Owner& owner,
                             const std::string& plan_arn) const {
  if (plan_arn.empty()) {
    out.Key("on_demand").Bool(true);
    return;
  }
  out.Member("training_plan_arn", plan_arn);
  // Each plan is decoded once per stored version, however many holders name it.
  if (const auto plan = PlanByReservationArn(ctx_.store, owner, plan_arn)) {
    out.Member("training_plan_status", domain::PlanStatusAt(*plan, ctx_.now));
  }
}

}  // namespace smemu::ops
