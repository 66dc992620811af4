#include "ops/job_options.hpp"

#include <algorithm>
#include <set>

#include "domain/plan_admission.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {
namespace {

using domain::ValidationException;
using nlohmann::json;

// Counts go either on every preference (and not on the job) or on the job only.
domain::Status CheckCounts(const json& preferences, bool job_count, const std::string& where) {
  const auto with_count =
      std::count_if(preferences.begin(), preferences.end(),
                    [](const json& preference) { return preference.contains("InstanceCount"); });
  if (with_count > 0 && job_count) {
    return ValidationException("Specify InstanceCount either on every instance preference or in " +
                               where + ", not both.");
  }
  if (with_count > 0 && static_cast<size_t>(with_count) < preferences.size()) {
    return ValidationException(
        "InstanceCount must be specified on every instance preference or on none of them.");
  }
  if (with_count == 0 && !job_count) {
    return ValidationException("Specify InstanceCount on every instance preference or in " + where +
                               ".");
  }
  return domain::Ok();
}

domain::Status CheckUniqueTypes(const json& preferences) {
  std::set<std::string> seen;
  for (const json& preference : preferences) {
    const std::string type = preference.at("InstanceType");
    if (!seen.insert(type).second) {
      return ValidationException("Instance type " + domain::Excerpt(type) +
                                 " appears more than once in InstancePreferences.");
    }
  }
  return domain::Ok();
}

domain::Status CheckPositive(int count, const std::string& type) {
  if (count >= 1) return domain::Ok();
  return ValidationException("The instance count for " + domain::Excerpt(type) +
                             " must be at least 1.");
}

// A plan a training job may run on.
domain::Status CheckPlan(const Context& ctx, const JobOption& option) {
  const auto plan = PlanByReservationArn(ctx, option.plan_arn);
  return domain::AdmitOnPlan({domain::PlanTarget::kTrainingJob, option.plan_arn,
                              option.instance_type, option.instance_count, ""},
                             plan ? std::optional(FactsOf(*plan)) : std::nullopt, ctx.now);
}

domain::Result<std::vector<JobOption>> TrainingPreferences(const json& resources,
                                                           const Context& ctx) {
  for (const char* member : {"InstanceType", "InstanceGroups", "InstancePlacementConfig"}) {
    if (resources.contains(member)) {
      return ValidationException(std::string("InstancePreferences cannot be combined with ") +
                                 "ResourceConfig." + member + ".");
    }
  }
  const json& preferences = resources["InstancePreferences"];
  if (auto ok = CheckUniqueTypes(preferences); !ok) return ok.error();
  const bool job_count = resources.contains("InstanceCount");
  if (auto ok = CheckCounts(preferences, job_count, "ResourceConfig"); !ok) return ok.error();
  const bool job_plan = resources.contains("TrainingPlanArn");
  std::vector<JobOption> options;
  for (const json& preference : preferences) {
    JobOption option{preference.at("InstanceType"),
                     preference.value("InstanceCount", resources.value("InstanceCount", 0)), ""};
    if (auto ok = CheckPositive(option.instance_count, option.instance_type); !ok) {
      return ok.error();
    }
    if (preference.contains("TrainingPlanArns")) {
      if (job_plan) {
        return ValidationException(
            "TrainingPlanArns in InstancePreferences cannot be combined with "
            "ResourceConfig.TrainingPlanArn.");
      }
      option.plan_arn = preference["TrainingPlanArns"].at(0);
      if (auto ok = CheckPlan(ctx, option); !ok) return ok.error();
    }
    options.push_back(std::move(option));
  }
  if (job_plan) {
    // The job-level plan backs the preference of its instance type.
    const std::string arn = resources["TrainingPlanArn"];
    const auto plan = PlanByReservationArn(ctx, arn);
    auto match = std::find_if(options.begin(), options.end(), [&](const JobOption& option) {
      return plan && option.instance_type == plan->InstanceType();
    });
    if (match == options.end()) {
      // No preference has the plan's type: report it as a mismatch with the first preference.
      JobOption probe{options.front().instance_type, options.front().instance_count, arn};
      const auto ok = CheckPlan(ctx, probe);
      return ok ? ValidationException("Training plan " + domain::Excerpt(arn) +
                                      " matches none of the instance preferences.")
                : ok.error();
    }
    match->plan_arn = arn;
    if (auto ok = CheckPlan(ctx, *match); !ok) return ok.error();
  }
  return options;
}

}  // namespace

domain::Result<std::vector<JobOption>> TrainingJobOptions(const json& input, const Context& ctx) {
  if (!input.contains("ResourceConfig")) {
    return ValidationException("ResourceConfig is required for a training job.");
  }
  const json& resources = input["ResourceConfig"];
  if (resources.contains("InstancePreferences")) {
    if (input.value("EnableManagedSpotTraining", false)) {
      return ValidationException(
          "InstancePreferences cannot be combined with EnableManagedSpotTraining.");
    }
    return TrainingPreferences(resources, ctx);
  }
  if (resources.contains("InstanceGroups")) {
    return ValidationException(
        "Heterogeneous clusters (ResourceConfig.InstanceGroups) are not emulated by "
        "sagemaker-emulator.");
  }
  if (!resources.contains("InstanceType") || !resources.contains("InstanceCount")) {
    return ValidationException(
        "ResourceConfig must have InstanceType and InstanceCount, or InstancePreferences.");
  }
  JobOption option{resources["InstanceType"], resources["InstanceCount"],
                   resources.value("TrainingPlanArn", "")};
  if (auto ok = CheckPositive(option.instance_count, option.instance_type); !ok) return ok.error();
  if (!option.plan_arn.empty()) {
    if (auto ok = CheckPlan(ctx, option); !ok) return ok.error();
  }
  return std::vector<JobOption>{std::move(option)};
}

domain::Result<std::vector<JobOption>> ProcessingJobOptions(const json& input) {
  const json& cluster = input.at("ProcessingResources").at("ClusterConfig");
  if (cluster.contains("InstancePreferences")) {
    if (cluster.contains("InstanceType")) {
      return ValidationException(
          "InstancePreferences cannot be combined with ClusterConfig.InstanceType.");
    }
    // A processing preference has no TrainingPlanArns in the model: one sent is dropped with the
    // other members the model does not have (apimodel::KeepModelledMembers), as AWS ignores them.
    const json& preferences = cluster["InstancePreferences"];
    if (auto ok = CheckUniqueTypes(preferences); !ok) return ok.error();
    const bool job_count = cluster.contains("InstanceCount");
    if (auto ok = CheckCounts(preferences, job_count, "ClusterConfig"); !ok) return ok.error();
    std::vector<JobOption> options;
    for (const json& preference : preferences) {
      options.push_back({preference.at("InstanceType"),
                         preference.value("InstanceCount", cluster.value("InstanceCount", 0)), ""});
    }
    return options;
  }
  if (!cluster.contains("InstanceType") || !cluster.contains("InstanceCount")) {
    return ValidationException(
        "ClusterConfig must have InstanceType and InstanceCount, or InstancePreferences.");
  }
  return std::vector<JobOption>{{cluster["InstanceType"], cluster["InstanceCount"], ""}};
}

}  // namespace smemu::ops
