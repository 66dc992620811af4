#include "protocol/router.hpp"

#include <boost/uuid/random_generator.hpp>
#include <boost/uuid/uuid_io.hpp>
#include <chrono>
#include <cmath>
#include <future>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "apimodel/validator.hpp"
#include "domain/aws_names.hpp"
#include "log/log.hpp"
#include "ops/fault_document.hpp"
#include "protocol/error_writer.hpp"
#include "protocol/fault_rules.hpp"
#include "protocol/router_internal.hpp"
#include "protocol/sigv4.hpp"

namespace smemu::protocol {

namespace {

// A generator per thread, seeded from the kernel's entropy once when the thread first needs it:
// ids differ across threads, processes and restarts, and cost no system call each. (A
// default-constructed engine would start every thread, and every run, on the same sequence.)
std::mt19937_64& RequestIdEngine() {
  thread_local std::mt19937_64 engine = [] {
    std::random_device entropy;
    std::seed_seq seed{entropy(), entropy(), entropy(), entropy(),
                       entropy(), entropy(), entropy(), entropy()};
    return std::mt19937_64(seed);
  }();
  return engine;
}

const MonotonicClock& DefaultMonotonicClock() {
  static const SystemMonotonicClock clock;
  return clock;
}

}  // namespace

nlohmann::json HeaderMembers(const apimodel::Operation& operation, const Headers& headers) {
  nlohmann::json members = nlohmann::json::object();
  if (operation.output == nullptr) return members;
  for (const apimodel::Member& member : operation.output->members) {
    if (member.name == operation.output->payload) {
      // A blob is the body as it is; an event stream's events are framed, so the check sees
      // the stream as a structure with no event of its own (the clients' tests read the events).
      members[member.name] = member.shape->is_event_stream ? nlohmann::json::object() : "";
    } else if (const std::string* value = FindHeader(headers, member.location_name)) {
      members[member.name] = *value;
    }
  }
  return members;
}

domain::AwsError WithinModel(domain::AwsError error, const apimodel::ServiceModel& model) {
  const apimodel::Shape* shape = model.FindShape(domain::WireName(error.code));
  if (shape == nullptr || !shape->is_exception) return error;
  for (const char* name : {"Message", "message"}) {
    const apimodel::Member* member = shape->FindMember(name);
    if (member != nullptr && member->shape->max && *member->shape->max >= 3) {
      error.message =
          domain::Shortened(error.message, static_cast<std::size_t>(*member->shape->max));
      break;
    }
  }
  return error;
}

std::string NewRequestId() {
  thread_local boost::uuids::basic_random_generator<std::mt19937_64> generator(RequestIdEngine());
  return boost::uuids::to_string(generator());
}

Router::Router(ops::Emulator& emulator, const apimodel::ServiceModel& control_plane,
               const apimodel::ServiceModel& runtime, RouterConfig config)
    : emulator_(emulator),
      control_plane_(control_plane),
      runtime_(runtime),
      config_(std::move(config)),
      monotonic_clock_(config_.monotonic_clock ? *config_.monotonic_clock
                                               : DefaultMonotonicClock()) {}

std::size_t Router::BodyLimitFor(std::string_view target) const {
  return target.rfind(kRuntimePrefix, 0) == 0 ? config_.runtime_body_limit
                                              : config_.control_plane_body_limit;
}

ops::Caller Router::CallerOf(const HttpRequest& request, const std::string& request_id) const {
  ops::Caller caller{config_.default_account, config_.default_region, request_id};
  const std::string* authorization = request.Header("Authorization");
  if (authorization == nullptr) return caller;
  if (auto scope = ParseAuthorization(*authorization)) {
    if (domain::IsRegionName(scope->region)) caller.region = scope->region;
    const Credential* known =
        config_.verifier ? config_.verifier->Find(scope->access_key_id) : nullptr;
    if (known != nullptr) {
      caller.account = known->account_id;
    } else if (domain::IsAccountId(scope->access_key_id)) {
      caller.account = scope->access_key_id;
    }
  }
  return caller;
}

domain::Result<ops::Caller> Router::Authenticate(const HttpRequest& request,
                                                 const Outcome& outcome) const {
  if (!config_.verifier) return CallerOf(request, outcome.request_id);
  // AWS refuses with 400 on awsJson1_1 services (SageMaker, DynamoDB, Kinesis) and with 403 on
  // restJson1 ones (the SageMaker runtime, Lambda).
  auto verified =
      config_.verifier->Verify(request, outcome.protocol == WireProtocol::kRestJson1 ? 403 : 400);
  if (!verified) return verified.error();
  return ops::Caller{verified->credential->account_id, verified->scope.region, outcome.request_id};
}

HttpResponse Router::RefuseAuthentication(const domain::AwsError& error,
                                          const Outcome& outcome) const {
  log::Event(spdlog::level::info, "authentication refused",
             {{"request_id", outcome.request_id}, {"error", domain::WireName(error.code)}});
  HttpResponse response = RenderError(error, outcome.protocol, outcome.request_id);
  // As AWS does: SDKs correct their clock skew from the Date of such an answer.
  response.headers.emplace_back("Date", FormatHttpDate(config_.verifier->clock().Now()));
  return response;
}

std::optional<HttpResponse> Router::AdmitCaller(
    const HttpRequest& request, Outcome& outcome,
    const std::function<HttpResponse(const domain::AwsError&)>& fail, ops::Caller& caller) const {
  auto authenticated = Authenticate(request, outcome);
  if (!authenticated) return RefuseAuthentication(authenticated.error(), outcome);
  caller = std::move(*authenticated);
  outcome.account = caller.account;
  outcome.region = caller.region;
  if (auto throttled = Throttled(outcome)) return fail(*throttled);
  return std::nullopt;
}

HttpResponse Router::Dispatch(const HttpRequest& request, Outcome& outcome) const {
  const std::string_view path = request.Path();
  try {
    if (path == "/") return HandleAwsJson(request, outcome);
    if (path.rfind(kRuntimePrefix, 0) == 0) return HandleRuntime(request, outcome);
    if (path.rfind(kAdminPrefix, 0) == 0) return HandleAdmin(request, outcome);
    outcome.operation = "-";
    return RenderError({domain::ErrorCode::kUnknownOperationException,
                        "No operation is served at " + domain::Excerpt(path) + ".", 404},
                       WireProtocol::kRestJson1, outcome.request_id);
  } catch (const std::exception& e) {
    // A defect or a store failure: never let it reach the socket as anything but an AWS error.
    log::Event(spdlog::level::err, "internal error",
               {{"request_id", outcome.request_id}, {"error", e.what()}});
    outcome.forward.reset();
    return RenderError(domain::InternalFailure("An internal error occurred."), outcome.protocol,
                       outcome.request_id);
  }
}

std::optional<domain::AwsError> Router::InjectedFault(Outcome& outcome,
                                                      std::string_view resource) const {
  ops::RequestFaults faults =
      emulator_.faults().ForRequest({outcome.operation, outcome.account, outcome.region, resource});
  outcome.delay = faults.latency;
  if (!faults.latency_rule.empty()) metrics_->RecordFault(faults.latency_rule, outcome.operation);
  if (!faults.error) return std::nullopt;
  metrics_->RecordFault(faults.error_rule, outcome.operation);
  log::Event(spdlog::level::info, "fault rule fired",
             {{"request_id", outcome.request_id},
              {"rule", faults.error_rule},
              {"operation", outcome.operation},
              {"error", domain::WireName(faults.error->code)}});
  return faults.error;
}

std::optional<domain::AwsError> Router::Throttled(const Outcome& outcome) const {
  if (!config_.rate_limiter ||
      config_.rate_limiter->Admit(outcome.operation, outcome.account, outcome.region,
                                  monotonic_clock_.Now())) {
    return std::nullopt;
  }
  metrics_->RecordThrottled(outcome.operation);
  return domain::AwsError{domain::ErrorCode::kThrottlingException, "Rate exceeded", 400};
}

Reply Router::Delayed(Reply reply, Millis delay) const {
  if (delay <= Millis{0}) return reply;
  return [this, reply = std::move(reply), delay](HttpResponse response) {
    auto send = [reply, response = std::move(response)]() mutable { reply(std::move(response)); };
    if (config_.after) {
      config_.after(delay, std::move(send));
    } else {
      std::this_thread::sleep_for(delay);
      send();
    }
  };
}

domain::Result<std::vector<domain::FaultRule>> Router::AddFaultRules(
    const nlohmann::json& document, ops::FaultSource source) const {
  auto rules = ops::ReadFaultRules(document);
  if (!rules) return rules.error();
  if (auto checked = CompleteFaultRules(
          *rules, control_plane_, runtime_,
          [this](const std::string& operation) { return emulator_.Emulates(operation); });
      !checked) {
    return checked.error();
  }
  auto added = emulator_.faults().Add(std::move(*rules), source);
  emulator_.FaultRulesChanged();
  return added;
}

void Router::Handle(HttpRequest request, Reply reply) const {
  const SteadyTime started = monotonic_clock_.Now();
  Outcome outcome;
  outcome.request_id = NewRequestId();
  HttpResponse response = Dispatch(request, outcome);
  reply = Delayed(std::move(reply), outcome.delay);
  if (!outcome.forward) return Answer(std::move(outcome), started, std::move(response), reply);
  Forward forward = std::move(*outcome.forward);
  outcome.forward.reset();
  if (!config_.upstream) {
    response =
        AnswerFromContainer(outcome, forward, {false, false, "no container link", 0, {}, {}});
    return Answer(std::move(outcome), started, std::move(response), reply);
  }
  HttpRequest to_container = std::move(forward.request);
  const std::string host = forward.host;
  const std::string port = forward.port;
  config_.upstream(host, port, std::move(to_container),
                   [this, outcome = std::move(outcome), forward = std::move(forward), started,
                    reply = std::move(reply)](UpstreamReply answer) mutable {
                     HttpResponse answered =
                         AnswerFromContainer(outcome, forward, std::move(answer));
                     Answer(std::move(outcome), started, std::move(answered), reply);
                   });
}

void Router::Answer(Outcome outcome, SteadyTime started, HttpResponse response,
                    const Reply& reply) const {
  // Nothing is acknowledged before it is on disk: not a write, nor what a read saw of another
  // request's write (group commit, see store::GroupCommitter). Usually released at once.
  auto release = [this, outcome = std::move(outcome), started, response = std::move(response),
                  reply](bool durable) mutable {
    if (!durable) {
      response = RenderError(domain::InternalFailure("An internal error occurred."),
                             outcome.protocol, outcome.request_id);
    }
    if (config_.check_responses) CheckAnswer(outcome, response);
    Log(outcome, started, response.status);
    reply(std::move(response));
  };
  if (config_.when_durable) {
    config_.when_durable(std::move(release));
  } else {
    release(true);
  }
}

HttpResponse Router::Handle(const HttpRequest& request) const {
  std::promise<HttpResponse> answered;
  std::future<HttpResponse> response = answered.get_future();
  Handle(request, [&answered](HttpResponse r) { answered.set_value(std::move(r)); });
  return response.get();
}

void Router::CheckAnswer(const Outcome& outcome, HttpResponse& response) const {
  if (outcome.protocol == WireProtocol::kAdmin) return;  // the admin API is not modelled
  const bool runtime = outcome.protocol == WireProtocol::kRestJson1;
  const apimodel::Operation* operation =
      (runtime ? runtime_ : control_plane_).FindOperation(outcome.operation);
  nlohmann::json body;
  if (runtime && response.status < 400 && operation != nullptr && operation->output != nullptr) {
    body = HeaderMembers(*operation, response.headers);
  } else if (response.body.empty()) {
    body = nlohmann::json::object();
  } else {
    body = nlohmann::json::parse(response.body, nullptr, false);
  }
  std::vector<std::string> violations;
  if (body.is_discarded()) {
    violations.push_back("The body is not JSON");
  } else {
    violations = apimodel::CheckResponse(operation, response.status, body);
  }
  if (violations.empty()) return;
  const std::string message = apimodel::DescribeResponseViolations(outcome.operation, violations);
  log::Event(spdlog::level::err, "response check failed",
             {{"request_id", outcome.request_id},
              {"operation", outcome.operation},
              {"status", response.status},
              {"violations", message}});
  response = RenderError(domain::InternalFailure(message), outcome.protocol, outcome.request_id);
}

void Router::Log(const Outcome& outcome, SteadyTime started, int status) const {
  const auto latency = std::chrono::duration<double, std::milli>(monotonic_clock_.Now() - started);
  metrics_->Record(MetricLabel(outcome), status, latency.count() / 1000.0);
  // Checked before the fields are built: at --log-level warn this line costs nothing.
  if (!spdlog::should_log(spdlog::level::info)) return;
  log::Event(spdlog::level::info, "request",
             {{"request_id", outcome.request_id},
              {"operation", outcome.operation},
              {"account", outcome.account},
              {"region", outcome.region},
              {"status", status},
              {"latency_ms", std::round(latency.count() * 1000.0) / 1000.0}});
}

std::string Router::MetricLabel(const Outcome& outcome) const {
  switch (outcome.protocol) {
    case WireProtocol::kAwsJson11:
      return emulator_.Emulates(outcome.operation) ? outcome.operation : "other";
    case WireProtocol::kAdmin:
      return FindAdminRoute(outcome.operation) != nullptr ? outcome.operation : "other";
    case WireProtocol::kRestJson1:
      break;
  }
  return outcome.operation == "-" ? "other" : outcome.operation;  // runtime names are fixed
}

HttpResponse Router::FramingError(int status, const std::string& message) const {
  using domain::ErrorCode;
  const ErrorCode code = status == 413   ? ErrorCode::kRequestEntityTooLargeException
                         : status == 431 ? ErrorCode::kRequestHeaderFieldsTooLargeException
                         : status == 408 ? ErrorCode::kRequestTimeoutException
                                         : ErrorCode::kBadRequestException;
  const std::string request_id = NewRequestId();
  metrics_->Record("refused", status, 0);
  log::Event(spdlog::level::warn, "request refused",
             {{"request_id", request_id}, {"status", status}, {"reason", message}});
  HttpResponse response =
      RenderError({code, message, status}, WireProtocol::kRestJson1, request_id);
  if (config_.check_responses) {
    Outcome outcome;
    outcome.request_id = request_id;
    outcome.protocol = WireProtocol::kRestJson1;
    CheckAnswer(outcome, response);
  }
  response.close_connection = true;
  return response;
}

}  // namespace smemu::protocol
