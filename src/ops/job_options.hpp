// What a training or processing job may run on: its instance options in priority order, read and
// checked from a CreateTrainingJob / CreateProcessingJob request. A plain job (one InstanceType)
// is a list of one option; InstancePreferences give up to five.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/job.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

using domain::JobOption;

// The training job's options (ResourceConfig), with every rule of the service checked: exclusions,
// unique types, counts in exactly one place, per-preference plans never with the job-level plan,
// and each plan live, bought for training jobs, of the option's instance type and large enough.
domain::Result<std::vector<JobOption>> TrainingJobOptions(const nlohmann::json& input,
                                                          const Context& ctx);

// The processing job's options (ProcessingResources.ClusterConfig); processing takes no plans.
domain::Result<std::vector<JobOption>> ProcessingJobOptions(const nlohmann::json& input);

}  // namespace smemu::ops
