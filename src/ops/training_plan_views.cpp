// DescribeTrainingPlan, ListTrainingPlans, DescribeReservedCapacity and
// ListUltraServersByReservedCapacity: sold plans and their reserved capacities, with statuses from
// the clock and the instances in use from the holdings.

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "domain/training_plan.hpp"
#include "ops/arn.hpp"
#include "ops/cluster_records.hpp"
#include "ops/listing.hpp"
#include "ops/plan_records.hpp"
#include "ops/training_plans_internal.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops::training_plans {
namespace {

using domain::Result;
using nlohmann::json;

// A plan's StatusMessage once paid, as AWS's pages show it ("Upon successful upfront payment, the
// plan status becomes Scheduled"), and while its payment is processed (AWS shows no text for
// that: the emulator's own).
constexpr const char* kPaymentConfirmed = "Payment confirmed, training plan scheduled.";
constexpr const char* kPaymentPending = "Payment is being processed.";

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

}  // namespace

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

}  // namespace smemu::ops::training_plans
