// Pages of a resource's tags for ListTags, continued by an opaque token that carries the place of
// the last tag shown (its position, with its key as a tiebreak). Kept apart from the tag rules so
// that it can move onto the shared listing engine.
#pragma once

#include <string>
#include <vector>

#include "domain/aws_error.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

struct TagPage {
  std::vector<store::PositionedTag> tags;
  std::string next_token;  // empty on the last page
};

// The page of at most `max_results` tags of `ordered` (sorted by position, then key) that follows
// the place `token` names, or the first page for an empty token. A tag removed since the token was
// made does not stop the listing: it continues after that place. A token that is not one of ours
// is refused with the ValidationException the List* operations use. A `max_results` below 1
// counts as 1.
domain::Result<TagPage> PageOfTags(const std::vector<store::PositionedTag>& ordered,
                                   int max_results, const std::string& token);

// The token that continues after `last` (exposed for tests).
std::string TagPageToken(const store::PositionedTag& last);

}  // namespace smemu::ops
