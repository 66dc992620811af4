#include "protocol/cost_report.hpp"

#include <cmath>
#include <cstdio>

#include "domain/resource_kinds.hpp"
#include "domain/time_format.hpp"
#include "domain/training_plan.hpp"
#include "ops/kinds.hpp"

namespace smemu::protocol {
namespace {

using nlohmann::json;

std::string Iso(TimePoint time) { return domain::FormatIso8601(time); }

json Ratio(domain::InstanceMillis part, domain::InstanceMillis whole) {
  if (whole <= 0) return nullptr;
  return std::round(static_cast<double>(part) / static_cast<double>(whole) * 1e4) / 1e4;
}

json Steps(const std::vector<domain::UseStep>& steps) {
  json out = json::array();
  for (const domain::UseStep& step : steps) {
    out.push_back({{"from", Iso(step.from)}, {"to", Iso(step.to)}, {"instances", step.instances}});
  }
  return out;
}

json OptionalArn(const std::string& arn) { return arn.empty() ? json(nullptr) : json(arn); }

json TotalsJson(const domain::CostTotals& totals) {
  return {{"plan_fees", Dollars(totals.plan_fees)},
          {"on_demand_cost", Dollars(totals.on_demand_cost)},
          {"total_cost", Dollars(totals.total())},
          {"reserved_instance_hours", InstanceHours(totals.reserved)},
          {"plan_used_instance_hours", InstanceHours(totals.plan_used)},
          {"on_demand_instance_hours", InstanceHours(totals.on_demand_used)},
          {"utilization", Ratio(totals.plan_used, totals.reserved)},
          {"on_demand_equivalent", Dollars(totals.on_demand_equivalent)},
          {"savings", Dollars(totals.savings())}};
}

json TotalsBy(const char* key, const std::map<std::string, domain::CostTotals>& totals) {
  json out = json::array();
  for (const auto& [value, line] : totals) {
    json entry = {{key, value}};
    entry.update(TotalsJson(line));
    out.push_back(std::move(entry));
  }
  return out;
}

json PlanJson(const domain::PlanCost& cost, TimePoint now) {
  const domain::PlanBill& plan = cost.plan;
  // Every kind that holds instances has its line, used or not.
  static const json kNoneUsed = [] {
    json lines = json::object();
    for (const ops::KindDescriptor* kind : ops::Kinds()) {
      if (kind->add_holders != nullptr) lines[domain::WireName(kind->kind)] = 0.0;
    }
    return lines;
  }();
  json used_by = kNoneUsed;
  for (const auto& [kind, used] : cost.used_by) used_by[kind] = InstanceHours(used);
  return {{"training_plan_arn", plan.arn},
          {"name", plan.name},
          {"account", plan.account},
          {"region", plan.pool.region},
          {"availability_zone", plan.pool.availability_zone},
          {"instance_type", plan.pool.instance_type},
          {"instance_count", plan.instance_count},
          {"start_time", Iso(plan.window.start)},
          {"end_time", Iso(plan.window.end)},
          {"status", domain::PurchaseStatusAt(plan.blocks, plan.paid_at, now)},
          {"upfront_fee", Dollars(plan.fee)},
          {"fee_in_range", Dollars(cost.fee_in_range)},
          {"reserved_instance_hours", InstanceHours(cost.reserved)},
          {"used_instance_hours", InstanceHours(cost.used)},
          {"used_by", std::move(used_by)},
          {"utilization", Ratio(cost.used, cost.reserved)},
          {"on_demand_equivalent", Dollars(cost.on_demand_equivalent)},
          {"use", Steps(cost.use)}};
}

json HolderJson(const domain::HolderCost& holder) {
  return {{"arn", holder.arn},
          {"name", holder.name},
          {"kind", holder.kind},
          {"account", holder.account},
          {"region", holder.region},
          {"instance_type", holder.instance_type},
          {"training_plan_arn", OptionalArn(holder.plan_arn)},
          {"instance_hours", InstanceHours(holder.used)},
          {"hourly_price", holder.hourly_price ? json(*holder.hourly_price) : json(nullptr)},
          {"cost", holder.cost ? json(Dollars(*holder.cost)) : json(nullptr)},
          {"use", Steps(holder.use)}};
}

json OptionJson(const domain::JobOption& option, domain::Cents cost) {
  return {{"instance_type", option.instance_type},
          {"instance_count", option.instance_count},
          {"training_plan_arn", OptionalArn(option.plan_arn)},
          {"cost", Dollars(cost)}};
}

json PreferenceJobJson(const domain::PreferenceJobCost& cost) {
  const domain::PreferenceJob& job = cost.job;
  return {{"arn", job.arn},
          {"name", job.name},
          {"kind", job.kind},
          {"account", job.account},
          {"region", job.region},
          {"hours", InstanceHours(cost.ran.count())},
          {"chosen", OptionJson(job.chosen, cost.chosen)},
          {"first_choice", OptionJson(job.first, cost.first)},
          {"difference", Dollars(cost.chosen - cost.first)}};
}

// ---- CSV

std::string Field(const std::string& value) {
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string out = "\"";
  for (const char c : value) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string Money(domain::Cents cents) {
  char buffer[32];
  const domain::Cents magnitude = cents < 0 ? -cents : cents;
  std::snprintf(buffer, sizeof buffer, "%s%lld.%02lld", cents < 0 ? "-" : "", magnitude / 100,
                magnitude % 100);
  return buffer;
}

std::string Hours(domain::InstanceMillis used) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", InstanceHours(used));
  return buffer;
}

std::string RatioText(domain::InstanceMillis part, domain::InstanceMillis whole) {
  const json ratio = Ratio(part, whole);
  if (ratio.is_null()) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", ratio.get<double>());
  return buffer;
}

constexpr const char* kCsvColumns[] = {"record",
                                       "arn",
                                       "name",
                                       "kind",
                                       "account",
                                       "region",
                                       "instance_type",
                                       "training_plan_arn",
                                       "instance_count",
                                       "start_time",
                                       "end_time",
                                       "reserved_instance_hours",
                                       "used_instance_hours",
                                       "utilization",
                                       "hourly_price",
                                       "cost",
                                       "on_demand_equivalent",
                                       "first_choice_cost"};
constexpr std::size_t kColumnCount = std::size(kCsvColumns);

class CsvWriter {
 public:
  CsvWriter() {
    for (std::size_t i = 0; i < kColumnCount; ++i)
      out_ += (i ? "," : "") + std::string(kCsvColumns[i]);
    out_ += "\r\n";
  }
  void Row(const std::map<std::string, std::string>& cells) {
    for (std::size_t i = 0; i < kColumnCount; ++i) {
      const auto it = cells.find(kCsvColumns[i]);
      if (i) out_ += ',';
      if (it != cells.end()) out_ += Field(it->second);
    }
    out_ += "\r\n";
  }
  std::string Take() { return std::move(out_); }

