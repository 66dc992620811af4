// sagemaker-runtime InvokeEndpoint. Endpoints themselves arrive with the endpoints issue; until an
// endpoint exists in the caller's account and region, every invocation gets the real service's
// not-found answer.
#include "ops/handlers.hpp"

namespace smemu::ops {

domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, Context& ctx) {
  const store::ResourceKey key{ctx.caller.account, ctx.caller.region, "endpoint",
                               request.endpoint_name};
  if (!ctx.store.Get(key)) {
    return domain::AwsError{
        "ValidationError",
        "Endpoint " + request.endpoint_name + " of account " + ctx.caller.account + " not found.",
        400};
  }
  return domain::AwsError{"ValidationError",
                          "Endpoint " + request.endpoint_name + " is not in service.", 400};
}

}  // namespace smemu::ops
