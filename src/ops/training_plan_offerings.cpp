// SearchTrainingPlanOfferings: offerings for new plans from the capacity ledger, and, given a
// TrainingPlanArn, offerings that extend the plan; each found offering is remembered (OfferingBook)
// until it expires, for CreateTrainingPlan or ExtendTrainingPlan to buy.

#include <string>
#include <vector>

#include "domain/training_plan.hpp"
#include "ops/plan_records.hpp"
#include "ops/quota_checks.hpp"
#include "ops/training_plans_internal.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace training_plans {
namespace {

using domain::Result;
using nlohmann::json;

void WriteOffering(JsonWriter& out, const domain::Offering& offering) {
  out.BeginObject().Member("TrainingPlanOfferingId", offering.id);
  WriteStrings(out, "TargetResources", offering.target_resources);
  out.TimestampMember("RequestedStartTimeAfter", offering.requested_start_after)
      .OptionalTimestampMember("RequestedEndTimeBefore", offering.requested_end_before);
  WriteDuration(out, domain::ReservedTime(offering.blocks));  // the blocks', as a plan's
  out.Member("UpfrontFee", domain::FormatFee(offering.upfront_fee))
      .Member("CurrencyCode", kCurrency)
      .Key("ReservedCapacityOfferings")
      .BeginArray();
  for (const domain::CapacityBlock& block : offering.blocks) {
    out.BeginObject();
    WriteCapacityType(out, offering.ultraservers);
    out.Member("InstanceType", block.pool.instance_type)
        .Member("InstanceCount", offering.instance_count)
        .Member("AvailabilityZone", block.pool.availability_zone);
    WriteWindow(out, block.window);
    out.EndObject();
  }
  out.EndArray().EndObject();
}

std::vector<std::string> AllInstanceTypes(const Context& ctx) {
  std::vector<std::string> types;
  for (const auto& [type, prices] : ctx.capacity.prices) types.push_back(type);
  return types;
}

void WriteExtensionOffering(JsonWriter& out, const domain::Offering& offering) {
  const domain::CapacityBlock& block = offering.blocks.front();
  out.BeginObject()
      .Member("TrainingPlanExtensionOfferingId", offering.id)
      .Member("AvailabilityZone", block.pool.availability_zone)
      .TimestampMember("StartDate", block.window.start)
      .TimestampMember("EndDate", block.window.end)
      .Member("DurationHours", domain::DurationHours(block.window))
      .Member("UpfrontFee", domain::FormatFee(offering.upfront_fee))
      .Member("CurrencyCode", kCurrency)
      .EndObject();
}

// Extension offerings for a plan: windows that start when it ends, in its last block's zone (an
// extension lengthens the last reserved capacity).
Result<Answer> SearchExtensionOfferings(const json& in, Context& ctx) {
  const std::string arn = in["TrainingPlanArn"];
  const std::optional<Plan> found = PlanByArn(ctx, arn);
  if (!found) {
    // SearchTrainingPlanOfferings models no ResourceNotFound (only ResourceLimitExceeded): a
    // TrainingPlanArn naming no plan is invalid input, as SageMaker answers for other references.
    return domain::ValidationException("Training plan " + domain::Excerpt(arn) +
                                       " does not exist in this account and region.");
  }
  const Plan& plan = *found;
  if (plan.PaymentFails()) {
    return domain::ValidationException("Training plan " + domain::Excerpt(plan.name) +
                                       " is Failed: its payment did not complete, so it cannot "
                                       "be extended.");
  }
  std::vector<Millis> durations = {domain::kDay, 7 * domain::kDay};
  if (in.contains("DurationHours")) {
    auto duration = domain::ExtensionDuration(in["DurationHours"].get<long long>());
    if (!duration) return duration.error();
    durations = {*duration};
  }
  JsonWriter out;
  out.BeginObject().Key("TrainingPlanOfferings").BeginArray().EndArray();
  out.Key("TrainingPlanExtensionOfferings").BeginArray();
  const domain::CapacityBlock& last = plan.blocks.back();
  if (last.window.end > ctx.now) {  // an expired plan can no longer be extended
    if (auto ok = domain::CheckExtensionTime(plan.arn, last.window.end, ctx.now); !ok) {
      return ok.error();
    }
    if (auto unpaid = CheckNoPendingExtension(plan, ctx.now); !unpaid) return unpaid.error();
    for (const domain::Offering& offering :
         domain::SearchExtensionOfferings(ctx.ledger, ctx.capacity, plan.arn, last.pool,
                                          plan.instance_count, last.window.end, durations)) {
      ctx.offerings.Remember(offering.id, {offering, ctx.caller.account, ctx.caller.region,
                                           ctx.now + domain::kOfferingLifetime, plan.name});
      WriteExtensionOffering(out, offering);
    }
  }
  out.EndArray().EndObject();
  return Answer::Written(out.Text());
}

}  // namespace

