// The kinds of resource the store keeps, in one table. A kind's wire name is also the resource
// type in its ARN (arn:aws:sagemaker:<region>:<account>:<kind>/<name>) and the store's `kind`
// column. The table's order is the kinds' declared order: the admin views and the metrics list
// holders in it (endpoints, training jobs, processing jobs, clusters), and ops/kinds.hpp settles
// lifecycles in the order of its registry.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "domain/aws_error.hpp"

namespace smemu::domain {

enum class ResourceKind {
  kModel,
  kEndpointConfig,
  kEndpoint,
  kTrainingPlan,
  kTrainingJob,
  kProcessingJob,
  kCluster,  // a HyperPod cluster
};

// How a kind's operations answer for a resource the caller named that does not exist. AWS words
// it differently per kind: `prefix`, then the name as the caller gave it or the resource's ARN
// (`quote_arn`: in double quotes), then `suffix`.
struct MissingResource {
  ErrorCode code;  // kValidationException or kResourceNotFound
  const char* prefix;
  bool quote_arn;
  const char* suffix;
};

// How a kind that holds instances is named in the account's service quotas: the per-type quota is
// '<instance type> for <usage>', the account-wide one is `total`. Both are nullptr for a kind
// that holds none.
struct InstanceQuotaNames {
  const char* usage;
  const char* total;
};

struct ResourceKindName {
  ResourceKind kind;
  const char* wire;
  MissingResource missing;
  InstanceQuotaNames quotas{nullptr, nullptr};
};

inline constexpr ErrorCode kValidation = ErrorCode::kValidationException;
inline constexpr ErrorCode kNotFound = ErrorCode::kResourceNotFound;

inline constexpr std::array<ResourceKindName, 7> kResourceKinds = {{
    {ResourceKind::kModel, "model", {kValidation, "Could not find model ", true, "."}},
    {ResourceKind::kEndpointConfig,
     "endpoint-config",
     {kValidation, "Could not find endpoint configuration ", true, "."}},
    {ResourceKind::kEndpoint,
     "endpoint",
     {kValidation, "Could not find endpoint ", true, "."},
     {"endpoint usage", "Number of instances across active endpoints"}},
    {ResourceKind::kTrainingPlan,
     "training-plan",
     {kNotFound, "Training plan ", false, " not found."}},
    // DescribeTrainingJob names nothing; DescribeProcessingJob names the job without a full stop.
    {ResourceKind::kTrainingJob,
     "training-job",
     {kValidation, "Requested resource not found.", false, nullptr},
     {"training job usage", "Number of instances across all training jobs"}},
    {ResourceKind::kProcessingJob,
     "processing-job",
     {kValidation, "Could not find requested job with name ", false, ""},
     {"processing job usage", "Number of instances across all processing jobs"}},
    {ResourceKind::kCluster,
     "cluster",
     {kNotFound, "Cluster ", false, " not found."},
     {"cluster usage", "Total number of instances allowed across SageMaker HyperPod clusters"}},
}};

constexpr const char* WireName(ResourceKind kind) {
  return kResourceKinds[static_cast<std::size_t>(kind)].wire;
}

constexpr std::optional<ResourceKind> ResourceKindNamed(std::string_view wire) {
  for (const ResourceKindName& entry : kResourceKinds) {
    if (wire == entry.wire) return entry.kind;
  }
  return std::nullopt;
}

// Whether `kind`'s instances count against the per-type and account-wide quotas of its use.
constexpr bool HasInstanceQuotas(ResourceKind kind) {
  return kResourceKinds[static_cast<std::size_t>(kind)].quotas.usage != nullptr;
}

// The error for a `kind` resource that does not exist, named `given` by the caller (a name or an
// ARN) and with the ARN `arn`.
AwsError MissingResourceError(ResourceKind kind, std::string_view given, std::string_view arn);

// The table is indexed by the enum: each entry must sit at its own value.
constexpr bool KindTableInOrder() {
  for (std::size_t i = 0; i < kResourceKinds.size(); ++i) {
    if (static_cast<std::size_t>(kResourceKinds[i].kind) != i) return false;
  }
  return true;
}
static_assert(KindTableInOrder(), "kResourceKinds must list the kinds in enum order");

inline constexpr const char* kModelKind = WireName(ResourceKind::kModel);
inline constexpr const char* kEndpointConfigKind = WireName(ResourceKind::kEndpointConfig);
inline constexpr const char* kEndpointKind = WireName(ResourceKind::kEndpoint);
inline constexpr const char* kPlanKind = WireName(ResourceKind::kTrainingPlan);
inline constexpr const char* kTrainingJobKind = WireName(ResourceKind::kTrainingJob);
inline constexpr const char* kProcessingJobKind = WireName(ResourceKind::kProcessingJob);
inline constexpr const char* kClusterKind = WireName(ResourceKind::kCluster);
// Not a stored kind: the ARN segment of a plan's reserved capacity, which the plan's row holds.
inline constexpr const char* kCapacityKind = "reserved-capacity";

}  // namespace smemu::domain
