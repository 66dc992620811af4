#include "domain/faults.hpp"

#include <fnmatch.h>

#include <optional>

#include "domain/capacity_facts.hpp"

namespace smemu::domain {
bool GlobMatches(const std::string& pattern, std::string_view text) {
  if (pattern.empty() || pattern == "*") return true;
  return fnmatch(pattern.c_str(), std::string(text).c_str(), 0) == 0;
}

std::optional<int> WithoutOnDemand::OnDemandTotal(const std::string& region,
                                                  const std::string& instance_type) const {
  if (GlobMatches(instance_type_, instance_type)) return 0;
  return facts_.OnDemandTotal(region, instance_type);
}

bool FaultScope::Matches(const FaultSubject& subject) const {
  return GlobMatches(operation, subject.operation) &&
         (account.empty() || account == subject.account) &&
         (region.empty() || region == subject.region) && GlobMatches(resource, subject.resource);
}

bool Fires(const FaultFiring& firing, long long match, long long fired, double draw) {
  switch (firing.kind) {
    case FaultFiring::Kind::kAlways:
      return true;
    case FaultFiring::Kind::kTimes:
      return fired < firing.count;
    case FaultFiring::Kind::kEvery:
      return firing.count > 0 && match % firing.count == 0;
    case FaultFiring::Kind::kProbability:
      return draw < firing.probability;
  }
  return false;
}

FaultStage StageOf(const FaultAction& action) {
  if (std::holds_alternative<PaymentFault>(action)) return FaultStage::kPayment;
  if (std::holds_alternative<NodeFault>(action)) return FaultStage::kNodeFailure;
  if (std::holds_alternative<NoCapacityFault>(action)) return FaultStage::kProvisioning;
  if (std::holds_alternative<JobFault>(action)) return FaultStage::kJobCreation;
  if (std::holds_alternative<ModelFault>(action)) return FaultStage::kInvocation;
  return FaultStage::kRequest;
}

std::optional<ErrorCode> FaultErrorCode(std::string_view name) {
  // The codes a test may want from SageMaker: its modelled errors, the runtime's, and the common
  // AWS ones. The transport's own framing codes are left out: no AWS operation answers them.
  for (ErrorCode code :
       {ErrorCode::kValidationException, ErrorCode::kResourceNotFound, ErrorCode::kResourceInUse,
        ErrorCode::kResourceLimitExceeded, ErrorCode::kConflictException,
        ErrorCode::kInternalFailure, ErrorCode::kAccessDeniedException,
        ErrorCode::kUnrecognizedClientException, ErrorCode::kThrottlingException,
        ErrorCode::kServiceUnavailable, ErrorCode::kValidationError, ErrorCode::kModelError,
        ErrorCode::kModelNotReadyException, ErrorCode::kInternalDependencyException}) {
    if (WireName(code) == name) return code;
  }
  return std::nullopt;
}

}  // namespace smemu::domain
