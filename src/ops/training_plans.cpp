// SearchTrainingPlanOfferings, CreateTrainingPlan, DescribeTrainingPlan, ListTrainingPlans,
// DescribeReservedCapacity: plans sold from the capacity ledger, with statuses from the clock.

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include "domain/aws_names.hpp"
#include "domain/time_format.hpp"
#include "ops/arn.hpp"
#include "ops/cluster_records.hpp"
#include "ops/edit.hpp"
#include "ops/kinds.hpp"
#include "ops/listing.hpp"
#include "ops/plan_records.hpp"
#include "ops/quota_checks.hpp"
#include "ops/tag_input.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

constexpr const char* kCurrency = "USD";
// A plan's StatusMessage once paid, as AWS's pages show it ("Upon successful upfront payment, the
// plan status becomes Scheduled"), and while its payment is processed (AWS shows no text for
// that: the emulator's own).
constexpr const char* kPaymentConfirmed = "Payment confirmed, training plan scheduled.";
constexpr const char* kPaymentPending = "Payment is being processed.";
constexpr domain::ResourceKind kPlan = domain::ResourceKind::kTrainingPlan;

void WriteDuration(JsonWriter& out, Millis duration) {
  out.Member("DurationHours", domain::DurationHours(duration))
      .Member("DurationMinutes", domain::DurationMinutes(duration));
}

// A window's duration, start and end (StartTime, EndTime).
void WriteWindow(JsonWriter& out, const domain::Window& window) {
  WriteDuration(out, window.end - window.start);
  out.TimestampMember("StartTime", window.start).TimestampMember("EndTime", window.end);
}

// AvailabilityZoneId beside AvailabilityZone, where the zone has one (domain::AvailabilityZoneId).
void WriteZone(JsonWriter& out, const std::string& zone) {
  out.Member("AvailabilityZone", zone);
  if (auto id = domain::AvailabilityZoneId(zone)) out.Member("AvailabilityZoneId", *id);
}

const char* CapacityType(const std::optional<domain::UltraServers>& ultraservers) {
  return ultraservers ? "UltraServer" : "Instance";
}

// ReservedCapacityType, and for UltraServers their type and count.
void WriteCapacityType(JsonWriter& out, const std::optional<domain::UltraServers>& ultraservers) {
  out.Member("ReservedCapacityType", CapacityType(ultraservers));
  if (ultraservers) {
    out.Member("UltraServerType", ultraservers->type)
        .Member("UltraServerCount", ultraservers->count);
  }
}

void WriteStrings(JsonWriter& out, std::string_view member,
                  const std::vector<std::string>& values) {
  out.Key(member).BeginArray();
  for (const std::string& value : values) out.String(value);
  out.EndArray();
}

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

// A reserved capacity's status: its plan's payment, then its own window.
std::string BlockStatus(const Plan& plan, const domain::CapacityBlock& block, TimePoint now) {
  return domain::PurchaseStatusAt(block.window, plan.paid_at, now, plan.PaymentFails());
}

// The UltraServers of an UltraServer plan's reserved capacity `block` now: what runs on the plan
// while the block is in force, and what failed in it.
std::vector<domain::UltraServerState> UltraServerStatesOf(const Context& ctx, const Plan& plan,
                                                          const domain::CapacityBlock& block) {
  const bool in_force = domain::PlanStatusOf(block.window, ctx.now) == domain::PlanStatus::kActive;
  const int in_use = in_force ? ctx.holdings.OnPlan(plan.arn) : 0;
  const int unhealthy = FailedInstancesOnPlan(ctx.store, ctx.caller.account, ctx.caller.region,
                                              plan.arn, block.window);
  return domain::UltraServerStates(*plan.ultraservers, in_use, unhealthy);
}

struct UltraServerTotals {
  int spares_available = 0;
  int unhealthy = 0;
};
UltraServerTotals UltraServerTotalsOf(const Context& ctx, const Plan& plan,
                                      const domain::CapacityBlock& block) {
  UltraServerTotals totals;
  for (const domain::UltraServerState& state : UltraServerStatesOf(ctx, plan, block)) {
    totals.spares_available += state.spares_available;
    totals.unhealthy += state.unhealthy;
  }
  return totals;
}

