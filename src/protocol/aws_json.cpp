// awsJson1_1 front end: POST / with X-Amz-Target: SageMaker.<Operation> and a JSON body.
#include <nlohmann/json.hpp>

#include "apimodel/validator.hpp"
#include "protocol/fault_rules.hpp"
#include "protocol/router_internal.hpp"

namespace smemu::protocol {

domain::Result<nlohmann::json> ParseJsonObject(const std::string& body, int max_depth) {
  if (body.empty()) return nlohmann::json::object();
  bool too_deep = false;
  // The callback sees every nesting level; deeper documents are refused before any recursion in
  // later stages (validation, rendering) could exhaust the stack.
  auto limit_depth = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > max_depth) too_deep = true;
    return !too_deep;
  };
  nlohmann::json parsed = nlohmann::json::parse(body, limit_depth, /*allow_exceptions=*/false);
  if (too_deep) {
    return domain::SerializationException("The request body is nested more than " +
                                          std::to_string(max_depth) + " levels deep.");
  }
  if (parsed.is_discarded()) {
    return domain::SerializationException("The request body is not valid JSON.");
  }
  if (!parsed.is_object()) {
    return domain::SerializationException("The request body must be a JSON object.");
  }
  return parsed;
}

HttpResponse Router::HandleAwsJson(const HttpRequest& request, Outcome& outcome) const {
  outcome.protocol = WireProtocol::kAwsJson11;
  auto fail = [&](const domain::AwsError& error) {
    return RenderError(WithinModel(error, control_plane_), WireProtocol::kAwsJson11,
                       outcome.request_id);
  };
  if (request.method != "POST") {
    HttpResponse response = fail(domain::MethodNotAllowedException(
        "The control plane is served at POST /, not " + domain::Excerpt(request.method) + " /."));
    response.headers.emplace_back("Allow", "POST");
    return response;
  }
  const std::string* target = request.Header("X-Amz-Target");
  if (target == nullptr || target->empty()) {
    return fail(domain::UnknownOperationException(
        "The request has no X-Amz-Target header; it must name the operation, e.g. "
        "SageMaker.ListModels."));
  }
  const std::string prefix = control_plane_.target_prefix() + ".";
  const std::string operation =
      target->rfind(prefix, 0) == 0 ? target->substr(prefix.size()) : std::string();
  outcome.operation = operation.empty() ? *target : operation;
  const apimodel::Operation* spec = control_plane_.FindOperation(operation);
  if (spec == nullptr || !emulator_.Emulates(operation)) {
    return fail(domain::UnknownOperationException("The operation " + domain::Excerpt(*target) +
                                                  " is not supported by sagemaker-emulator."));
  }
  ops::Caller caller;
  if (auto refused = AdmitCaller(request, outcome, fail, caller)) return std::move(*refused);

  auto input = ParseJsonObject(request.body, config_.max_json_depth);
  if (!input) return fail(input.error());
  if (auto injected = InjectedFault(outcome, FaultResourceOf(operation, *input))) {
    return fail(*injected);
  }
  if (spec->input != nullptr) {
    if (auto valid = apimodel::ValidateRequest(*spec->input, *input); !valid) {
      return fail(valid.error());
    }
    apimodel::KeepModelledMembers(*spec->input, *input);
  } else {
    *input = nlohmann::json::object();  // the operation takes no input
  }
  auto output = emulator_.Invoke(operation, *input, caller);
  if (!output) return fail(output.error());
  return RenderJson(200, std::move(*output).Text(), WireProtocol::kAwsJson11, outcome.request_id);
}

}  // namespace smemu::protocol
