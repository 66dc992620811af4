// Router: the protocol layer's entry point, a pure function from HttpRequest to HttpResponse.
//   POST /                                   awsJson1_1 control plane (X-Amz-Target: SageMaker.Op)
//   POST /endpoints/{EndpointName}/...       restJson1 sagemaker-runtime
//   /_emulator/...                           the emulator's own admin API (JSON)
// It reads the caller from the SigV4 credential scope (with strict authentication, from a verified
// signature), validates input against the service model, calls the operation layer, renders
// results and errors, and logs one line per request.
// Thread-safe: its only mutable state, the request metrics, synchronises itself.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "apimodel/service_model.hpp"
#include "ops/admin_views.hpp"
#include "ops/emulator.hpp"
#include "protocol/http_types.hpp"
#include "protocol/metrics.hpp"
#include "protocol/rate_limits.hpp"
#include "protocol/sigv4.hpp"
#include "smemu/clock.hpp"
#include "smemu/options.hpp"

namespace smemu::protocol {

struct RouterConfig {
  std::string default_account = "000000000000";
  std::string default_region = "us-east-1";
  std::size_t control_plane_body_limit = 1024 * 1024;  // 1 MiB
  std::size_t runtime_body_limit = 6 * 1024 * 1024;    // 6 MiB, the model's BodyBlob maximum
  int max_json_depth = 64;                             // deeper request bodies are refused
  // The admin API's token (header X-Emulator-Admin-Token or "Authorization: Bearer <token>").
  // With one, only its holders get in, from anywhere. Without one, `admin_peers` decides by the
  // caller's address (HttpRequest::peer), which `peer_scope` places; a caller in the same process
  // (empty peer) always gets in. A caller signing as an AWS account then sees only that account's
  // part of the capacity view.
  std::string admin_token;
  AdminPeers admin_peers = AdminPeers::kLoopback;
  // Where a peer address is (http::ScopeOf in the server). Empty: every peer is kElsewhere.
  std::function<PeerScope(const std::string& peer)> peer_scope;
  // Carries invocations to real model containers; when empty they fail with a ModelError.
  UpstreamSender upstream;
  // Strict authentication (--credentials): every AWS request (not the admin API) must carry a
  // valid SigV4 signature by one of the verifier's access keys, whose account it then acts in.
  // nullptr: signatures are not checked.
  std::shared_ptr<const SigV4Verifier> verifier;
  // --check-responses: every answer to an AWS request (not the admin API) is checked against the
  // operation's output or error shapes (apimodel::CheckResponse); one that departs from them is
  // replaced by a 500 InternalFailure naming each violation, and logged at error level.
  bool check_responses = false;
  // What request latencies (the log line's latency_ms, the metrics' histogram) are measured on;
  // it must outlive the Router. nullptr: the machine's steady clock.
  const MonotonicClock* monotonic_clock = nullptr;
  // Holds each answer until everything committed before it is on disk, then calls `released`
  // (`durable` false: the sync failed). app/ wires in the group committer when the store defers
  // its syncs (store::GroupCommitter). Empty: the store syncs each commit itself, so answers go
  // at once.
  std::function<void(std::function<void(bool durable)> released)> when_durable;
  // Runs `then` after `delay` of real time without holding the calling thread (the server: an
  // Asio timer), for fault rules that add latency. Empty: the calling thread sleeps.
  std::function<void(Millis delay, std::function<void()> then)> after;
  // --rate-limits: AWS's request rates, per account, region and operation, on monotonic_clock.
  // nullptr: no request is throttled for its rate.
  std::shared_ptr<RateLimiter> rate_limiter;
};

class Router {
 public:
  // All references must outlive the Router.
  Router(ops::Emulator& emulator, const apimodel::ServiceModel& control_plane,
         const apimodel::ServiceModel& runtime, RouterConfig config);

  // Answers through `reply`: at once, or for an invocation forwarded to a real model container,
  // when the container has answered (on whichever thread the UpstreamSender calls back on).
  void Handle(HttpRequest request, Reply reply) const;
  // The same, waiting for the answer (tests; a caller that may block).
  HttpResponse Handle(const HttpRequest& request) const;

  // The largest body accepted for a request to `target`; the transport enforces it while reading.
  std::size_t BodyLimitFor(std::string_view target) const;

  // Answers for requests the transport refuses before they reach Handle() (size, framing, time).
  HttpResponse FramingError(int status, const std::string& message) const;

