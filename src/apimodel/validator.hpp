// Request validation and response conformance checks driven by the service model, worded as the
// real service words them. Stateless functions; thread-safe.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "apimodel/service_model.hpp"
#include "domain/aws_error.hpp"

namespace smemu::apimodel {

// Checks a request body against its input shape, as AWS does before any handler runs:
// - a JSON type the member cannot take fails with SerializationException (the first one found);
// - every constraint violation (required, length, range, pattern, enum) is listed in one
//   ValidationException: "2 validation errors detected: Value 'x' at 'modelName' failed to
//   satisfy constraint: Member must ...; ...".
// JSON null counts as absent. Members the model does not know are ignored, as AWS ignores them.
domain::Status ValidateRequest(const Shape& shape, const nlohmann::json& input);

// Lists every way a response departs from its output shape: missing required members, members the
// shape does not have, wrong JSON types, timestamps that are not epoch-second numbers, enum values
// outside the model. Empty when the response conforms. Used by tests on every handler's output.
std::vector<std::string> CheckResponse(const Shape& shape, const nlohmann::json& output);

// "ModelName" -> "modelName": how AWS names members in validation messages.
std::string LowerCamel(const std::string& member_name);

}  // namespace smemu::apimodel