Result<Answer> SearchTrainingPlanOfferings(const json& in, Context& ctx) {
  if (in.contains("TrainingPlanArn")) return SearchExtensionOfferings(in, ctx);
  domain::SearchInput search;
  if (in.contains("InstanceType")) search.instance_type = in["InstanceType"].get<std::string>();
  if (in.contains("InstanceCount")) search.instance_count = in["InstanceCount"].get<long long>();
  if (in.contains("DurationHours")) search.duration_hours = in["DurationHours"].get<long long>();
  search.start_after = OptionalTimestamp(in, "StartTimeAfter");
  search.end_before = OptionalTimestamp(in, "EndTimeBefore");
  search.target_resources = in.value("TargetResources", std::vector<std::string>{});
  if (in.contains("UltraServerType")) search.ultraserver_type = in["UltraServerType"];
  if (in.contains("UltraServerCount")) {
    search.ultraserver_count = in["UltraServerCount"].get<long long>();
  }
  auto request = domain::MakeOfferingRequest(search, ctx.now, AllInstanceTypes(ctx));
  if (!request) return request.error();
  // An account whose reserved-capacity quota cannot take the plan is refused at the search
  // already, as AWS does.
  if (search.instance_type) {
    if (auto allowed =
            CheckReservedCapacityQuota(ctx, *search.instance_type, request->instance_count);
        !allowed) {
      return allowed.error();
    }
  }

  // Forget offerings that can no longer be bought.
  ctx.offerings.ForgetExpired(ctx.now);
  JsonWriter out;
  out.BeginObject().Key("TrainingPlanOfferings").BeginArray();
  for (const domain::Offering& offering : domain::SearchOfferings(
           ctx.ledger, ctx.capacity, ctx.caller.account, ctx.caller.region, *request)) {
    ctx.offerings.Remember(offering.id, {offering, ctx.caller.account, ctx.caller.region,
                                         ctx.now + domain::kOfferingLifetime, ""});
    WriteOffering(out, offering);
  }
  out.EndArray().EndObject();
  return Answer::Written(out.Text());
}

}  // namespace training_plans

void OfferingBook::Remember(const std::string& id, RememberedOffering offering) {
  auto [it, inserted] = by_id_.try_emplace(id);
  // Under a frozen clock a renewal falls due at the same time: no second entry for it.
  if (inserted || it->second.expires != offering.expires) by_expiry_.emplace(offering.expires, id);
  it->second = std::move(offering);
}

void OfferingBook::ForgetExpired(TimePoint now) {
  while (!by_expiry_.empty() && by_expiry_.begin()->first <= now) {
    auto it = by_id_.find(by_expiry_.begin()->second);
    if (it != by_id_.end() && it->second.expires <= now) by_id_.erase(it);
    by_expiry_.erase(by_expiry_.begin());
  }
}

}  // namespace smemu::ops
