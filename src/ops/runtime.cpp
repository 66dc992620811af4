// sagemaker-runtime InvokeEndpoint: routes to a variant of an InService endpoint and answers as the
// variant's model would (see ops/containers.hpp): an echo of the request body, a fixed text, or a
// hand-over to a real container that the caller forwards the request to.
#include "domain/resource_kinds.hpp"
#include "domain/time_format.hpp"
#include "ops/arn.hpp"
#include "ops/containers.hpp"
#include "ops/handlers.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

// A well-mixed 64-bit hash step (splitmix64), so that nearby inputs give unrelated draws.
std::uint64_t Mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

std::uint64_t HashText(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;                                            // FNV-1a
  for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;  // bytes
  return hash;
}

// Picks a variant in proportion to the current weights. The draw depends only on the routing seed,
// the endpoint, the clock and the invocation's number, so a run with a frozen clock and the same
// sequence of calls routes every request the same way.
const domain::Variant* VariantByWeight(const std::vector<domain::Variant>& variants,
                                       const std::string& endpoint_arn,
                                       const InvokeRequest& request, const Context& ctx) {
  double total = 0;
  for (const domain::Variant& variant : variants) total += std::max(0.0, variant.weight);
  if (total <= 0) return nullptr;
  const std::uint64_t draw =
      Mix(ctx.hosting.routing_seed ^
          Mix(HashText(endpoint_arn) ^
              Mix(static_cast<std::uint64_t>(ctx.now.time_since_epoch().count()) ^
                  Mix(request.sequence))));
  const double point = static_cast<double>(draw >> 11) * 0x1.0p-53 * total;  // in [0, total)
  double upper = 0;
  const domain::Variant* last_weighted = nullptr;
  for (const domain::Variant& variant : variants) {
    const double weight = std::max(0.0, variant.weight);
    if (weight <= 0) continue;
    last_weighted = &variant;
    upper += weight;
    if (point < upper) return &variant;
  }
  return last_weighted;  // rounding at the top end
}

domain::Result<const domain::Variant*> ChosenVariant(const domain::Endpoint& endpoint,
                                                     const InvokeRequest& request,
                                                     const Context& ctx) {
  const std::vector<domain::Variant>& variants = endpoint.variants;
  if (!request.target_variant.empty()) {
    for (const domain::Variant& variant : variants) {
      if (variant.name == request.target_variant) return &variant;
    }
    return domain::ValidationError("The variant " + domain::Excerpt(request.target_variant) +
                                   " is not part of endpoint " +
                                   domain::Excerpt(request.endpoint_name) + ".");
  }
  const domain::Variant* chosen = VariantByWeight(variants, endpoint.arn, request, ctx);
  if (chosen == nullptr) {
    return domain::ValidationError("Endpoint " + domain::Excerpt(request.endpoint_name) +
                                   " has no variant with a weight above zero; name one with "
                                   "TargetVariant.");
  }
  return chosen;
}

}  // namespace

domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, Context& ctx) {
  const auto record =
      LoadEndpoint(ctx, KeyOf(ctx.caller, domain::ResourceKind::kEndpoint, request.endpoint_name));
  if (!record) {
    return domain::ValidationError("Endpoint " + domain::Excerpt(request.endpoint_name) +
                                   " of account " + domain::Excerpt(ctx.caller.account) +
                                   " not found.");
  }
  const domain::Endpoint& endpoint = record->endpoint;
  if (endpoint.status != domain::EndpointStatus::kInService &&
      endpoint.status != domain::EndpointStatus::kUpdating) {
    return domain::ValidationError("Endpoint " + domain::Excerpt(request.endpoint_name) +
                                   " is not in service (" +
                                   std::string(domain::ToString(endpoint.status)) + ").");
  }
  const auto chosen = ChosenVariant(endpoint, request, ctx);
  if (!chosen) return chosen.error();
  const domain::Variant& variant = **chosen;
  // A model_error fault rule: the answer of a container that failed, or never answered.
  if (const auto fault = ctx.faults.ForLifecycle(
          domain::FaultStage::kInvocation,
          {request.operation, ctx.caller.account, ctx.caller.region, request.endpoint_name})) {
    const auto& model = std::get<domain::ModelFault>(*fault);
    return ContainerError({request.endpoint_name,
                           variant.name,
                           ctx.caller.account,
                           ctx.caller.region,
                           {},
                           !model.timeout,
                           model.timeout,
                           "",
                           model.status,
                           model.body});
  }
  if (variant.reservation) {
    const auto plan = StoreCapacityFacts(ctx).Plan(endpoint.owner, variant.plan_arn());
    if (!plan || plan->StatusAt(ctx.now) == domain::PlanStatus::kExpired) {
      return domain::ModelError(
          "Endpoint capacity reservation has expired. Please update endpoint configuration.");
    }
    // "The endpoint only functions during the reservation window specified in the training
    // plan": between two reserved capacities it has none.
    if (plan->StatusAt(ctx.now) != domain::PlanStatus::kActive) {
      return domain::ModelError("Endpoint capacity reservation is not active until " +
                                domain::FormatIso8601(plan->BlockFrom(ctx.now)->start) +
                                ". Please retry then.");
    }
  }
  InvokeResponse response;
  response.invoked_variant = variant.name;
  response.custom_attributes = request.custom_attributes;
  const std::string model = variant.model_name.value_or("");
  const json environment = ModelEnvironment(ctx, model);
  if (auto upstream = UpstreamIn(environment)) {
    response.forward_to = std::move(upstream);
    return response;
  }
  if (environment.contains(kFixedResponseVariable)) {
    response.body = environment[kFixedResponseVariable];
    response.content_type = request.accept.empty() ? "application/json" : request.accept;
  } else {
    response.body = request.body;
    response.content_type =
        request.content_type.empty() ? "application/octet-stream" : request.content_type;
  }
  return response;
}

}  // namespace smemu::ops
