// Reading the capacity configuration (schema: schemas/capacity.schema.json). A bad file is a
// start-up error whose message names the file and the offending field.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "domain/capacity_pools.hpp"

namespace smemu::config {

// Parses and checks a configuration. `source` names it in error messages.
// Throws std::runtime_error("<source>: <field path>: <problem>").
domain::CapacityConfig ParseCapacityConfig(std::string_view text, const std::string& source);

// The file at `path`, or the built-in default (config/default-capacity.json) when there is none.
domain::CapacityConfig LoadCapacityConfig(const std::optional<std::string>& path);

}  // namespace smemu::config
