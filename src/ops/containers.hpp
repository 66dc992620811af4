// The model containers behind endpoints. By default the emulator itself plays the model; a model
// whose container sets SAGEMAKER_EMULATOR_RESPONSE answers with that fixed text, and one that sets
// SAGEMAKER_EMULATOR_UPSTREAM=http://host:port is a real inference container on this machine that
// the emulator forwards invocations to (the SageMaker contract: POST /invocations, GET /ping).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

inline constexpr const char* kUpstreamVariable = "SAGEMAKER_EMULATOR_UPSTREAM";
inline constexpr const char* kFixedResponseVariable = "SAGEMAKER_EMULATOR_RESPONSE";

// Parses `http://host[:port][/]`; nullopt for anything else (other schemes, paths, credentials).
std::optional<ContainerAddress> ParseContainerUrl(std::string_view url);

// The environment of a model's first container, as stored by CreateModel; empty when the model
// or the environment is missing.
nlohmann::json ModelEnvironment(const Context& ctx, const std::string& model_name);

// Refuses a CreateModel container whose emulator variables are malformed.
domain::Status CheckEmulatorVariables(const nlohmann::json& container);

// The real container behind a model, if it names one.
std::optional<ContainerAddress> UpstreamOf(const Context& ctx, const std::string& model_name);
// The same, from a model environment already read.
std::optional<ContainerAddress> UpstreamIn(const nlohmann::json& environment);

// What became of an invocation forwarded to a real container: the plain facts the runtime's
// answer is composed from.
struct ContainerAnswer {
  std::string endpoint_name;
  std::string variant;
  std::string account;  // the caller's, which the endpoint belongs to
  std::string region;
  ContainerAddress address;
  bool reached = false;    // false: no answer at all, and `failure` says why
  bool timed_out = false;  // no answer within the invocation timeout
  std::string failure;
  int status = 0;    // the container's HTTP status, when reached
  std::string body;  // the container's answer, when reached
};

// The ModelError (424) sagemaker-runtime answers with when a container did not answer with 2xx,
// in the service's wording: "Received client error (4xx) ..." or "Received server error (5xx) ...
// from primary with message ..." with the container's status, body and log stream as details; a
// timeout as a server error with status 0; no answer at all naming the container's address.
// REQUIRES: not (reached, not timed out and 2xx), which is passed on as the container gave it.
domain::AwsError ContainerError(const ContainerAnswer& answer);

// The ModelError (424) for a container's 2xx answer that the runtime cannot pass on verbatim:
// `unfit` names each header outside its shape in the runtime model (CheckResponse's wording), such
// as an X-Amzn-SageMaker-Custom-Attributes of more than 1,024 characters.
domain::AwsError UnfitContainerAnswer(const ContainerAnswer& answer,
                                      const std::vector<std::string>& unfit);

}  // namespace smemu::ops
