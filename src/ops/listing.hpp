// Shared parts of the List* operations: SortBy/SortOrder/MaxResults/NextToken/NameContains/
// CreationTime filters read from the request, and opaque page tokens that continue a listing after
// the last row shown (stable when rows are added or removed between pages).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "domain/aws_error.hpp"
#include "ops/context.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// Builds the store query for a standard SageMaker List* request on `kind`. The request has been
// validated against the model (enums, ranges), so only the token can still be refused.
domain::Result<store::ListQuery> ReadListRequest(const nlohmann::json& input,
                                                 const std::string& kind, const Context& ctx);

// Sets out["NextToken"] when the page is not the last one.
void WriteNextToken(const store::ListQuery& query, const store::ListPage& page,
                    nlohmann::json& out);

// A whole List* operation whose summaries are just name, ARN and creation time (ListModels,
// ListEndpointConfigs): e.g. members {"Models", "ModelName", "ModelArn"}.
struct SimpleListing {
  const char* kind;
  const char* list_member;
  const char* name_member;
  const char* arn_member;
};
domain::Result<nlohmann::json> ListSimple(const nlohmann::json& input, const Context& ctx,
                                          const SimpleListing& listing);

// The request's Tags as (key, value) pairs, in order.
store::Tags ReadTags(const nlohmann::json& input);

}  // namespace smemu::ops
