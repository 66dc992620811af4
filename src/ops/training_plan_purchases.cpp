// CreateTrainingPlan and ExtendTrainingPlan: buying an offering that SearchTrainingPlanOfferings
// found (its capacity held in the ledger, its payment completing after the payment delay, or
// failing where a fault rule says so), and DescribeTrainingPlanExtensionHistory.

#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_names.hpp"
#include "domain/training_plan.hpp"
#include "ops/arn.hpp"
#include "ops/edit.hpp"
#include "ops/listing.hpp"
#include "ops/plan_records.hpp"
#include "ops/quota_checks.hpp"
#include "ops/tag_input.hpp"
#include "ops/training_plans_internal.hpp"

namespace smemu::ops::training_plans {
namespace {

using domain::Result;
using nlohmann::json;

// The StatusMessage of a purchase by `operation` of plan `name` that a fault rule makes fail
// (domain::PlanStatus::kFailed once the payment would have completed); "" when the payment goes
// through.
std::string PaymentFailure(const Context& ctx, std::string_view operation,
                           const std::string& name) {
  const auto fault = ctx.faults.ForLifecycle(
      domain::FaultStage::kPayment, {operation, ctx.caller.account, ctx.caller.region, name});
  if (!fault) return "";
  return std::get<domain::PaymentFault>(*fault).status_message;
}

// The id of a plan's reserved capacity `index` (from 0). The first keeps the form ids had when
// plans had one reserved capacity.
std::string ReservedCapacityId(const std::string& plan_arn, TimePoint created, std::size_t index) {
  std::string salt = plan_arn + "|" + std::to_string(created.time_since_epoch().count());
  if (index > 0) salt += "|" + std::to_string(index);
  return "rc-" + domain::Sha256Hex(salt).substr(0, 16);
}

// An extension's members, into an open object.
void WriteExtension(JsonWriter& out, const Plan::Extension& extension, const Plan& plan,
                    TimePoint now) {
  out.Member("TrainingPlanExtensionOfferingId", extension.offering_id)
      .TimestampMember("ExtendedAt", extension.extended_at)
      .TimestampMember("StartDate", extension.window.start)
      .TimestampMember("EndDate", extension.window.end)
      .Member("Status", domain::PurchaseStatusAt(extension.window, extension.paid_at, now,
                                                 !extension.payment_failure.empty()))
      .Member("PaymentStatus", domain::ToString(domain::PaymentStatusOf(
                                   extension.paid_at, now, !extension.payment_failure.empty())));
  WriteZone(out, plan.blocks.back().pool.availability_zone);
  out.Member("DurationHours", domain::DurationHours(extension.window))
      .Member("UpfrontFee", extension.upfront_fee)
      .Member("CurrencyCode", kCurrency);
}

}  // namespace

Result<json> CreateTrainingPlan(const json& in, Context& ctx) {
  const std::string name = in.at("TrainingPlanName");
  const std::string offering_id = in.at("TrainingPlanOfferingId");
  auto found = ctx.offerings.find(offering_id);
  if (found == ctx.offerings.end() || found->second.account != ctx.caller.account ||
      found->second.region != ctx.caller.region || found->second.expires <= ctx.now ||
      !found->second.extends_plan.empty()) {
    return domain::ResourceNotFound("Training plan offering " + domain::Excerpt(offering_id) +
                                    " was not found or has expired; search again.");
  }
  const store::ResourceKey key = KeyOf(ctx.caller, kPlan, name);
  if (ctx.store.Get(key)) {
    return domain::ResourceInUse("Training plan " + domain::Excerpt(name) + " already exists.");
  }
  const domain::Offering offering = found->second.offering;
  const TimePoint paid_at = ctx.now + ctx.hosting.plan_payment_delay;
  if (auto in_time = domain::CheckPurchaseLeadTime(offering_id, offering.Span().start, paid_at);
      !in_time) {
    return in_time.error();
  }
  const std::string& instance_type = offering.blocks.front().pool.instance_type;
  if (auto allowed = CheckPlanQuotas(ctx, instance_type, offering.instance_count); !allowed) {
    return allowed.error();
  }
  std::vector<Reservation> reservations;
  for (const domain::CapacityBlock& block : offering.blocks) {
    if (ctx.ledger.FreeReservable(block.pool, block.window) < offering.instance_count) {
      return domain::ResourceLimitExceeded("The capacity of training plan offering " +
                                           domain::Excerpt(offering_id) +
                                           " is no longer available. Search for offerings again.");
    }
    reservations.push_back({block.pool, block.window, offering.instance_count, std::nullopt});
  }
  const std::string failure = PaymentFailure(ctx, "CreateTrainingPlan", name);
  if (!failure.empty()) {  // held while Pending, as any purchase; given back when it fails
    for (Reservation& reservation : reservations) reservation.lapses_at = paid_at;
  }
  Plan plan;
  plan.name = name;
  plan.arn = SageMakerArn(ctx.caller, domain::kPlanKind, name);
  plan.blocks = offering.blocks;
  for (std::size_t i = 0; i < plan.blocks.size(); ++i) {
    plan.blocks[i].id = ReservedCapacityId(plan.arn, ctx.now, i);
  }
  plan.instance_count = offering.instance_count;
  plan.target_resources = offering.target_resources;
  plan.upfront_fee = domain::FormatFee(offering.upfront_fee);
  plan.paid_at = paid_at;
  plan.payment_failure = failure;
  if (offering.ultraservers) {
    auto spares = domain::SparesPerUltraServer(
        in.contains("SpareInstanceCountPerUltraServer")
            ? std::optional<long long>(in["SpareInstanceCountPerUltraServer"].get<long long>())
            : std::nullopt,
        *offering.ultraservers);
    if (!spares) return spares.error();
    plan.ultraservers = offering.ultraservers;
    plan.ultraservers->spares_per = *spares;
  }

  const std::string arn = plan.arn;
  ctx.edit.Add(Edit::InsertPlan{key, std::move(plan), ReadTags(in), std::move(reservations)});
  // The offering stays valid until it expires: it can be bought again while capacity lasts.
  return json{{"TrainingPlanArn", arn}};
}

Result<Answer> ExtendTrainingPlan(const json& in, Context& ctx) {
  const std::string offering_id = in.at("TrainingPlanExtensionOfferingId");
  auto found = ctx.offerings.find(offering_id);
  if (found == ctx.offerings.end() || found->second.account != ctx.caller.account ||
      found->second.region != ctx.caller.region || found->second.expires <= ctx.now ||
      found->second.extends_plan.empty()) {
    return domain::ResourceNotFound("Training plan extension offering " +
                                    domain::Excerpt(offering_id) +
                                    " was not found or has expired; search again.");
  }
  const domain::Offering offering = found->second.offering;
  const store::ResourceKey key = KeyOf(ctx.caller, kPlan, found->second.extends_plan);
  auto row = ctx.store.Get(key);
  if (!row) {
    return NotFound(ctx.caller, kPlan, key.name);
  }
  Plan plan = PlanFromRow(*row);
  domain::CapacityBlock& last = plan.blocks.back();
  const domain::Window window = offering.Span();
  if (last.window.end != window.start) {
    return domain::ValidationException("Training plan " + domain::Excerpt(plan.name) +
                                       " no longer ends where this extension offering starts; "
                                       "search for extension offerings again.");
  }
  if (ctx.ledger.FreeReservable(last.pool, window) < plan.instance_count) {
    return domain::ResourceLimitExceeded("The capacity of extension offering " +
                                         domain::Excerpt(offering_id) + " is no longer available.");
  }
  const TimePoint paid_at = ctx.now + ctx.hosting.plan_payment_delay;
  if (auto in_time = domain::CheckPurchaseLeadTime(offering_id, window.start, paid_at); !in_time) {
    return in_time.error();
  }
  if (auto unpaid = CheckNoPendingExtension(plan, ctx.now); !unpaid) return unpaid.error();
  const Plan::Extension extension{
      offering_id, ctx.now,
      window,      domain::FormatFee(offering.upfront_fee),
      paid_at,     PaymentFailure(ctx, "ExtendTrainingPlan", plan.name)};
  plan.extensions.push_back(extension);
  Reservation reservation{last.pool, window, plan.instance_count, std::nullopt};
  if (extension.payment_failure.empty()) {
    last.window.end = window.end;
    plan.upfront_fee = domain::FormatFee(std::stod(plan.upfront_fee) + offering.upfront_fee);
  } else {  // one never paid for lengthens nothing, and holds its window only while Pending
    reservation.lapses_at = paid_at;
  }
  JsonWriter out;
  out.BeginObject().Key("TrainingPlanExtensions").BeginArray().BeginObject();
  WriteExtension(out, extension, plan, ctx.now);
  out.EndObject().EndArray().EndObject();
  ctx.edit.Add(Edit::SavePlan{row->key, std::move(plan), row->created, reservation});
  ctx.offerings.erase(found);
  return Answer::Written(out.Text());
}

Result<Answer> DescribeTrainingPlanExtensionHistory(const json& in, Context& ctx) {
  const std::string arn = in.at("TrainingPlanArn");
  const std::optional<Plan> found = PlanByArn(ctx, arn);
  if (!found) return NotFound(ctx.caller, kPlan, arn);
  const Plan& plan = *found;
  // Extensions are listed in the order they were bought.
  static const ListSpec kSpec{"DescribeTrainingPlanExtensionHistory",
                              {{"PurchaseOrder", std::nullopt, /*numeric=*/true}},
                              /*descending_by_default=*/false};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  std::vector<Positioned<size_t>> extensions;  // each extension's place in the plan's list
  for (size_t i = 0; i < plan.extensions.size(); ++i) {
    extensions.push_back({{static_cast<int64_t>(i), plan.extensions[i].offering_id}, i});
  }
  const auto page = Paginate<size_t>(kSpec, *request, InMemorySource(std::move(extensions), false));
  return WriteListAnswer("TrainingPlanExtensions", page, [&](JsonWriter& out, size_t i) {
    WriteExtension(out, plan.extensions[i], plan, ctx.now);
  });
}

}  // namespace smemu::ops::training_plans
