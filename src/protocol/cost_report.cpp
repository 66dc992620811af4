#include "protocol/cost_report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <vector>

#include "domain/resource_kinds.hpp"
#include "domain/time_format.hpp"
#include "domain/training_plan.hpp"
#include "ops/json_writer.hpp"
#include "ops/kinds.hpp"

namespace smemu::protocol {
namespace {

std::string Iso(TimePoint time) { return domain::FormatIso8601(time); }

std::optional<double> Ratio(domain::InstanceMillis part, domain::InstanceMillis whole) {
  if (whole <= 0) return std::nullopt;
  return std::round(static_cast<double>(part) / static_cast<double>(whole) * 1e4) / 1e4;
}

// The JSON answer is written as it goes (ops::JsonWriter): at 10,000 plans it is megabytes, and a
// tree of it cost more than computing the ledger.
void DoubleOrNull(ops::JsonWriter& out, const std::optional<double>& value) {
  if (value) {
    out.Double(*value);
  } else {
    out.Null();
  }
}

void StringOrNull(ops::JsonWriter& out, const std::string& value) {
  if (value.empty()) {
    out.Null();
  } else {
    out.String(value);
  }
}

void WriteSteps(ops::JsonWriter& out, const std::vector<domain::UseStep>& steps) {
  out.BeginArray();
  for (const domain::UseStep& step : steps) {
    out.BeginObject()
        .Member("from", Iso(step.from))
        .Member("to", Iso(step.to))
        .Member("instances", step.instances)
        .EndObject();
  }
  out.EndArray();
}

// The totals' members, into the object `out` has open.
void WriteTotals(ops::JsonWriter& out, const domain::CostTotals& totals) {
  out.Key("plan_fees").Double(Dollars(totals.plan_fees));
  out.Key("on_demand_cost").Double(Dollars(totals.on_demand_cost));
  out.Key("total_cost").Double(Dollars(totals.total()));
  out.Key("reserved_instance_hours").Double(InstanceHours(totals.reserved));
  out.Key("plan_used_instance_hours").Double(InstanceHours(totals.plan_used));
  out.Key("on_demand_instance_hours").Double(InstanceHours(totals.on_demand_used));
  DoubleOrNull(out.Key("utilization"), Ratio(totals.plan_used, totals.reserved));
  out.Key("on_demand_equivalent").Double(Dollars(totals.on_demand_equivalent));
  out.Key("savings").Double(Dollars(totals.savings()));
}

void WriteTotalsBy(ops::JsonWriter& out, const char* key,
                   const std::map<std::string, domain::CostTotals>& totals) {
  out.BeginArray();
  for (const auto& [value, line] : totals) {
    out.BeginObject().Member(key, value);
    WriteTotals(out, line);
    out.EndObject();
  }
  out.EndArray();
}

void WritePlan(ops::JsonWriter& out, const domain::PlanCost& cost, TimePoint now) {
  const domain::PlanBill& plan = cost.plan;
  out.BeginObject()
      .Member("training_plan_arn", plan.arn)
      .Member("name", plan.name)
      .Member("account", plan.account)
      .Member("region", plan.pool.region)
      .Member("availability_zone", plan.pool.availability_zone)
      .Member("instance_type", plan.pool.instance_type)
      .Member("instance_count", plan.instance_count)
      .Member("start_time", Iso(plan.window.start))
      .Member("end_time", Iso(plan.window.end))
      .Member("status", domain::PurchaseStatusAt(plan.blocks, plan.paid_at, now));
  out.Key("upfront_fee").Double(Dollars(plan.fee));
  out.Key("fee_in_range").Double(Dollars(cost.fee_in_range));
  out.Key("reserved_instance_hours").Double(InstanceHours(cost.reserved));
  out.Key("used_instance_hours").Double(InstanceHours(cost.used));
  // Every kind that holds instances has its line, used or not.
  static const std::map<std::string, double> kNoneUsed = [] {
    std::map<std::string, double> lines;
    for (const ops::KindDescriptor* kind : ops::Kinds()) {
      if (kind->add_holders != nullptr) lines[std::string(domain::WireName(kind->kind))] = 0.0;
    }
    return lines;
  }();
  std::map<std::string, double> used_by = kNoneUsed;
  for (const auto& [kind, used] : cost.used_by) used_by[kind] = InstanceHours(used);
  out.Key("used_by").BeginObject();
  for (const auto& [kind, hours] : used_by) out.Key(kind).Double(hours);
  out.EndObject();
  DoubleOrNull(out.Key("utilization"), Ratio(cost.used, cost.reserved));
  out.Key("on_demand_equivalent").Double(Dollars(cost.on_demand_equivalent));
  WriteSteps(out.Key("use"), cost.use);
  out.EndObject();
}

void WriteHolder(ops::JsonWriter& out, const domain::HolderCost& holder) {
  out.BeginObject()
      .Member("arn", holder.arn)
      .Member("name", holder.name)
      .Member("kind", holder.kind)
      .Member("account", holder.account)
      .Member("region", holder.region)
      .Member("instance_type", holder.instance_type);
  StringOrNull(out.Key("training_plan_arn"), holder.plan_arn);
  out.Key("instance_hours").Double(InstanceHours(holder.used));
  DoubleOrNull(out.Key("hourly_price"), holder.hourly_price);
  DoubleOrNull(out.Key("cost"),
               holder.cost ? std::optional<double>(Dollars(*holder.cost)) : std::nullopt);
  WriteSteps(out.Key("use"), holder.use);
  out.EndObject();
}

void WriteOption(ops::JsonWriter& out, const domain::JobOption& option, domain::Cents cost) {
  out.BeginObject()
      .Member("instance_type", option.instance_type)
      .Member("instance_count", option.instance_count);
  StringOrNull(out.Key("training_plan_arn"), option.plan_arn);
  out.Key("cost").Double(Dollars(cost));
  out.EndObject();
}

void WritePreferenceJob(ops::JsonWriter& out, const domain::PreferenceJobCost& cost) {
  const domain::PreferenceJob& job = cost.job;
  out.BeginObject()
      .Member("arn", job.arn)
      .Member("name", job.name)
      .Member("kind", job.kind)
      .Member("account", job.account)
      .Member("region", job.region);
  out.Key("hours").Double(InstanceHours(cost.ran.count()));
  WriteOption(out.Key("chosen"), job.chosen, cost.chosen);
  WriteOption(out.Key("first_choice"), job.first, cost.first);
  out.Key("difference").Double(Dollars(cost.chosen - cost.first));
  out.EndObject();
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
  const std::optional<double> ratio = Ratio(part, whole);
  if (!ratio) return "";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4f", *ratio);
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

std::string CostsText(const domain::CostLedger& ledger, const std::optional<std::string>& account) {
  ops::JsonWriter out;
  out.BeginObject()
      .Member("now", Iso(ledger.now))
      .Member("from", Iso(ledger.from))
      .Member("to", Iso(ledger.to));
  StringOrNull(out.Key("account"), account.value_or(""));
  out.Member("currency", "USD");
  out.Key("plans").BeginArray();
  for (const domain::PlanCost& plan : ledger.plans) WritePlan(out, plan, ledger.now);
  out.EndArray().Key("holders").BeginArray();
  for (const domain::HolderCost& holder : ledger.holders) WriteHolder(out, holder);
  out.EndArray().Key("preference_jobs").BeginArray();
  for (const auto& job : ledger.preference_jobs) WritePreferenceJob(out, job);
  out.EndArray().Key("totals").BeginObject().Key("overall").BeginObject();
  WriteTotals(out, ledger.overall);
  out.EndObject();
  WriteTotalsBy(out.Key("by_account"), "account", ledger.by_account);
  WriteTotalsBy(out.Key("by_region"), "region", ledger.by_region);
  WriteTotalsBy(out.Key("by_instance_type"), "instance_type", ledger.by_instance_type);
  out.EndObject().EndObject();
  return out.Text();
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
