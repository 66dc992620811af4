// restJson1 front end for sagemaker-runtime: POST /endpoints/{EndpointName}/invocations.
#include <nlohmann/json.hpp>
#include <string>

#include "apimodel/validator.hpp"
#include "ops/containers.hpp"
#include "protocol/event_stream.hpp"
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

constexpr std::string_view kStreamOperation = "InvokeEndpointWithResponseStream";

// The value of the header member `name` of the request's validated members, or "".
std::string MemberOr(const nlohmann::json& members, const char* name) {
  const auto it = members.find(name);
  return it != members.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// A streamed answer's body: the answer in parts (PartsOf), each a PayloadPart event.
std::string StreamedBody(std::string_view answer) {
  std::string body;
  for (const std::string_view part : PartsOf(answer)) {
    body += EventOf("PayloadPart", "application/octet-stream", part);
  }
  return body;
}

// The headers of a successful answer. A streamed one is an event stream; the model's content type
// goes in X-Amzn-SageMaker-Content-Type.
std::vector<std::pair<std::string, std::string>> AnswerHeaders(bool streamed,
                                                               const std::string& content_type,
                                                               const std::string& request_id,
                                                               const std::string& variant) {
  if (!streamed) {
    return {{"Content-Type", content_type},
            {"x-amzn-RequestId", request_id},
            {"x-Amzn-Invoked-Production-Variant", variant}};
  }
  return {{"Content-Type", "application/vnd.amazon.eventstream"},
          {"X-Amzn-SageMaker-Content-Type", content_type},
          {"x-amzn-RequestId", request_id},
          {"x-Amzn-Invoked-Production-Variant", variant}};
}

// The request a container receives: its contract's POST /invocations with the caller's body and
// the headers SageMaker passes on.
HttpRequest ContainerRequest(const HttpRequest& request, const ops::InvokeRequest& invoke) {
  HttpRequest to_container{"POST", "/invocations", {}, request.body};
  if (!invoke.content_type.empty())
    to_container.headers.emplace_back("Content-Type", invoke.content_type);
  if (!invoke.accept.empty()) to_container.headers.emplace_back("Accept", invoke.accept);
  for (const char* name : {"X-Amzn-SageMaker-Custom-Attributes", "X-Amzn-SageMaker-Inference-Id"}) {
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
  const bool streamed = outcome.operation == kStreamOperation;
  HttpResponse response;
  response.status = 200;
  response.headers =
      AnswerHeaders(streamed, content_type ? *content_type : "application/octet-stream",
                    outcome.request_id, forward.variant);
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
  response.body = streamed ? StreamedBody(answer.body) : std::move(answer.body);
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

  // Validate the members the model places in the path and headers. The two operations name some
  // headers differently (Accept is X-Amzn-SageMaker-Accept when streamed): the model says which.
  nlohmann::json members = {{"EndpointName", *endpoint_name}, {"Body", ""}};
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
  const bool streamed = outcome.operation == kStreamOperation;
  ops::InvokeRequest invoke{*endpoint_name,
                            request.body,
                            MemberOr(members, "ContentType"),
                            MemberOr(members, "Accept"),
                            MemberOr(members, "CustomAttributes"),
                            MemberOr(members, "TargetVariant")};
  invoke.operation = outcome.operation;
  auto output = emulator_.InvokeEndpoint(invoke, caller);
  if (!output) return fail(output.error());
  if (output->forward_to) {
    // The answer comes from the container; Handle() sends this on and renders what comes back.
    Forward forward{output->forward_to->host, output->forward_to->port,
                    ContainerRequest(request, invoke), invoke.endpoint_name,
                    output->invoked_variant};
    outcome.forward = std::move(forward);
    return HttpResponse{};
  }
  HttpResponse response;
  response.status = spec->success_code;
  response.body = streamed ? StreamedBody(output->body) : std::move(output->body);
  response.headers =
      AnswerHeaders(streamed, output->content_type, outcome.request_id, output->invoked_variant);
  if (!output->custom_attributes.empty()) {
    response.headers.emplace_back("X-Amzn-SageMaker-Custom-Attributes", output->custom_attributes);
  }
  return response;
}

}  // namespace smemu::protocol
