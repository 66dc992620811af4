// The model containers behind endpoints. By default the emulator itself plays the model; a model
// whose container sets SAGEMAKER_EMULATOR_RESPONSE answers with that fixed text, and one that sets
// SAGEMAKER_EMULATOR_UPSTREAM=http://host:port is a real inference container on this machine that
// the emulator forwards invocations to (the SageMaker contract: POST /invocations, GET /ping).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace smemu::ops
