// The service models compiled into the binary from api/ (see cmake/Embed.cmake).
#pragma once

#include "apimodel/service_model.hpp"

namespace smemu::apimodel {

// Parsed once on first use (thread-safe); immutable afterwards.
const ServiceModel& ControlPlaneModel();  // sagemaker 2017-07-24, awsJson1_1
const ServiceModel& RuntimeModel();       // sagemaker-runtime 2017-05-13, restJson1

}  // namespace smemu::apimodel
