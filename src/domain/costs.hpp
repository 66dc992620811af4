// The cost ledger: what the reservations and the on-demand instances cost over a span of virtual
// time, how much of what was reserved was used, and what the same use would have cost on demand.
// Pure arithmetic on plain data in exact units: money in cents, use in instance-milliseconds.
// Each line's money is rounded to the cent once, half up; totals add the rounded lines. No I/O.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "domain/capacity_ledger.hpp"
#include "domain/capacity_pools.hpp"
#include "domain/job.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

using Cents = long long;
using InstanceMillis = long long;  // instances x milliseconds

// A stretch of time during which a resource held `count` instances of a type.
struct HeldSpan {
  std::string arn;
  std::string name;
  std::string kind;  // endpoint, training-job, processing-job, cluster
  std::string account;
  std::string region;
  std::string instance_type;
  std::string plan_arn;  // the ARN the resource named its plan by; empty: on demand
  int count = 0;
  TimePoint from{};
  std::optional<TimePoint> to;  // nullopt: still held
};

// A sold plan: what was paid for which instances and window.
struct PlanBill {
  std::string arn;
  std::vector<std::string> reserved_capacity_arns;  // resources may name the plan by these too
  std::string name;
  std::string account;
  PoolKey pool;
  int instance_count = 0;
  Window window;               // from its first start to its last end, extensions included
  std::vector<Window> blocks;  // its reserved capacities' windows: what the fee pays for
  TimePoint paid_at{};         // when its purchase was paid: Pending until then
  Cents fee = 0;               // the plan and its extensions
};

// A job that listed more than one instance preference and started on one of them.
struct PreferenceJob {
  std::string arn;
  std::string name;
  std::string kind;
  std::string account;
  std::string region;
  JobOption first;
  JobOption chosen;
  TimePoint start{};
  std::optional<TimePoint> end;  // nullopt: still running
};

// Instances held over time: consecutive steps, none with zero instances.
struct UseStep {
  TimePoint from{};
  TimePoint to{};
  int instances = 0;

  bool operator==(const UseStep&) const = default;
};

struct PlanCost {
  PlanBill plan;
  Cents fee_in_range = 0;       // the fee's share for the part of the window in range
  InstanceMillis reserved = 0;  // instance_count x the part of the window in range
  InstanceMillis used = 0;      // held by resources inside the window, the range and the past
  std::map<std::string, InstanceMillis> used_by;  // by resource kind
  Cents on_demand_equivalent = 0;                 // `used` at the type's on-demand price
  std::vector<UseStep> use;
};

// What one resource held of one instance type, on one plan or on demand.
struct HolderCost {
  std::string arn;
  std::string name;
  std::string kind;
  std::string account;
  std::string region;
  std::string instance_type;
  std::string plan_arn;  // empty: on demand
  InstanceMillis used = 0;
  std::optional<double> hourly_price;  // on demand only: a plan's use is paid by its fee
  std::optional<Cents> cost;
  std::vector<UseStep> use;
};

struct PreferenceJobCost {
  PreferenceJob job;
  Millis ran{0};  // in range and in the past
  Cents chosen = 0;
  Cents first = 0;
};

struct CostTotals {
  Cents plan_fees = 0;
  Cents on_demand_cost = 0;
  Cents on_demand_equivalent = 0;  // plans' use and on-demand use, all at on-demand prices
  InstanceMillis reserved = 0;
  InstanceMillis plan_used = 0;
  InstanceMillis on_demand_used = 0;

  Cents total() const { return plan_fees + on_demand_cost; }
  Cents savings() const { return on_demand_equivalent - total(); }
};

struct CostLedger {
  TimePoint from{};
  TimePoint to{};
  TimePoint now{};
  std::vector<PlanCost> plans;                     // by window start, then ARN
  std::vector<HolderCost> holders;                 // by first use, then ARN
  std::vector<PreferenceJobCost> preference_jobs;  // by start, then ARN
  CostTotals overall;
  std::map<std::string, CostTotals> by_account;
  std::map<std::string, CostTotals> by_region;
  std::map<std::string, CostTotals> by_instance_type;
  // By account, region and instance type together (the metrics' labels).
  std::map<std::tuple<std::string, std::string, std::string>, CostTotals> by_account_region_type;
};

struct CostInputs {
  std::vector<PlanBill> plans;
  std::vector<HeldSpan> held;
  std::vector<PreferenceJob> preference_jobs;
  std::map<std::string, Prices> prices;  // by instance type
};

// The ledger for [from, to) as of `now`: use counts only up to `now`; a plan's reserved hours
// and fee count for its whole window inside the range, future included.
CostLedger ComputeCosts(const CostInputs& inputs, TimePoint from, TimePoint to, TimePoint now);

// `used` instance-milliseconds at `hourly` dollars per instance-hour, rounded to the cent.
Cents OnDemandCost(double hourly, InstanceMillis used);
// `whole` x part / of, rounded to the cent (half up); 0 when `of` is not positive.
Cents ShareOf(Cents whole, long long part, long long of);
// "1234.50" -> 123450; nullopt when the text is not a non-negative amount with at most 2 decimals.
std::optional<Cents> ParseCents(const std::string& amount);

}  // namespace smemu::domain
