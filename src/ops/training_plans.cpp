// Training plans, the kind: its handlers (SearchTrainingPlanOfferings, CreateTrainingPlan,
// ExtendTrainingPlan, DescribeTrainingPlan, ListTrainingPlans, DescribeReservedCapacity, ...),
// split by concern among the training_plan_*.cpp files (training_plans_internal.hpp), its admin
// view, its status counts and the capacity that sold plans commit; and the members several answers
// write. Plans are sold from the capacity ledger, with statuses from the clock.

#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_names.hpp"
#include "domain/time_format.hpp"
#include "domain/training_plan.hpp"
#include "ops/kinds.hpp"
#include "ops/plan_records.hpp"
#include "ops/training_plans_internal.hpp"

namespace smemu::ops {
namespace training_plans {

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

// A reserved capacity's status: its plan's payment, then its own window.
std::string BlockStatus(const Plan& plan, const domain::CapacityBlock& block, TimePoint now) {
  return domain::PurchaseStatusAt(block.window, plan.paid_at, now, plan.PaymentFails());
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
  for (const store::KeptRowPtr& kept : ctx.store.AllOfKind(domain::kPlanKind)) {
    const store::ResourceRow& row = kept->row();
    if (!query.Shows(row.key.account)) continue;
    const auto decoded = ctx.store.DecodedRow<Plan>(*kept, &PlanFromRow);
    const Plan& plan = *decoded;
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

}  // namespace training_plans

void ForEachStoredPlanCommitment(const store::Tables& store,
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

std::vector<PlanCommitment> StoredPlanCommitments(const store::Tables& store) {
  std::vector<PlanCommitment> commitments;
  ForEachStoredPlanCommitment(store, [&commitments](const PlanCommitment& commitment) {
    commitments.push_back(commitment);
  });
  return commitments;
}

// Plans hold no instances themselves (what runs on them does), but they count against the
// account's plan quotas.
// A plan's status, and its reserved capacity's, follow the clock: counted from the windows.
std::vector<store::KindStatusCount> CountPlansByStatus(const Context& ctx) {
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
  std::vector<store::KindStatusCount> counts;
  for (const auto& [status, count] : plans) counts.push_back({domain::kPlanKind, status, count});
  for (const auto& [status, count] : capacities) {
    counts.push_back({domain::kCapacityKind, status, count});
  }
  return counts;
}

const KindDescriptor kTrainingPlanDescriptor{
    .kind = domain::ResourceKind::kTrainingPlan,
    .add_handlers = &training_plans::AddTrainingPlanHandlers,
    .taggable = true,
    .quota_counted = true,
    .state_section = "plans",
    .add_state = &training_plans::AddPlanState,
    .count_by_status = &CountPlansByStatus};

}  // namespace smemu::ops