 private:
  std::string out_;
};

std::map<std::string, std::string> TotalsCells(const domain::CostTotals& totals) {
  return {{"reserved_instance_hours", Hours(totals.reserved)},
          {"used_instance_hours", Hours(totals.plan_used + totals.on_demand_used)},
          {"utilization", RatioText(totals.plan_used, totals.reserved)},
          {"cost", Money(totals.total())},
          {"on_demand_equivalent", Money(totals.on_demand_equivalent)}};
}

}  // namespace

double Dollars(domain::Cents cents) { return static_cast<double>(cents) / 100.0; }

double InstanceHours(domain::InstanceMillis used) {
  return std::round(static_cast<double>(used) / 3'600'000.0 * 1e4) / 1e4;
}

json CostsJson(const domain::CostLedger& ledger, const std::optional<std::string>& account) {
  json plans = json::array();
  for (const domain::PlanCost& plan : ledger.plans) plans.push_back(PlanJson(plan, ledger.now));
  json holders = json::array();
  for (const domain::HolderCost& holder : ledger.holders) holders.push_back(HolderJson(holder));
  json jobs = json::array();
  for (const auto& job : ledger.preference_jobs) jobs.push_back(PreferenceJobJson(job));
  return {{"now", Iso(ledger.now)},
          {"from", Iso(ledger.from)},
          {"to", Iso(ledger.to)},
          {"account", account ? json(*account) : json(nullptr)},
          {"currency", "USD"},
          {"plans", std::move(plans)},
          {"holders", std::move(holders)},
          {"preference_jobs", std::move(jobs)},
          {"totals",
           {{"overall", TotalsJson(ledger.overall)},
            {"by_account", TotalsBy("account", ledger.by_account)},
            {"by_region", TotalsBy("region", ledger.by_region)},
            {"by_instance_type", TotalsBy("instance_type", ledger.by_instance_type)}}}};
}

std::string CostsCsv(const domain::CostLedger& ledger) {
  CsvWriter csv;
  for (const domain::PlanCost& cost : ledger.plans) {
    const domain::PlanBill& plan = cost.plan;
    csv.Row({{"record", "plan"},
             {"arn", plan.arn},
             {"name", plan.name},
             {"kind", domain::kPlanKind},
             {"account", plan.account},
             {"region", plan.pool.region},
             {"instance_type", plan.pool.instance_type},
             {"training_plan_arn", plan.arn},
             {"instance_count", std::to_string(plan.instance_count)},
             {"start_time", Iso(plan.window.start)},
             {"end_time", Iso(plan.window.end)},
             {"reserved_instance_hours", Hours(cost.reserved)},
             {"used_instance_hours", Hours(cost.used)},
             {"utilization", RatioText(cost.used, cost.reserved)},
             {"cost", Money(cost.fee_in_range)},
             {"on_demand_equivalent", Money(cost.on_demand_equivalent)}});
  }
  for (const domain::HolderCost& holder : ledger.holders) {
    std::map<std::string, std::string> cells = {{"record", "holder"},
                                                {"arn", holder.arn},
                                                {"name", holder.name},
                                                {"kind", holder.kind},
                                                {"account", holder.account},
                                                {"region", holder.region},
                                                {"instance_type", holder.instance_type},
                                                {"training_plan_arn", holder.plan_arn},
                                                {"start_time", Iso(holder.use.front().from)},
                                                {"end_time", Iso(holder.use.back().to)},
                                                {"used_instance_hours", Hours(holder.used)}};
    if (holder.cost) {
      char price[32];
      std::snprintf(price, sizeof price, "%.15g", *holder.hourly_price);
      cells["hourly_price"] = price;
      cells["cost"] = Money(*holder.cost);
      cells["on_demand_equivalent"] = Money(*holder.cost);
    }
    csv.Row(cells);
  }
  for (const domain::PreferenceJobCost& cost : ledger.preference_jobs) {
    const domain::PreferenceJob& job = cost.job;
    csv.Row({{"record", "preference-job"},
             {"arn", job.arn},
             {"name", job.name},
             {"kind", job.kind},
             {"account", job.account},
             {"region", job.region},
             {"instance_type", job.chosen.instance_type},
             {"training_plan_arn", job.chosen.plan_arn},
             {"instance_count", std::to_string(job.chosen.instance_count)},
             {"used_instance_hours", Hours(job.chosen.instance_count * cost.ran.count())},
             {"cost", Money(cost.chosen)},
             {"first_choice_cost", Money(cost.first)}});
  }
  const auto totals = [&csv](const char* record, const char* column,
                             const std::map<std::string, domain::CostTotals>& by) {
    for (const auto& [value, line] : by) {
      auto cells = TotalsCells(line);
      cells["record"] = record;
      cells[column] = value;
      csv.Row(cells);
    }
  };
  totals("total-account", "account", ledger.by_account);
  totals("total-region", "region", ledger.by_region);
  totals("total-instance-type", "instance_type", ledger.by_instance_type);
  auto overall = TotalsCells(ledger.overall);
  overall["record"] = "total";
  csv.Row(overall);
  return csv.Take();
}

}  // namespace smemu::protocol
