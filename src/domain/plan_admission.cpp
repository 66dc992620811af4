#include "domain/plan_admission.hpp"

#include "domain/time_format.hpp"

namespace smemu::domain {
namespace {

AwsError NotFound(const PlanRequest& request) {
  switch (request.target) {
    case PlanTarget::kEndpoint:
      return ValidationException("The MlReservationArn " + Excerpt(request.plan_arn) +
                                 " does not name a training plan or reserved capacity of this "
                                 "account and region.");
    case PlanTarget::kTrainingJob:
      // CreateTrainingJob models ResourceNotFound, and the training-plan operations answer it for
      // a plan they do not know.
      return ResourceNotFound("Training plan " + Excerpt(request.plan_arn) +
                              " does not exist in this account and region.");
    case PlanTarget::kHyperPodCluster:
      break;
  }
  return ValidationException("Training plan " + Excerpt(request.plan_arn) +
                             " does not exist in this account and region.");
}

// The plan as refusals name it: endpoints and jobs by the plan's own ARN, clusters by the ARN
// the group gave.
std::string Named(const PlanRequest& request, const PlanFacts& plan) {
  return Excerpt(request.target == PlanTarget::kHyperPodCluster || plan.arn.empty()
                     ? request.plan_arn
                     : plan.arn);
}

AwsError Expired(const PlanRequest& request, const PlanFacts& plan) {
  const std::string tail = request.target == PlanTarget::kEndpoint
                               ? " has expired and cannot back an endpoint."
                               : " has expired.";
  return ValidationException("Training plan " + Named(request, plan) + tail);
}

AwsError Failed(const PlanRequest& request, const PlanFacts& plan) {
  return ValidationException("Training plan " + Named(request, plan) +
                             " is Failed: its payment did not complete, so it reserves no "
                             "capacity.");
}

AwsError NotBoughtFor(const PlanRequest& request, const PlanFacts& plan) {
  const char* noun = request.target == PlanTarget::kEndpoint      ? "endpoints"
                     : request.target == PlanTarget::kTrainingJob ? "training jobs"
                                                                  : "HyperPod clusters";
  return ValidationException("Training plan " + Named(request, plan) + " was not bought for " +
                             noun + " (its TargetResources do not include " +
                             std::string(WireName(request.target)) + ").");
}

AwsError OtherType(const PlanRequest& request, const PlanFacts& plan) {
  if (request.target == PlanTarget::kEndpoint) {
    return ValidationException("The InstanceType of variant " + Excerpt(request.part) +
                               " must be " + Excerpt(plan.instance_type) +
                               ", the instance type of training plan " + Named(request, plan) +
                               ".");
  }
  const std::string part = request.target == PlanTarget::kHyperPodCluster
                               ? " of instance group " + Excerpt(request.part)
                               : "";
  return ValidationException("Instance type " + Excerpt(request.instance_type) + part +
                             " does not match the instance type of training plan " +
                             Named(request, plan) + " (" + Excerpt(plan.instance_type) + ").");
}

AwsError TooMany(const PlanRequest& request, const PlanFacts& plan) {
  if (request.target == PlanTarget::kHyperPodCluster) {
    return ValidationException(
        "Requested instance count (" + std::to_string(request.count) + ") of instance group " +
        Excerpt(request.part) + " exceeds reserved capacity (" +
        std::to_string(plan.instance_count) + ") for training plan " + Named(request, plan) + ".");
  }
  return ValidationException("Requested instance count (" + std::to_string(request.count) +
                             ") exceeds reserved capacity (" + std::to_string(plan.instance_count) +
                             ") for training plan.");
}

}  // namespace

AwsError WindingDownRefusal(const std::string& plan_arn, TimePoint end, const std::string& group) {
  return ValidationException("Training plan " + Excerpt(plan_arn) + " ends at " +
                             FormatIso8601(end) +
                             ": HyperPod takes its instances back from one hour before, so "
                             "instance group " +
                             Excerpt(group) + " cannot take more of them.");
}

Status AdmitOnPlan(const PlanRequest& request, const std::optional<PlanFacts>& plan,
                   TimePoint now) {
  if (!plan) return NotFound(request);
  // "The training plan must be in the Scheduled or Active status to be used by a training job";
  // a Pending one is taken here as a Scheduled one is (what uses a plan waits for its start
  // anyway), so that no flow depends on how long a payment takes. A Known difference.
  if (plan->payment_fails && now >= plan->paid_at) return Failed(request, *plan);
  const auto block = plan->BlockFrom(now);
  if (!block) return Expired(request, *plan);
  // In the last hour of a reserved capacity HyperPod is taking its instances back.
  if (request.target == PlanTarget::kHyperPodCluster && now >= block->end - kHyperPodWindDown) {
    return WindingDownRefusal(request.plan_arn, block->end, request.part);
  }
  if (!plan->Targets(WireName(request.target))) return NotBoughtFor(request, *plan);
  if (plan->instance_type != request.instance_type) return OtherType(request, *plan);
  if (request.count > plan->instance_count) return TooMany(request, *plan);
  return Ok();
}

}  // namespace smemu::domain
