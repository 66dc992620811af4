// Tags on a resource as the domain sees them: the per-resource limit and the key prefix AWS keeps
// for itself. Plain data and pure functions; no I/O.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "domain/aws_error.hpp"

namespace smemu::domain {

// At most this many tags on one resource after an AddTags (the model's TagList max, and AWS's
// documented per-resource limit).
inline constexpr std::size_t kMaxTagsPerResource = 50;

// (key, value) pairs in the order given.
using TagList = std::vector<std::pair<std::string, std::string>>;

// True when `key` starts with "aws:" in any letter case: AWS reserves that prefix for the tags it
// sets itself (CloudFormation's aws:cloudformation:stack-name, ...).
bool IsReservedTagKey(std::string_view key);

// Refuses the first key of `keys` with the reserved prefix (ValidationException naming it).
Status CheckNoReservedKeys(const std::vector<std::string>& keys);

// How many tags a resource holding `existing_keys` holds once `added` is applied: a key it already
// has, or one repeated in `added`, is overwritten, not counted again.
std::size_t CountAfterAdding(const std::vector<std::string>& existing_keys, const TagList& added);

// Refuses a resource that would hold more than kMaxTagsPerResource tags.
Status CheckTagCount(std::size_t count);

}  // namespace smemu::domain
