// What the lifecycle rules need to know about capacity besides the holdings: the plans a resource
// may name and the size of the on-demand pools. An interface, so the rules stay pure functions: the
// operation layer answers from the store and the ledger, tests from a table.
#pragma once

#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/capacity_ledger.hpp"
#include "domain/holdings.hpp"
#include "domain/quotas.hpp"
#include "domain/training_plan.hpp"

namespace smemu::domain {

// The account and region a resource lives in; it may use only plans of the same two.
struct Owner {
  std::string account;
  std::string region;

  bool operator==(const Owner&) const = default;
};

// A sold plan as the rules see it.
struct PlanFacts {
  std::vector<Window> blocks;  // its reserved capacities' windows, in time order
  int instance_count = 0;
  std::string instance_type;
  std::vector<std::string> target_resources;  // training-job, endpoint, hyperpod-cluster
  std::string availability_zone;
  std::string arn;             // the training plan's own ARN
  TimePoint paid_at{};         // Pending until its payment completes (used as if Scheduled)
  bool payment_fails = false;  // ... then Failed: nothing may use it, `blocks` end at paid_at

  // From the first block's start to the last block's end.
  Window Span() const { return {blocks.front().start, blocks.back().end}; }
  // The block in force at `at`, or else the next one; nullopt once the last has ended.
  std::optional<Window> BlockFrom(TimePoint at) const { return domain::BlockFrom(blocks, at); }
  // Active inside a block, Scheduled before the last one ends, Expired after: how the rules treat
  // it (a Pending plan as a Scheduled one).
  PlanStatus StatusAt(TimePoint at) const { return PlanStatusOf(blocks, at); }
  // The status DescribeTrainingPlan shows, its payment included (Pending, Failed).
  std::string ShownStatusAt(TimePoint at) const {
    return PurchaseStatusAt(blocks, paid_at, at, payment_fails);
  }

  bool Targets(std::string_view resource) const {
    return std::find(target_resources.begin(), target_resources.end(), resource) !=
           target_resources.end();
  }
};

class CapacityFacts {
 public:
  virtual ~CapacityFacts() = default;
  // The owner's plan that `arn` names (a training-plan ARN or its reserved capacity's ARN).
  virtual std::optional<PlanFacts> Plan(const Owner& owner, const std::string& arn) const = 0;
  // On-demand instances of a type in a region; nullopt when the configuration does not limit it.
  virtual std::optional<int> OnDemandTotal(const std::string& region,
                                           const std::string& instance_type) const = 0;
  // The account service quotas in force; nullptr when none is set.
  virtual const QuotaTable* Quotas() const { return nullptr; }
};

// `facts` with no on-demand capacity of the instance types matching the glob `instance_type` (""
// any): what a resource sees when a fault rule's no_capacity fires for its provisioning.
class WithoutOnDemand final : public CapacityFacts {
 public:
  WithoutOnDemand(const CapacityFacts& facts, std::string instance_type)
      : facts_(facts), instance_type_(std::move(instance_type)) {}
  std::optional<PlanFacts> Plan(const Owner& owner, const std::string& arn) const override {
    return facts_.Plan(owner, arn);
  }
  std::optional<int> OnDemandTotal(const std::string& region,
                                   const std::string& instance_type) const override;
  const QuotaTable* Quotas() const override { return facts_.Quotas(); }

 private:
  const CapacityFacts& facts_;
  std::string instance_type_;
};

// On-demand instances of a type still free in a region given `holdings`, leaving out what
// `except_arn` holds; INT_MAX when the type is not limited.
inline int OnDemandFree(const CapacityFacts& facts, const Holdings& holdings,
                        const std::string& region, const std::string& instance_type,
                        std::string_view except_arn = {}) {
  const auto total = facts.OnDemandTotal(region, instance_type);
  if (!total) return INT_MAX;
  return *total - holdings.OnDemand(region, instance_type, except_arn);
}

}  // namespace smemu::domain
