#include "domain/costs.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "domain/aws_names.hpp"

namespace smemu::domain {
namespace {

// Products of money and milliseconds outgrow 64 bits (a year of 1,000 instances is 3e13
// instance-ms, times a price in micro-dollars); each product is exact in 128 bits.
__extension__ using Wide = __int128;

constexpr long long kMillisPerHour = 3'600'000;

long long MillisOf(TimePoint from, TimePoint to) { return to > from ? (to - from).count() : 0; }

// [from, to) ∩ [lo, hi)
std::optional<std::pair<TimePoint, TimePoint>> Clip(TimePoint from, TimePoint to, TimePoint lo,
                                                    TimePoint hi) {
  const TimePoint start = std::max(from, lo);
  const TimePoint end = std::min(to, hi);
  if (end <= start) return std::nullopt;
  return std::make_pair(start, end);
}

// Sums stretches of held instances into steps of the total held.
class StepBuilder {
 public:
  void Add(TimePoint from, TimePoint to, int count) {
    deltas_[from] += count;
    deltas_[to] -= count;
  }
  std::vector<UseStep> Steps() const {
    std::vector<UseStep> steps;
    int level = 0;
    for (auto it = deltas_.begin(); it != deltas_.end(); ++it) {
      level += it->second;
      const auto next = std::next(it);
      if (next == deltas_.end() || level <= 0) continue;
      if (!steps.empty() && steps.back().to == it->first && steps.back().instances == level) {
        steps.back().to = next->first;
      } else {
        steps.push_back({it->first, next->first, level});
      }
    }
    return steps;
  }

