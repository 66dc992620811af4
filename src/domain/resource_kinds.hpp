// The kinds of resource the store keeps. Each is also the resource type in the resource's ARN
// (arn:aws:sagemaker:<region>:<account>:<kind>/<name>).
#pragma once

namespace smemu::domain {

inline constexpr const char* kModelKind = "model";
inline constexpr const char* kEndpointConfigKind = "endpoint-config";
inline constexpr const char* kEndpointKind = "endpoint";
inline constexpr const char* kPlanKind = "training-plan";
inline constexpr const char* kCapacityKind = "reserved-capacity";  // a plan's reserved capacity
inline constexpr const char* kTrainingJobKind = "training-job";
inline constexpr const char* kProcessingJobKind = "processing-job";
inline constexpr const char* kClusterKind = "cluster";  // a HyperPod cluster

}  // namespace smemu::domain
