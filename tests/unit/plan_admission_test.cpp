// The plan admission rule (domain/plan_admission.hpp) as a table: for each target (endpoint
// variant, training job, HyperPod instance group) and each way a plan can fail to back it, the
// error and its exact words. The same rule answers CreateEndpointConfig, CreateTrainingJob and
// CreateCluster/UpdateCluster, so these are the texts those operations answer with.
//
// AWS (API reference, TrainingPlanOffering.TargetResources): "Training plans are specific to their
// target resource." (developer guide, training plans for training jobs): "The training plan must
// be in the Scheduled or Active status to be used by a training job." The hour before a plan's
// end in which HyperPod groups cannot grow is the emulator's (README, HyperPod clusters).
#include "domain/plan_admission.hpp"

#include <gtest/gtest.h>

#include "unit/test_values.hpp"

namespace smemu {
namespace {

using domain::PlanTarget;

const TimePoint kNow{Millis{1800835200000}};  // 2027-01-25T00:00:00Z
constexpr const char* kPlanArn = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p";
constexpr const char* kCapacityArn =
    "arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/rc-1";
using testing::kP5;

domain::PlanFacts Plan(std::vector<std::string> targets, TimePoint start = kNow - domain::kHour,
                       TimePoint end = kNow + domain::kDay) {
  return {{{start, end}}, 2, kP5, std::move(targets), "us-west-2a", kPlanArn};
}

struct Case {
  const char* what;
  PlanTarget target;
  std::optional<domain::PlanFacts> plan;
  std::string instance_type;
  int count;
  std::optional<domain::ErrorCode> code;  // nullopt: admitted
  std::string message;
};

std::string Refusal(const domain::Status& status) { return status ? "" : status.error().message; }

TEST(PlanAdmission, EveryTargetAndEveryRefusalWithItsWords) {
  const auto all = std::vector<std::string>{"endpoint", "training-job", "hyperpod-cluster"};
  const std::vector<Case> cases = {
      {"endpoint, admitted", PlanTarget::kEndpoint, Plan(all), kP5, 2, std::nullopt, ""},
      {"job, admitted", PlanTarget::kTrainingJob, Plan(all), kP5, 1, std::nullopt, ""},
      {"cluster, admitted", PlanTarget::kHyperPodCluster, Plan(all), kP5, 2, std::nullopt, ""},
      {"scheduled plans admit too", PlanTarget::kTrainingJob,
       Plan(all, kNow + domain::kDay, kNow + 2 * domain::kDay), kP5, 1, std::nullopt, ""},

      {"endpoint, no such plan", PlanTarget::kEndpoint, std::nullopt, kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("The MlReservationArn ") + kCapacityArn +
           " does not name a training plan or reserved capacity of this account and region."},
      {"job, no such plan", PlanTarget::kTrainingJob, std::nullopt, kP5, 1,
       domain::ErrorCode::kResourceNotFound,
       std::string("Training plan ") + kCapacityArn +
           " does not exist in this account and region."},
      {"cluster, no such plan", PlanTarget::kHyperPodCluster, std::nullopt, kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kCapacityArn +
           " does not exist in this account and region."},

      {"endpoint, expired", PlanTarget::kEndpoint, Plan(all, kNow - 2 * domain::kDay, kNow), kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kPlanArn + " has expired and cannot back an endpoint."},
      {"job, expired", PlanTarget::kTrainingJob, Plan(all, kNow - 2 * domain::kDay, kNow), kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kPlanArn + " has expired."},
      {"cluster, expired (named as the group names it)", PlanTarget::kHyperPodCluster,
       Plan(all, kNow - 2 * domain::kDay, kNow), kP5, 1, domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kCapacityArn + " has expired."},

      {"cluster, in the plan's last hour", PlanTarget::kHyperPodCluster,
       Plan(all, kNow - domain::kDay, kNow + 30 * Millis{60'000}), kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kCapacityArn +
           " ends at 2027-01-25T00:30:00Z: HyperPod takes its instances back from one hour "
           "before, so instance group workers cannot take more of them."},
      {"job, in the plan's last hour (only HyperPod winds down)", PlanTarget::kTrainingJob,
       Plan(all, kNow - domain::kDay, kNow + 30 * Millis{60'000}), kP5, 1, std::nullopt, ""},

      {"endpoint, bought for jobs", PlanTarget::kEndpoint, Plan({"training-job"}), kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kPlanArn +
           " was not bought for endpoints (its TargetResources do not include endpoint)."},
      {"job, bought for endpoints", PlanTarget::kTrainingJob, Plan({"endpoint"}), kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kPlanArn +
           " was not bought for training jobs (its TargetResources do not include "
           "training-job)."},
      {"cluster, bought for jobs", PlanTarget::kHyperPodCluster, Plan({"training-job"}), kP5, 1,
       domain::ErrorCode::kValidationException,
       std::string("Training plan ") + kCapacityArn +
           " was not bought for HyperPod clusters (its TargetResources do not include "
           "hyperpod-cluster)."},

      {"endpoint, other type", PlanTarget::kEndpoint, Plan(all), "ml.g5.12xlarge", 1,
       domain::ErrorCode::kValidationException,
       std::string("The InstanceType of variant workers must be ml.p5.48xlarge, the instance "
                   "type of training plan ") +
           kPlanArn + "."},
      {"job, other type", PlanTarget::kTrainingJob, Plan(all), "ml.g5.12xlarge", 1,
       domain::ErrorCode::kValidationException,
       std::string("Instance type ml.g5.12xlarge does not match the instance type of training "
                   "plan ") +
           kPlanArn + " (ml.p5.48xlarge)."},
      {"cluster, other type", PlanTarget::kHyperPodCluster, Plan(all), "ml.g5.12xlarge", 1,
       domain::ErrorCode::kValidationException,
       std::string("Instance type ml.g5.12xlarge of instance group workers does not match the "
                   "instance type of training plan ") +
           kCapacityArn + " (ml.p5.48xlarge)."},

      {"endpoint, more than the plan has", PlanTarget::kEndpoint, Plan(all), kP5, 3,
       domain::ErrorCode::kValidationException,
       "Requested instance count (3) exceeds reserved capacity (2) for training plan."},
      {"job, more than the plan has", PlanTarget::kTrainingJob, Plan(all), kP5, 3,
       domain::ErrorCode::kValidationException,
       "Requested instance count (3) exceeds reserved capacity (2) for training plan."},
      {"cluster, more than the plan has", PlanTarget::kHyperPodCluster, Plan(all), kP5, 3,
       domain::ErrorCode::kValidationException,
       std::string("Requested instance count (3) of instance group workers exceeds reserved "
                   "capacity (2) for training plan ") +
           kCapacityArn + "."},
  };
  for (const Case& c : cases) {
    const std::string part = c.target == PlanTarget::kTrainingJob ? "" : "workers";
    const domain::Status status =
        domain::AdmitOnPlan({c.target, kCapacityArn, c.instance_type, c.count, part}, c.plan, kNow);
    if (!c.code) {
      EXPECT_TRUE(status) << c.what << ": " << Refusal(status);
      continue;
    }
    ASSERT_FALSE(status) << c.what;
    EXPECT_EQ(status.error().code, c.code) << c.what;
    EXPECT_EQ(status.error().message, c.message) << c.what;
  }
}

TEST(PlanAdmission, TargetsHaveTheirTargetResourcesNames) {
  EXPECT_EQ(domain::WireName(PlanTarget::kEndpoint), "endpoint");
  EXPECT_EQ(domain::WireName(PlanTarget::kTrainingJob), "training-job");
  EXPECT_EQ(domain::WireName(PlanTarget::kHyperPodCluster), "hyperpod-cluster");
}

}  // namespace
}  // namespace smemu
