// The plan admission rule, one for every kind that runs on a training plan: a plan backs an
// endpoint variant, a training job or a HyperPod instance group only when it is the caller's,
// bought for that target, live, of the same instance type and at least as large as the request.
// Each refusal keeps the words each operation has always answered with (the target's texts).
// Pure; no I/O.
#pragma once

#include <optional>
#include <string>

#include "domain/aws_error.hpp"
#include "domain/capacity_facts.hpp"
#include "domain/training_plan.hpp"

namespace smemu::domain {

struct PlanRequest {
  PlanTarget target = PlanTarget::kTrainingJob;
  std::string plan_arn;  // as the request names it: a training-plan or reserved-capacity ARN
  std::string instance_type;
  int count = 0;
  // The variant or instance group that asks (endpoint configs and clusters name it); empty for
  // a job.
  std::string part;
};

// Whether `plan` (nullopt: no plan of the caller's has that ARN) may back `request` at `now`.
// HyperPod takes a plan's instances back from one hour before it ends, so a cluster's group
// cannot take more of them then. Whether the plan has room left beside what already runs on it
// is the caller's to check (a cluster at once; endpoints and jobs when they start).
Status AdmitOnPlan(const PlanRequest& request, const std::optional<PlanFacts>& plan, TimePoint now);

// HyperPod's wind-down: from this long before a plan ends, its instances are taken back.
inline constexpr Millis kHyperPodWindDown = kHour;

// The refusal of an instance group that would grow on a plan (named as the group names it) in
// its wind-down, before the plan's `end`.
AwsError WindingDownRefusal(const std::string& plan_arn, TimePoint end, const std::string& group);

}  // namespace smemu::domain
