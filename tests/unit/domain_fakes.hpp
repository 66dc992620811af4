// A table of plans and on-demand pools for the lifecycle rules, without a store or a router.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_facts.hpp"
#include "unit/test_values.hpp"

namespace smemu::testing {

inline TimePoint Hour(int hours) { return TimePoint{} + std::chrono::hours(hours); }

class FakeFacts : public domain::CapacityFacts {
 public:
  // A plan of `count` instances of `instance_type` open in [start_hour, end_hour), bought for
  // every target resource unless `targets` says otherwise.
  FakeFacts& WithPlan(const std::string& arn, int count, int start_hour, int end_hour,
                      const std::string& instance_type = "ml.p5.48xlarge",
                      std::vector<std::string> targets = {"training-job", "endpoint",
                                                          "hyperpod-cluster"}) {
    plans_[arn] = domain::PlanFacts{{{Hour(start_hour), Hour(end_hour)}},
                                    count,
                                    instance_type,
                                    std::move(targets),
                                    "us-west-2a",
                                    arn};
    return *this;
  }
  // A plan of two reserved capacities: [start_hour, gap_start) and [gap_end, end_hour).
  FakeFacts& WithTwoBlockPlan(const std::string& arn, int count, int start_hour, int gap_start,
                              int gap_end, int end_hour) {
    WithPlan(arn, count, start_hour, end_hour);
    plans_[arn].blocks = {{Hour(start_hour), Hour(gap_start)}, {Hour(gap_end), Hour(end_hour)}};
    return *this;
  }
  FakeFacts& WithQuotas(domain::QuotaTable quotas) {
    quotas_ = std::move(quotas);
    return *this;
  }
  const domain::QuotaTable* Quotas() const override { return quotas_.empty() ? nullptr : &quotas_; }
  FakeFacts& WithOnDemand(const std::string& type, int total) {
    on_demand_[type] = total;
    return *this;
  }
  std::optional<domain::PlanFacts> Plan(const domain::Owner&,
                                        const std::string& arn) const override {
    auto it = plans_.find(arn);
    if (it == plans_.end()) return std::nullopt;
    return it->second;
  }
  std::optional<int> OnDemandTotal(const std::string&, const std::string& type) const override {
    auto it = on_demand_.find(type);
    if (it == on_demand_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<std::string, domain::PlanFacts> plans_;
  std::map<std::string, int> on_demand_;
  domain::QuotaTable quotas_;
};

// How long provisioning takes in the domain tests.
inline const Millis kDelay{std::chrono::minutes(10)};

inline const domain::Owner kOwner{"111122223333", "us-west-2"};
// Two plans of kOwner's account and region.
inline constexpr const char* kPlan = "arn:aws:sagemaker:us-west-2:111122223333:training-plan/p";
inline constexpr const char* kOtherPlan =
    "arn:aws:sagemaker:us-west-2:111122223333:training-plan/q";

}  // namespace smemu::testing