 private:
  std::map<TimePoint, int> deltas_;
};

InstanceMillis Sum(const std::vector<UseStep>& steps) {
  InstanceMillis total = 0;
  for (const UseStep& step : steps) total += step.instances * MillisOf(step.from, step.to);
  return total;
}

double OnDemandHourly(const std::map<std::string, Prices>& prices, const std::string& type) {
  const auto it = prices.find(type);
  return it == prices.end() ? 0.0 : it->second.on_demand_hourly;
}

void AddTo(CostLedger& ledger, const std::string& account, const std::string& region,
           const std::string& type, const CostTotals& line) {
  for (CostTotals* totals :
       {&ledger.overall, &ledger.by_account[account], &ledger.by_region[region],
        &ledger.by_instance_type[type], &ledger.by_account_region_type[{account, region, type}]}) {
    totals->plan_fees += line.plan_fees;
    totals->on_demand_cost += line.on_demand_cost;
    totals->on_demand_equivalent += line.on_demand_equivalent;
    totals->reserved += line.reserved;
    totals->plan_used += line.plan_used;
    totals->on_demand_used += line.on_demand_used;
  }
}

// The milliseconds of `plan`'s blocks between `from` and `to`.
long long ReservedMillis(const PlanBill& plan, TimePoint from, TimePoint to) {
  long long reserved = 0;
  for (const Window& block : plan.blocks) {
    if (const auto in = Clip(block.start, block.end, from, to)) {
      reserved += MillisOf(in->first, in->second);
    }
  }
  return reserved;
}

// What one option of a job costs for `ran`: its plan's fee per instance-millisecond, or the
// type's on-demand price.
Cents OptionCost(const JobOption& option, Millis ran, const CostInputs& inputs,
                 const std::map<std::string, const PlanBill*>& plans) {
  const InstanceMillis used = option.instance_count * ran.count();
  if (option.plan_arn.empty()) {
    return OnDemandCost(OnDemandHourly(inputs.prices, option.instance_type), used);
  }
  const auto it = plans.find(ArnKey(option.plan_arn));
  if (it == plans.end()) return 0;
  const PlanBill& plan = *it->second;
  return ShareOf(plan.fee, used,
                 plan.instance_count * ReservedMillis(plan, TimePoint::min(), TimePoint::max()));
}

}  // namespace

Cents OnDemandCost(double hourly, InstanceMillis used) {
  if (hourly <= 0 || used <= 0) return 0;
  const Wide micro_per_hour = static_cast<Wide>(std::llround(hourly * 1e6));
  // cents = micro-dollars / 10^4; rounding once, half up.
  constexpr Wide kDivisor = static_cast<Wide>(kMillisPerHour) * 10'000;
  return static_cast<Cents>((micro_per_hour * used + kDivisor / 2) / kDivisor);
}

Cents ShareOf(Cents whole, long long part, long long of) {
  if (of <= 0 || part <= 0) return 0;
  return static_cast<Cents>((static_cast<Wide>(whole) * part + of / 2) / of);
}

std::optional<Cents> ParseCents(const std::string& amount) {
  const auto dot = amount.find('.');
  const std::string whole = amount.substr(0, dot);
  const std::string fraction = dot == std::string::npos ? "" : amount.substr(dot + 1);
  const auto digits = [](const std::string& text) {
    return std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (whole.empty() || whole.size() > 15 || fraction.size() > 2 || !digits(whole) ||
      !digits(fraction)) {
    return std::nullopt;
  }
  Cents cents = std::stoll(whole) * 100;
  if (!fraction.empty()) cents += std::stoll(fraction) * (fraction.size() == 1 ? 10 : 1);
  return cents;
}

CostLedger ComputeCosts(const CostInputs& inputs, TimePoint from, TimePoint to, TimePoint now) {
  CostLedger ledger;
  ledger.from = from;
  ledger.to = to;
  ledger.now = now;
  const TimePoint used_until = std::min(to, now);

  // Plans that resources may name, by either of their ARNs, in any letter case.
  std::map<std::string, const PlanBill*> plan_by_arn;
  for (const PlanBill& plan : inputs.plans) {
    plan_by_arn[ArnKey(plan.arn)] = &plan;
    for (const std::string& arn : plan.reserved_capacity_arns) plan_by_arn[ArnKey(arn)] = &plan;
  }

  // Each resource's use per type and source, and each plan's use, clipped to what counts.
  using LineKey = std::tuple<std::string, std::string, std::string>;  // arn, type, plan
  std::map<LineKey, std::pair<const HeldSpan*, StepBuilder>> lines;
  std::map<const PlanBill*, StepBuilder> plan_use;
  std::map<const PlanBill*, std::map<std::string, StepBuilder>> plan_use_by_kind;
  for (const HeldSpan& span : inputs.held) {
    if (span.count <= 0) continue;
    TimePoint lo = from;
    TimePoint hi = used_until;
    const PlanBill* plan = nullptr;
    if (!span.plan_arn.empty()) {
      const auto it = plan_by_arn.find(ArnKey(span.plan_arn));
      if (it != plan_by_arn.end()) {
        plan = it->second;
        lo = std::max(lo, plan->window.start);
        hi = std::min(hi, plan->window.end);
      }
    }
    const auto clipped = Clip(span.from, span.to.value_or(TimePoint::max()), lo, hi);
    if (!clipped) continue;
    auto& line = lines[{span.arn, span.instance_type, plan ? plan->arn : span.plan_arn}];
    if (line.first == nullptr) line.first = &span;
    line.second.Add(clipped->first, clipped->second, span.count);
    if (plan != nullptr) {
      plan_use[plan].Add(clipped->first, clipped->second, span.count);
      plan_use_by_kind[plan][span.kind].Add(clipped->first, clipped->second, span.count);
    }
  }

  for (const PlanBill& plan : inputs.plans) {
    const auto in_range = Clip(plan.window.start, plan.window.end, from, to);
    if (!in_range) continue;
    PlanCost cost{plan, 0, 0, 0, {}, 0, {}};
    const long long range_ms = ReservedMillis(plan, from, to);
    cost.fee_in_range =
        ShareOf(plan.fee, range_ms, ReservedMillis(plan, TimePoint::min(), TimePoint::max()));
    cost.reserved = plan.instance_count * range_ms;
    if (const auto it = plan_use.find(&plan); it != plan_use.end()) {
      cost.use = it->second.Steps();
      cost.used = Sum(cost.use);
    }
    for (const auto& [kind, steps] : plan_use_by_kind[&plan]) {
      cost.used_by[kind] = Sum(steps.Steps());
    }
    cost.on_demand_equivalent =
        OnDemandCost(OnDemandHourly(inputs.prices, plan.pool.instance_type), cost.used);
    CostTotals line;
    line.plan_fees = cost.fee_in_range;
    line.reserved = cost.reserved;
    line.plan_used = cost.used;
    line.on_demand_equivalent = cost.on_demand_equivalent;
    AddTo(ledger, plan.account, plan.pool.region, plan.pool.instance_type, line);
    ledger.plans.push_back(std::move(cost));
  }
  std::stable_sort(ledger.plans.begin(), ledger.plans.end(),
                   [](const PlanCost& a, const PlanCost& b) {
                     return std::tie(a.plan.window.start, a.plan.arn) <
                            std::tie(b.plan.window.start, b.plan.arn);
                   });

  for (const auto& [key, line] : lines) {
    const HeldSpan& span = *line.first;
    HolderCost holder{span.arn,     span.name,          span.kind,          span.account,
                      span.region,  span.instance_type, std::get<2>(key),   0,
                      std::nullopt, std::nullopt,       line.second.Steps()};
    holder.used = Sum(holder.use);
    if (holder.plan_arn.empty()) {
      holder.hourly_price = OnDemandHourly(inputs.prices, span.instance_type);
      holder.cost = OnDemandCost(*holder.hourly_price, holder.used);
      CostTotals totals;
      totals.on_demand_cost = *holder.cost;
      totals.on_demand_equivalent = *holder.cost;
      totals.on_demand_used = holder.used;
      AddTo(ledger, span.account, span.region, span.instance_type, totals);
    }
    ledger.holders.push_back(std::move(holder));
  }
  std::stable_sort(
      ledger.holders.begin(), ledger.holders.end(), [](const HolderCost& a, const HolderCost& b) {
        return std::tie(a.use.front().from, a.arn) < std::tie(b.use.front().from, b.arn);
      });

  for (const PreferenceJob& job : inputs.preference_jobs) {
    const auto ran = Clip(job.start, job.end.value_or(TimePoint::max()), from, used_until);
    if (!ran) continue;
    const Millis ran_for = ran->second - ran->first;
    ledger.preference_jobs.push_back({job, ran_for,
                                      OptionCost(job.chosen, ran_for, inputs, plan_by_arn),
                                      OptionCost(job.first, ran_for, inputs, plan_by_arn)});
  }
  std::stable_sort(ledger.preference_jobs.begin(), ledger.preference_jobs.end(),
                   [](const PreferenceJobCost& a, const PreferenceJobCost& b) {
                     return std::tie(a.job.start, a.job.arn) < std::tie(b.job.start, b.job.arn);
                   });
  return ledger;
}

}  // namespace smemu::domain
