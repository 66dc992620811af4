// Tags as requests carry them: the Tags list of Create* and AddTags. One home for reading them and
// for the rule that applies wherever they arrive.
#pragma once

#include <nlohmann/json.hpp>

#include "domain/aws_error.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// The request's Tags as (key, value) pairs, in order.
store::Tags ReadTags(const nlohmann::json& input);

// Refuses a request whose Tags use the reserved "aws:" prefix, as AWS refuses it on every
// operation that takes tags (Create* as well as AddTags).
domain::Status CheckRequestTags(const nlohmann::json& input);

}  // namespace smemu::ops
