// sagemaker-runtime InvokeEndpoint: routes to a variant of an InService endpoint and answers as the
// variant's model would. A model answers with an echo of the request body, or with the fixed text
// in its container's SAGEMAKER_EMULATOR_RESPONSE environment variable.
#include "ops/handlers.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

domain::AwsError RuntimeValidation(std::string message) {
  return {"ValidationError", std::move(message), 400};
}

// The environment of the model's (first) container.
json ModelEnvironment(const Context& ctx, const std::string& model_name) {
  const auto model = ctx.store.Get({ctx.caller.account, ctx.caller.region, "model", model_name});
  if (!model) return json::object();
  const json doc = json::parse(model->doc);
  if (doc.contains("PrimaryContainer")) {
    return doc["PrimaryContainer"].value("Environment", json::object());
  }
  if (doc.contains("Containers") && !doc["Containers"].empty()) {
    return doc["Containers"][0].value("Environment", json::object());
  }
  return json::object();
}

}  // namespace

domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, Context& ctx) {
  const auto row =
      ctx.store.Get({ctx.caller.account, ctx.caller.region, "endpoint", request.endpoint_name});
  if (!row) {
    return RuntimeValidation("Endpoint " + request.endpoint_name + " of account " +
                             ctx.caller.account + " not found.");
  }
  if (row->status != "InService") {
    return RuntimeValidation("Endpoint " + request.endpoint_name + " is not in service (" +
                             row->status + ").");
  }
  const json doc = json::parse(row->doc);
  const json* chosen = nullptr;
  for (const json& variant : doc.at("Variants")) {
    const std::string name = variant.at("VariantName");
    if (!request.target_variant.empty() ? name == request.target_variant
                                        : variant.value("Weight", 1.0) > 0) {
      chosen = &variant;
      break;
    }
  }
  if (chosen == nullptr) {
    return RuntimeValidation("The variant " + request.target_variant + " is not part of endpoint " +
                             request.endpoint_name + ".");
  }
  if (chosen->contains("CapacityReservationConfig")) {
    const std::string plan_arn =
        (*chosen)["CapacityReservationConfig"].value("MlReservationArn", "");
    const auto plan = PlanByReservationArn(ctx, plan_arn);
    if (!plan || domain::PlanStatusAt(plan->window, ctx.now) == "Expired") {
      return domain::AwsError{
          "ModelError",
          "Endpoint capacity reservation has expired. Please update endpoint configuration.", 424};
    }
  }
  InvokeResponse response;
  response.invoked_variant = (*chosen)["VariantName"];
  response.custom_attributes = request.custom_attributes;
  const json environment = ModelEnvironment(ctx, chosen->value("ModelName", ""));
  if (environment.contains("SAGEMAKER_EMULATOR_RESPONSE")) {
    response.body = environment["SAGEMAKER_EMULATOR_RESPONSE"];
    response.content_type = request.accept.empty() ? "application/json" : request.accept;
  } else {
    response.body = request.body;
    response.content_type =
        request.content_type.empty() ? "application/octet-stream" : request.content_type;
  }
  return response;
}

}  // namespace smemu::ops
