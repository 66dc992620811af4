// Values the unit tests share, for the emulator's tests and the domain's alike: the instance types
// they name most and the service's texts they expect.
#pragma once

#include <string>

namespace smemu::testing {

inline constexpr const char* kP5 = "ml.p5.48xlarge";
inline constexpr const char* kG5 = "ml.g5.12xlarge";
inline constexpr const char* kM5 = "ml.m5.xlarge";

// The service's text for a provisioning that finds no capacity.
inline const std::string kNoCapacity =
    "We currently do not have sufficient capacity for the requested instance type(s). Please try "
    "again.";

}  // namespace smemu::testing
