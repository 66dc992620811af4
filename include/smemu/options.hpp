// ServerOptions: everything the server is started with. Defaults are the command line's defaults.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "smemu/clock.hpp"

namespace smemu {

// How long a training plan or extension purchase stays Pending on the virtual clock before its
// payment completes. "When created, the plan initially enters a Pending state and remains there
// until the reservation process is complete" (Reserve the best training plan); AWS gives no
// figure, so a short one: long enough to be seen, short against the 5 minutes a payment must
// complete before the plan starts.
inline constexpr std::chrono::milliseconds kDefaultPlanPaymentDelay{30'000};

// Who may use the admin API (/_emulator/) when there is no token (--admin-from).
enum class AdminPeers {
  kLoopback,       // callers on this machine's loopback only
  kLocalNetworks,  // also callers on a network of one of this machine's interfaces: in a container,
                   // the host through a published port and the containers beside it
  kAnywhere,       // every caller that can reach the port
};

struct ServerOptions {
  std::string host = "127.0.0.1";
  std::string admin_token;  // when set, /_emulator/ (except health) requires it, from any caller
  AdminPeers admin_from = AdminPeers::kLoopback;  // without a token: who may use /_emulator/
  unsigned short port = 4577;                     // 0 picks a free port; Server::Start() returns it
  std::string db_path = "sagemaker-emulator.db";  // ":memory:" keeps nothing
  std::string account_id = "000000000000";        // when the access key id is not 12 digits
  std::string region = "us-east-1";               // when the request carries no credential scope
  unsigned threads = 0;                           // 0: one per CPU core
  std::optional<TimePoint> clock_start;      // nullopt: now, or the clock saved in the database
  bool frozen_clock = false;                 // the virtual clock does not run by itself
  std::optional<std::string> capacity_path;  // nullopt: the built-in capacity configuration
  // Account service quotas to start with (JSON, schemas/quotas.schema.json); nullopt: none.
  std::optional<std::string> quotas_path;
  // Fault rules to start with (JSON, schemas/faults.schema.json), kept by a reset; nullopt: none.
  std::optional<std::string> faults_path;
  // AWS's request rates: "aws" (the built-in table) or a JSON file per
  // schemas/rate-limits.schema.json; nullopt: no request is throttled for its rate.
  std::optional<std::string> rate_limits;
  // A scenario (JSON list of API calls) applied at start when the database holds no resources.
  std::optional<std::string> init_path;
  // Strict authentication: a JSON file of access keys; every AWS request must then carry a valid
  // SigV4 signature by one of them. nullopt: any credentials are accepted, signatures unchecked.
  std::optional<std::string> credentials_path;
  // Every answer to an AWS request is checked against the operation's output or error shapes in the
  // model; one that departs from them becomes a 500 InternalFailure naming each violation (and an
  // error in the log). For test suites: it turns every call into a conformance check.
  bool check_responses = false;
  std::chrono::milliseconds provisioning_delay{0};  // Creating -> InService, Deleting -> gone
  std::chrono::milliseconds plan_payment_delay = kDefaultPlanPaymentDelay;  // Pending -> paid
  std::uint64_t routing_seed = 0;  // seeds the traffic split between weighted variants
  // Real model containers (SAGEMAKER_EMULATOR_UPSTREAM): the whole invocation, and the GET /ping
  // health check made when an endpoint on one is provisioned.
  std::chrono::milliseconds container_timeout{60'000};
  std::chrono::milliseconds ping_timeout{2'000};
  std::size_t max_body_bytes = 1024 * 1024;                 // control plane and admin requests
  std::size_t max_invocation_body_bytes = 6 * 1024 * 1024;  // InvokeEndpoint payloads
  std::size_t max_header_bytes = 16 * 1024;
  std::chrono::milliseconds read_timeout{30'000};   // to receive one request once it has begun
  std::chrono::milliseconds idle_timeout{120'000};  // keep-alive connections with no request
  // Open connections at most (0: 10,000, or fewer under a lower descriptor limit); see
  // http::TransportLimits::max_connections.
  std::size_t max_connections = 0;
};

}  // namespace smemu