// What a plan's summary shows besides the plan itself: what follows the clock and the plan's
// holders. Two moments with the same PlanShown show the plan the same way, which lets
// ListTrainingPlans keep a summary's text while they do.
struct PlanShown {
  std::string status;
  bool unpaid = false;                      // its payment is still pending
  int used = 0;                             // its instances held (Holdings::OnPlan)
  std::vector<std::string> block_statuses;  // each reserved capacity's, in order
  bool operator==(const PlanShown&) const = default;
};

PlanShown PlanShownAt(const Plan& plan, TimePoint now, int used) {
  PlanShown shown{domain::PlanStatusAt(plan, now), now < plan.paid_at, used, {}};
  shown.block_statuses.reserve(plan.blocks.size());
  for (const domain::CapacityBlock& block : plan.blocks) {
    shown.block_statuses.push_back(BlockStatus(plan, block, now));
  }
  return shown;
}

// A plan's members, in the model's order, for DescribeTrainingPlan (`totals`: its UltraServer
// counts) and the ListTrainingPlans summaries (nullptr), written into an open object.
void WritePlan(JsonWriter& out, const Caller& caller, const Plan& plan, const PlanShown& shown,
               const UltraServerTotals* totals) {
  const bool failed = shown.status == domain::ToString(domain::PlanStatus::kFailed);
  const domain::Window span = domain::SpanOf(plan.blocks);
  out.Member("TrainingPlanArn", plan.arn)
      .Member("TrainingPlanName", plan.name)
      .Member("Status", shown.status)
      .Member("StatusMessage", shown.unpaid ? kPaymentPending
                               : failed     ? plan.payment_failure.c_str()
                                            : kPaymentConfirmed);
  // StartTime and EndTime span the blocks; DurationHours and DurationMinutes count their time
  // together, without the gap between them (the request's DurationHours, as a one-block plan's).
  WriteDuration(out, domain::ReservedTime(plan.blocks));
  out.TimestampMember("StartTime", span.start)
      .TimestampMember("EndTime", span.end)
      .Member("UpfrontFee", plan.upfront_fee)
      .Member("CurrencyCode", kCurrency)
      .Member("TotalInstanceCount", plan.instance_count)
      .Member("AvailableInstanceCount",
              failed ? 0 : std::max(0, domain::UsableInstances(plan) - shown.used))
      .Member("InUseInstanceCount", shown.used);
  if (totals != nullptr) {
    out.Member("UnhealthyInstanceCount", totals->unhealthy)
        .Member("AvailableSpareInstanceCount", totals->spares_available);
  }
  if (plan.ultraservers) out.Member("TotalUltraServerCount", plan.ultraservers->count);
  WriteStrings(out, "TargetResources", plan.target_resources);
  out.Key("ReservedCapacitySummaries").BeginArray();
  for (size_t i = 0; i < plan.blocks.size(); ++i) {
    const domain::CapacityBlock& block = plan.blocks[i];
    out.BeginObject().Member("ReservedCapacityArn", ReservedCapacityArn(caller, block.id));
    WriteCapacityType(out, plan.ultraservers);
    out.Member("InstanceType", block.pool.instance_type)
        .Member("TotalInstanceCount", plan.instance_count)
        .Member("Status", shown.block_statuses[i]);
    WriteZone(out, block.pool.availability_zone);
    WriteWindow(out, block.window);
    out.EndObject();
  }
  out.EndArray();
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

// "The plan must not have any extensions in Payment Pending status." (Training plans extension)
domain::Status CheckNoPendingExtension(const Plan& plan, TimePoint now) {
  for (const Plan::Extension& extension : plan.extensions) {
    if (now < extension.paid_at) {
      return domain::ValidationException(
          "Training plan " + domain::Excerpt(plan.name) + " has an extension (" +
          domain::Excerpt(extension.offering_id) +
          ") whose payment is pending; it can be extended again once that payment completes.");
    }
  }
  return domain::Ok();
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

// The StatusMessage of a purchase by `operation` of plan `name` that a fault rule makes fail
// ("Failed" once the payment would have completed); "" when the payment goes through.
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

Result<Answer> DescribeTrainingPlan(const json& in, Context& ctx) {
  const std::string name = in.at("TrainingPlanName");
  const auto plan = LoadPlan(ctx.store, KeyOf(ctx.caller, kPlan, name));
  if (!plan) return NotFound(ctx.caller, kPlan, name);
  std::optional<UltraServerTotals> totals;
  if (plan->ultraservers) {  // DescribeTrainingPlan's members, not the summaries'
    const domain::CapacityBlock* block = plan->BlockFrom(ctx.now);
    totals = UltraServerTotalsOf(ctx, *plan, block == nullptr ? plan->blocks.back() : *block);
  }
  JsonWriter out;
  out.BeginObject();
  WritePlan(out, ctx.caller, *plan, PlanShownAt(*plan, ctx.now, ctx.holdings.OnPlan(plan->arn)),
            totals ? &*totals : nullptr);
  out.EndObject();
  return Answer::Written(out.Text());
}

// The plan whose reserved capacity `arn` names, in the caller's account and region.
// A reserved capacity and the plan it belongs to.
struct ReservedCapacityOfPlan {
  Plan plan;
  domain::CapacityBlock block;
};

// The plan whose reserved capacity `arn` names, in the caller's account and region.
Result<ReservedCapacityOfPlan> PlanOfReservedCapacity(const std::string& arn, Context& ctx) {
  const auto not_found =
      domain::ResourceNotFound("Reserved capacity " + domain::Excerpt(arn) + " not found.");
  const std::string prefix = ReservedCapacityArn(ctx.caller, "");
  if (arn.rfind(prefix, 0) != 0) return not_found;
  auto found = PlanByReservationArn(ctx, arn);
  if (!found) return not_found;
  const domain::CapacityBlock* block = found->BlockWithId(arn.substr(prefix.size()));
  if (block == nullptr) return not_found;
  const domain::CapacityBlock copy = *block;
  return ReservedCapacityOfPlan{std::move(*found), copy};
}

Result<Answer> DescribeReservedCapacity(const json& in, Context& ctx) {
  const auto found = PlanOfReservedCapacity(in.at("ReservedCapacityArn"), ctx);
  if (!found) return found.error();
  const Plan& plan = found->plan;
  const domain::CapacityBlock& block = found->block;
  // What runs on the plan runs on the reserved capacity in force.
  const bool in_force = domain::PlanStatusOf(block.window, ctx.now) == domain::PlanStatus::kActive;
  const int used = in_force ? ctx.holdings.OnPlan(plan.arn) : 0;
  JsonWriter out;
  out.BeginObject()
      .Member("ReservedCapacityArn", ReservedCapacityArn(ctx.caller, block.id))
      .Member("ReservedCapacityType", CapacityType(plan.ultraservers));
  if (plan.ultraservers) {
    const UltraServerTotals totals = UltraServerTotalsOf(ctx, plan, block);
    out.Key("UltraServerSummary")
        .BeginObject()
        .Member("UltraServerType", plan.ultraservers->type)
        .Member("InstanceType", block.pool.instance_type)
        .Member("UltraServerCount", plan.ultraservers->count)
        .Member("AvailableSpareInstanceCount", totals.spares_available)
        .Member("UnhealthyInstanceCount", totals.unhealthy)
        .EndObject();
  }
  out.Member("Status", BlockStatus(plan, block, ctx.now))
      .Member("AvailabilityZone", block.pool.availability_zone)
      .Member("InstanceType", block.pool.instance_type)
      .Member("TotalInstanceCount", plan.instance_count)
      .Member("AvailableInstanceCount", plan.PaymentFails() && ctx.now >= plan.paid_at
                                            ? 0
                                            : std::max(0, domain::UsableInstances(plan) - used))
      .Member("InUseInstanceCount", used);
  WriteWindow(out, block.window);
  out.EndObject();
  return Answer::Written(out.Text());
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
      .Member("PaymentStatus", now < extension.paid_at              ? "Pending"
                               : !extension.payment_failure.empty() ? "Failed"
                                                                    : "Completed");
  WriteZone(out, plan.blocks.back().pool.availability_zone);
  out.Member("DurationHours", domain::DurationHours(extension.window))
      .Member("UpfrontFee", extension.upfront_fee)
      .Member("CurrencyCode", kCurrency);
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

// The UltraServers of a reserved capacity, each with its counts and health
// (domain::UltraServerStates): the plan's instances in use, and those that failed under its
// clusters in this block (fault rules' node failures), fill the UltraServers in order.
Result<json> ListUltraServersByReservedCapacity(const json& in, Context& ctx) {
  const auto found = PlanOfReservedCapacity(in.at("ReservedCapacityArn"), ctx);
  if (!found) return found.error();
  const Plan& plan = found->plan;
  const domain::CapacityBlock& block = found->block;
  static const ListSpec kSpec{"ListUltraServersByReservedCapacity",
                              {{"UltraServerOrder", std::nullopt, /*numeric=*/true}},
                              /*descending_by_default=*/false};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  std::vector<Positioned<json>> ultraservers;
  if (const auto& shape = plan.ultraservers) {
    const std::vector<domain::UltraServerState> states = UltraServerStatesOf(ctx, plan, block);
    for (int i = 0; i < shape->count; ++i) {
      const domain::UltraServerState& state = states[static_cast<std::size_t>(i)];
      const std::string id = block.id + "-us" + std::to_string(i + 1);
      ultraservers.push_back({{static_cast<int64_t>(i), id},
                              {{"UltraServerId", id},
                               {"UltraServerType", shape->type},
                               {"AvailabilityZone", block.pool.availability_zone},
                               {"InstanceType", block.pool.instance_type},
                               {"TotalInstanceCount", shape->instances_per},
                               {"ConfiguredSpareInstanceCount", shape->spares_per},
                               {"AvailableInstanceCount", state.available},
                               {"InUseInstanceCount", state.in_use},
                               {"AvailableSpareInstanceCount", state.spares_available},
                               {"UnhealthyInstanceCount", state.unhealthy},
                               {"HealthStatus", state.impaired ? "Impaired" : "OK"}}});
    }
  }
  auto page = Paginate<json>(kSpec, *request, InMemorySource(std::move(ultraservers), false));
  json out = {{"UltraServers", std::move(page.items)}};
  if (page.next_token) out["NextToken"] = *page.next_token;
  return out;
}

// The plan status a window phase shows as.
domain::PlanStatus StatusOfPhase(store::WindowPhase phase) {
  switch (phase) {
    case store::WindowPhase::kUnpaid:
      return domain::PlanStatus::kPending;
    case store::WindowPhase::kBefore:
      return domain::PlanStatus::kScheduled;
    case store::WindowPhase::kDuring:
      return domain::PlanStatus::kActive;
    case store::WindowPhase::kFailed:
      return domain::PlanStatus::kFailed;
    case store::WindowPhase::kAfter:
      break;
  }
  return domain::PlanStatus::kExpired;
}

// In the order of ListQuery::PlanWindow::phase_rank.
constexpr std::array<store::WindowPhase, 5> kPhases = {
    store::WindowPhase::kBefore, store::WindowPhase::kDuring, store::WindowPhase::kAfter,
    store::WindowPhase::kUnpaid, store::WindowPhase::kFailed};

// Sorting by Status orders plans by the status names, as a sort by any other text member does.
std::array<int64_t, 5> PhaseRanksByStatusName() {
  std::array<int64_t, 5> ranks{};
  for (size_t i = 0; i < kPhases.size(); ++i) {
    for (const store::WindowPhase other : kPhases) {
      if (ToString(StatusOfPhase(other)) < ToString(StatusOfPhase(kPhases[i]))) ++ranks[i];
    }
  }
  return ranks;
}

Result<Answer> ListTrainingPlans(const json& in, Context& ctx) {
  // The model names no default; the earliest start first is what a calendar shows. Statuses
  // follow the clock, so the store computes them from each plan's window at ctx.now.
  static const ListSpec kSpec{"ListTrainingPlans",
                              {{"StartTime", store::SortField::kPlanStart, /*numeric=*/true},
                               {"TrainingPlanName", store::SortField::kName},
                               {"Status", store::SortField::kPlanPhase, /*numeric=*/true}},
                              /*descending_by_default=*/false};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  StoreFilters filters;
  // Assigned, not emplace()d: clang 14 cannot default-construct a nested struct with member
  // initializers through std::optional::emplace().
  filters.plan = store::ListQuery::PlanWindow{};
  store::ListQuery::PlanWindow& window = *filters.plan;
  window.now = ctx.now;
  window.start_after = OptionalTimestamp(in, "StartTimeAfter");
  window.start_before = OptionalTimestamp(in, "StartTimeBefore");
  window.phase_rank = PhaseRanksByStatusName();
  bool status_filtered = false;
  for (const json& filter : in.value("Filters", json::array())) {
    if (filter.at("Name") != "Status") {
      return domain::ValidationException("The only filter name is Status.");
    }
    status_filtered = true;
    for (const store::WindowPhase phase : kPhases) {
      if (filter.at("Value") == ToString(StatusOfPhase(phase))) window.phases.push_back(phase);
    }
  }
  if (status_filtered && window.phases.empty()) {  // a value the model does not list
    return Answer(json{{"TrainingPlanSummaries", json::array()}});
  }
  auto page = Paginate<store::KeptRowPtr>(kSpec, *request,
                                          StoreSource(ctx, domain::kPlanKind, *request, filters));
  // What the summaries show is taken now. A summary's text is kept with the plan's row while
  // what it shows stays the same, and written after the lock is released when it is not.
  struct Summary {
    std::shared_ptr<const Plan> plan;  // decoded records are immutable and shared
    PlanShown shown;
    std::shared_ptr<const SummaryText> text;
  };
  Page<Summary> summaries{{}, std::move(page.next_token)};
  summaries.items.reserve(page.items.size());
  for (const store::KeptRowPtr& row : page.items) {
    auto plan = ctx.store.DecodedRow<Plan>(*row, &PlanFromRow);
    PlanShown shown = PlanShownAt(*plan, ctx.now, ctx.holdings.OnPlan(plan->arn));
    auto text = ctx.store.RowMemo<SummaryMemo<PlanShown>>(*row).For(shown);
    summaries.items.push_back({std::move(plan), std::move(shown), std::move(text)});
  }
  return WriteKeptSummariesLater("TrainingPlanSummaries", std::move(summaries),
                                 [caller = ctx.caller](JsonWriter& out, const Summary& summary) {
                                   WritePlan(out, caller, *summary.plan, summary.shown, nullptr);
                                 });
}

}  // namespace

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

void ForEachStoredPlanCommitment(const store::StateStore& store,
                                 const std::function<void(const PlanCommitment&)>& visit) {
  PlanCommitment commitment;
  store.ForEachPlanCapacity([&](const store::PlanCapacity& plan) {
    commitment.lapses_at = plan.payment_fails ? std::optional<TimePoint>(plan.paid) : std::nullopt;
    commitment.training_plan_arn.assign(plan.arn);
    commitment.count = plan.instance_count;
    for (domain::CapacityBlock& block : StoredBlocks(plan)) {
      commitment.pool = std::move(block.pool);
      commitment.window = block.window;
      visit(commitment);
    }
  });
}

std::vector<PlanCommitment> StoredPlanCommitments(const store::StateStore& store) {
  std::vector<PlanCommitment> commitments;
  ForEachStoredPlanCommitment(store, [&commitments](const PlanCommitment& commitment) {
    commitments.push_back(commitment);
  });
  return commitments;
}

namespace {

void AddTrainingPlanHandlers(HandlerTable& table) {
  table.emplace("SearchTrainingPlanOfferings", &SearchTrainingPlanOfferings);
  table.emplace("CreateTrainingPlan", &CreateTrainingPlan);
  table.emplace("DescribeTrainingPlan", &DescribeTrainingPlan);
  table.emplace("ListTrainingPlans", &ListTrainingPlans);
  table.emplace("DescribeReservedCapacity", &DescribeReservedCapacity);
  table.emplace("ExtendTrainingPlan", &ExtendTrainingPlan);
  table.emplace("DescribeTrainingPlanExtensionHistory", &DescribeTrainingPlanExtensionHistory);
  table.emplace("ListUltraServersByReservedCapacity", &ListUltraServersByReservedCapacity);
}

// Every plan sold, with how many of its instances are in use now.
void AddPlanState(const StateQuery& query, JsonWriter& entries) {
  const Context& ctx = query.ctx();
  for (const store::ResourceRow& row : ctx.store.AllOfKind(domain::kPlanKind)) {
    if (!query.Shows(row.key.account)) continue;
    const Plan plan = PlanFromRow(row);
    const domain::Window span = plan.Span();
    entries.BeginObject()
        .Member("name", plan.name)
        .Member("arn", plan.arn)
        .Member("account", row.key.account)
        .Member("region", plan.Region())
        .Member("availability_zone", plan.blocks.front().pool.availability_zone)
        .Member("instance_type", plan.InstanceType())
        .Member("instance_count", plan.instance_count)
        .Member("in_use", ctx.holdings.OnPlan(plan.arn))
        .Member("start", domain::FormatIso8601(span.start))
        .Member("end", domain::FormatIso8601(span.end))
        .Member("status", domain::PlanStatusAt(plan, ctx.now));
    WriteStrings(entries, "target_resources", plan.target_resources);
    entries.Key("reserved_capacities").BeginArray();
    for (const domain::CapacityBlock& block : plan.blocks) {
      entries.BeginObject()
          .Member("reserved_capacity_id", block.id)
          .Member("availability_zone", block.pool.availability_zone)
          .Member("start", domain::FormatIso8601(block.window.start))
          .Member("end", domain::FormatIso8601(block.window.end))
          .Member("status", BlockStatus(plan, block, ctx.now))
          .EndObject();
    }
    entries.EndArray().EndObject();
  }
}

}  // namespace

// Plans hold no instances themselves (what runs on them does), but they count against the
// account's plan quotas.
// A plan's status, and its reserved capacity's, follow the clock: counted from the windows.
std::vector<store::StateStore::KindStatusCount> CountPlansByStatus(const Context& ctx) {
  std::map<std::string, long long> plans;
  std::map<std::string, long long> capacities;
  for (const store::PlanCapacity& plan : ctx.store.AllPlanCapacity()) {
    const std::vector<domain::CapacityBlock> blocks = StoredBlocks(plan);
    ++plans[domain::PurchaseStatusAt(domain::WindowsOf(blocks), plan.paid, ctx.now,
                                     plan.payment_fails)];
    for (const domain::CapacityBlock& block : blocks) {
      ++capacities[domain::PurchaseStatusAt(block.window, plan.paid, ctx.now, plan.payment_fails)];
    }
  }
  std::vector<store::StateStore::KindStatusCount> counts;
  for (const auto& [status, count] : plans) counts.push_back({domain::kPlanKind, status, count});
  for (const auto& [status, count] : capacities) {
    counts.push_back({domain::kCapacityKind, status, count});
  }
  return counts;
}

const KindDescriptor kTrainingPlanDescriptor{.kind = domain::ResourceKind::kTrainingPlan,
                                             .add_handlers = &AddTrainingPlanHandlers,
                                             .taggable = true,
                                             .quota_counted = true,
                                             .state_section = "plans",
                                             .add_state = &AddPlanState,
                                             .count_by_status = &CountPlansByStatus};

}  // namespace smemu::ops
