// Request validation and response conformance checks driven by the service model, worded as the
// real service words them. Stateless functions; thread-safe.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
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

// Removes, at any depth, every member `shape` does not model and every member that is null. AWS
// ignores members it does not know and reads a null member as an absent one, and so does
// ValidateRequest: after it, handlers see only the modelled members that were given, so a member
// unknown to the model can never be stored and shown back (which DescribeModel did with one nested
// in PrimaryContainer, outside its output shape).
void KeepModelledMembers(const Shape& shape, nlohmann::json& value);

// The response checker (--check-responses, and the tests on every handler's output). Lists every
// way a response body departs from `shape`, as a strict client would read it: required members
// missing, members the shape does not have or sent as null, JSON types, enum values, string length
// and pattern, numeric min and max, list and map sizes, timestamps that are not epoch-second
// numbers, unions with other than one member set; recursively. Each entry reads like AWS's own
// validation messages: "Value 0 at 'BillableTimeInSeconds' failed to satisfy constraint: Member
// must have value greater than or equal to 1". Empty when the response conforms.
std::vector<std::string> CheckResponse(const Shape& shape, const nlohmann::json& output);

// The same for a whole answer to `operation` (nullptr: the request named no operation the model
// has), by its HTTP status:
// - a success must carry the operation's success status and a body that fits its output shape
//   (restJson1 callers pass the header members and the payload as a JSON object);
// - an error body's `__type` must name one of the operation's modelled errors, sent with the
//   model's HTTP status (400 when the model gives none) and members that fit the error shape, or a
//   common AWS error (IsCommonError) with only `message`/`Message`.
std::vector<std::string> CheckResponse(const Operation* operation, int http_status,
                                       const nlohmann::json& body);

// Whether `code` is one that any AWS operation may answer besides its modelled errors (the list
// and its sources are in common_errors.cpp).
bool IsCommonError(std::string_view code);
// The HTTP status a common error must be sent with: 0 for any 4xx; nullopt when `code` is not one.
std::optional<int> CommonErrorStatus(std::string_view code);

// The message of the InternalFailure that replaces a response failing the check:
// "Response check failed for <operation>: <violation>; <violation>".
std::string DescribeResponseViolations(std::string_view operation,
                                       const std::vector<std::string>& violations);

// "ModelName" -> "modelName": how AWS names members in validation messages.
std::string LowerCamel(const std::string& member_name);

}  // namespace smemu::apimodel