 private:
  struct Outcome;
  struct Forward;
  enum class AdminAccess { kFull, kOwnAccount, kDenied };
  // `token_in_query`: the token may also come as ?token= (the dashboard page a browser opens).
  AdminAccess AccessOf(const HttpRequest& request, bool token_in_query = false) const;
  // Without a token: whether --admin-from lets the request's peer in.
  bool PeerMayAdminister(const std::string& peer) const;
  // Why a request was refused the admin API.
  std::string AdminRefusal(const HttpRequest& request) const;
  HttpResponse Dispatch(const HttpRequest& request, Outcome& outcome) const;
  HttpResponse AnswerFromContainer(const Outcome& outcome, const Forward& forward,
                                   UpstreamReply reply) const;
  // Sends the answer once what it reports is durable, logging it then.
  void Answer(Outcome outcome, SteadyTime started, HttpResponse response, const Reply& reply) const;
  // --check-responses: replaces a response that departs from the model with a 500 InternalFailure
  // naming the departures.
  void CheckAnswer(const Outcome& outcome, HttpResponse& response) const;
  // Logs the request's line and records it in the metrics.
  void Log(const Outcome& outcome, SteadyTime started, int status) const;
  // The operation as a metrics label: from a bounded set, so clients cannot grow the series.
  std::string MetricLabel(const Outcome& outcome) const;
  HttpResponse HandleAwsJson(const HttpRequest& request, Outcome& outcome) const;
  HttpResponse HandleRuntime(const HttpRequest& request, Outcome& outcome) const;
  HttpResponse HandleAdmin(const HttpRequest& request, Outcome& outcome) const;
  // The admin API (admin_api.cpp): a table of routes, one member per route and method.
  struct AdminCall;
  struct AdminRoute;
  // The route at `path`; nullptr when there is none.
  static const AdminRoute* FindAdminRoute(std::string_view path);
  HttpResponse AdminHealth(const AdminCall& call) const;
  HttpResponse AdminClock(const AdminCall& call) const;
  HttpResponse AdminChangeClock(const AdminCall& call) const;
  HttpResponse AdminCapacity(const AdminCall& call) const;
  HttpResponse AdminChangeCapacity(const AdminCall& call) const;
  HttpResponse AdminMetrics(const AdminCall& call) const;
  HttpResponse AdminPage(const AdminCall& call) const;
  HttpResponse AdminState(const AdminCall& call) const;
  HttpResponse AdminReset(const AdminCall& call) const;
  HttpResponse AdminQuotas(const AdminCall& call) const;
  HttpResponse AdminChangeQuotas(const AdminCall& call) const;
  HttpResponse AdminCosts(const AdminCall& call) const;
  HttpResponse AdminReport(const AdminCall& call) const;
  HttpResponse AdminFaults(const AdminCall& call) const;
  HttpResponse AdminAddFaults(const AdminCall& call) const;
  HttpResponse AdminRemoveFaults(const AdminCall& call) const;
  // The caller a request claims to be, from its SigV4 credential scope; verifies nothing.
  ops::Caller CallerOf(const HttpRequest& request, const std::string& request_id) const;
  // The caller of an AWS request: with strict authentication, the one its signature proves (or
  // the AWS error refusing it, for outcome.protocol); otherwise CallerOf().
  domain::Result<ops::Caller> Authenticate(const HttpRequest& request,
                                           const Outcome& outcome) const;
  HttpResponse RefuseAuthentication(const domain::AwsError& error, const Outcome& outcome) const;
  // The prologue of every AWS request once its operation is known, on both protocols: the caller
  // (Authenticate), recorded in `outcome` for the log line, the rate limits and the fault rules,
  // then its rate (Throttled). nullopt when the request goes on, with its caller in `caller`; else
  // the answer refusing it: RefuseAuthentication()'s, or the throttling error as `fail` renders it.
  std::optional<HttpResponse> AdmitCaller(
      const HttpRequest& request, Outcome& outcome,
      const std::function<HttpResponse(const domain::AwsError&)>& fail, ops::Caller& caller) const;
  // Tries the request fault rules on the request `outcome` describes, naming `resource`: sets the
  // latency to add, and returns the error to answer instead of serving it, if one fires.
  std::optional<domain::AwsError> InjectedFault(Outcome& outcome, std::string_view resource) const;
  // With --rate-limits: AWS's refusal when the request's bucket is empty, else nullopt.
  std::optional<domain::AwsError> Throttled(const Outcome& outcome) const;
  // `reply`, held back by `delay` when there is one.
  Reply Delayed(Reply reply, Millis delay) const;

 public:
  // Reads, checks (CompleteFaultRules) and adds the rules of a fault document (see
  // ops/fault_document.hpp); returns them as added, with their ids.
  domain::Result<std::vector<domain::FaultRule>> AddFaultRules(const nlohmann::json& document,
                                                               ops::FaultSource source) const;

 private:
  ops::Emulator& emulator_;
  // The admin API's views of the state; they keep the dashboard's snapshot version.
  mutable ops::AdminViews admin_views_{emulator_};
  const apimodel::ServiceModel& control_plane_;
  const apimodel::ServiceModel& runtime_;
  const RouterConfig config_;
  const MonotonicClock& monotonic_clock_;
  std::unique_ptr<RequestMetrics> metrics_ = std::make_unique<RequestMetrics>();
};

// A fresh random request id (UUID v4 text).
std::string NewRequestId();

}  // namespace smemu::protocol
