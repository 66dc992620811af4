// restJson1 front end for sagemaker-runtime: POST /endpoints/{EndpointName}/invocations.
#include <nlohmann/json.hpp>
#include <string>

#include "apimodel/validator.hpp"
#include "ops/containers.hpp"
#include "protocol/percent_encoding.hpp"
#include "protocol/router_internal.hpp"

namespace smemu::protocol {
namespace {

// The runtime model names its invalid-input error ValidationError, not ValidationException.
domain::AwsError AsRuntimeError(domain::AwsError error) {
  if (error.code == domain::ErrorCode::kValidationException) {
    error.code = domain::ErrorCode::kValidationError;
  }
  return error;
}

std::string HeaderOr(const HttpRequest& request, std::string_view name) {
  const std::string* value = request.Header(name);
  return value == nullptr ? std::string() : *value;
}

// The request a container receives: its contract's POST /invocations with the caller's body and
// the headers SageMaker passes on.
HttpRequest ContainerRequest(const HttpRequest& request) {
  HttpRequest to_container{"POST", "/invocations", {}, request.body};
  for (const char* name : {"Content-Type", "Accept", "X-Amzn-SageMaker-Custom-Attributes",
                           "X-Amzn-SageMaker-Inference-Id"}) {
    if (const std::string* value = request.Header(name)) {
      to_container.headers.emplace_back(name, *value);
    }
  }
  return to_container;
}

}  // namespace

HttpResponse Router::AnswerFromContainer(const Outcome& outcome, const Forward& forward,
                                         UpstreamReply reply) const {
  ops::ContainerAnswer answer{forward.endpoint_name,
                              forward.variant,
                              outcome.account,
                              outcome.region,
                              {forward.host, forward.port},
                              reply.reached,
                              reply.timed_out,
                              std::move(reply.failure),
                              reply.status,
                              std::move(reply.body)};
  if (!answer.reached || answer.timed_out || answer.status < 200 || answer.status >= 300) {
    return RenderError(ops::ContainerError(answer), WireProtocol::kRestJson1, outcome.request_id);
  }
  const std::string* content_type = FindHeader(reply.headers, "Content-Type");
  HttpResponse response;
  response.status = 200;
  response.headers = {{"Content-Type", content_type ? *content_type : "application/octet-stream"},
                      {"x-amzn-RequestId", outcome.request_id},
                      {"x-Amzn-Invoked-Production-Variant", forward.variant}};
  if (const std::string* attributes =
          FindHeader(reply.headers, "X-Amzn-SageMaker-Custom-Attributes")) {
    response.headers.emplace_back("X-Amzn-SageMaker-Custom-Attributes", *attributes);
  }
  // What a container sends back is passed on verbatim, so it must fit the runtime model's output
  // (Content-Type and Custom-Attributes: at most 1,024 US-ASCII characters). What does not is the
  // model's failure, not the caller's: a ModelError naming the header, rather than a value cut
  // short that a client would take for the container's.
  const apimodel::Operation* invoke = runtime_.FindOperation(outcome.operation);
  if (invoke != nullptr && invoke->output != nullptr) {
    const std::vector<std::string> unfit =
        apimodel::CheckResponse(*invoke->output, HeaderMembers(*invoke, response.headers));
    if (!unfit.empty()) {
      return RenderError(ops::UnfitContainerAnswer(answer, unfit), WireProtocol::kRestJson1,
                         outcome.request_id);
    }
  }
  response.body = std::move(answer.body);
  return response;
}

HttpResponse Router::HandleRuntime(const HttpRequest& request, Outcome& outcome) const {
  outcome.protocol = WireProtocol::kRestJson1;
  auto fail = [&](const domain::AwsError& error) {
    return RenderError(WithinModel(AsRuntimeError(error), runtime_), WireProtocol::kRestJson1,
                       outcome.request_id);
  };
  // /endpoints/{EndpointName}/{action}
  const std::string_view rest = request.Path().substr(kRuntimePrefix.size());
  const size_t slash = rest.find('/');
  const std::string_view action =
      slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
  outcome.operation = action == "invocations"                   ? "InvokeEndpoint"
                      : action == "async-invocations"           ? "InvokeEndpointAsync"
                      : action == "invocations-response-stream" ? "InvokeEndpointWithResponseStream"
                                                                : "-";
  const apimodel::Operation* spec = runtime_.FindOperation(outcome.operation);
  if (spec == nullptr) {
    return fail({domain::ErrorCode::kUnknownOperationException,
                 "No sagemaker-runtime operation is served at " + domain::Excerpt(request.Path()) +
                     " by sagemaker-emulator.",
                 outcome.operation == "-" ? 404 : 400});
  }
  if (request.method != spec->http_method) {
    HttpResponse response = fail(domain::MethodNotAllowedException(
        outcome.operation + " is served with " + spec->http_method + ", not " +
        domain::Excerpt(request.method) + "."));
    response.headers.emplace_back("Allow", spec->http_method);
    return response;
  }
  ops::Caller caller;
  if (auto refused = AdmitCaller(request, outcome, fail, caller)) return std::move(*refused);

  const auto endpoint_name = PercentDecode(rest.substr(0, slash));
  if (!endpoint_name) return fail(domain::ValidationException("The endpoint name is not valid."));
  if (auto injected = InjectedFault(outcome, *endpoint_name)) return fail(*injected);
  ops::InvokeRequest invoke{*endpoint_name,
                            request.body,
                            HeaderOr(request, "Content-Type"),
                            HeaderOr(request, "Accept"),
                            HeaderOr(request, "X-Amzn-SageMaker-Custom-Attributes"),
                            HeaderOr(request, "X-Amzn-SageMaker-Target-Variant")};

  // Validate the members the model places in the path and headers.
  nlohmann::json members = {{"EndpointName", invoke.endpoint_name}, {"Body", ""}};
  for (const apimodel::Member& member : spec->input->members) {
    if (member.location == "header") {
      if (const std::string* value = request.Header(member.location_name)) {
        members[member.name] = *value;
      }
    }
  }
  if (auto valid = apimodel::ValidateRequest(*spec->input, members); !valid) {
    return fail(valid.error());
  }
  auto output = emulator_.InvokeEndpoint(invoke, caller);
  if (!output) return fail(output.error());
  if (output->forward_to) {
    // The answer comes from the container; Handle() sends this on and renders what comes back.
    Forward forward{output->forward_to->host, output->forward_to->port, ContainerRequest(request),
                    invoke.endpoint_name, output->invoked_variant};
    outcome.forward = std::move(forward);
    return HttpResponse{};
  }
  HttpResponse response;
  response.status = spec->success_code;
  response.body = std::move(output->body);
  response.headers = {{"Content-Type", output->content_type},
                      {"x-amzn-RequestId", outcome.request_id},
                      {"x-Amzn-Invoked-Production-Variant", output->invoked_variant}};
  if (!output->custom_attributes.empty()) {
    response.headers.emplace_back("X-Amzn-SageMaker-Custom-Attributes", output->custom_attributes);
  }
  return response;
}

}  // namespace smemu::protocol
