// What an operation handler is given: who calls, the time the request is served at, and read-only
// views of the store, the ledger and the holdings. A handler never writes: it states what the
// request changes in `edit` (ops/edit.hpp), and the Emulator applies that (ops/apply.hpp) once the
// handler has answered. Handlers run one at a time under Emulator's request lock.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "domain/aws_error.hpp"
#include "domain/capacity_ledger.hpp"
#include "domain/capacity_pools.hpp"
#include "domain/holdings.hpp"
#include "domain/quotas.hpp"
#include "domain/training_plan.hpp"
#include "ops/answer.hpp"
#include "ops/faults.hpp"
#include "smemu/clock.hpp"
#include "smemu/options.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// The caller as read from the request's SigV4 credential scope (or the server defaults).
struct Caller {
  std::string account;
  std::string region;
  std::string request_id;
};

// Offerings returned by searches, until bought or kOfferingLifetime has passed. In memory only:
// after a restart, search again.
struct RememberedOffering {
  domain::Offering offering;
  std::string account;
  std::string region;
  TimePoint expires;
  std::string extends_plan;  // for an extension offering: the plan's name
};
class OfferingBook {
 public:
  using Map = std::map<std::string, RememberedOffering, std::less<>>;

  // Keeps `offering` under `id` until it expires; a search that finds the same id again renews it.
  void Remember(const std::string& id, RememberedOffering offering);
  // Forgets the offerings that expired at or before `now`. Costs O(log n) per forgotten entry, not
  // a walk over all of them: with a frozen clock nothing expires, and searches pile up.
  void ForgetExpired(TimePoint now);

  Map::iterator find(std::string_view id) { return by_id_.find(id); }
  Map::iterator end() { return by_id_.end(); }
  void erase(Map::iterator it) { by_id_.erase(it); }
  void clear() {
    by_id_.clear();
    by_expiry_.clear();
  }
  std::size_t size() const { return by_id_.size(); }

 private:
  Map by_id_;
  // When each id falls due. An entry can be stale (the id was renewed or bought since); the
  // offering itself says whether it has expired.
  std::multimap<TimePoint, std::string> by_expiry_;
};

// Where a real inference container listens.
struct ContainerAddress {
  std::string host;
  std::string port;

  bool operator==(const ContainerAddress&) const = default;
};

// Whether a container passes its health check (GET /ping answers 200). Injected, so the
// operation layer does no I/O of its own; an empty probe passes every container.
using ContainerProbe = std::function<bool(const ContainerAddress&)>;

// How long lifecycles take, and how endpoints are hosted.
struct HostingOptions {
  Millis provisioning_delay{0};  // Creating/Updating -> InService, Deleting -> gone
  Millis plan_payment_delay = kDefaultPlanPaymentDelay;  // a purchase: Pending -> paid
  ContainerProbe probe;                                  // health check of real containers
  std::uint64_t routing_seed = 0;  // seeds the traffic split between weighted variants
};

class Edit;             // ops/edit.hpp
class ContainerHealth;  // ops/container_health.hpp

struct Context {
  Caller caller;
  TimePoint now;  // one instant for the whole request
  // The rows: a snapshot that never changes, or (under the request lock) the writer's own.
  const store::Tables& store;
  const domain::CapacityLedger& ledger;
  const domain::Holdings& holdings;  // in step with the store: see ops/lifecycle_records.hpp
  const domain::CapacityConfig& capacity;
  const domain::QuotaTable& quotas;  // the account service quotas in force
  OfferingBook& offerings;           // what searches found: memory only, not part of the edit
  const HostingOptions& hosting;
  Edit& edit;  // what the request changes
  // The fault rules in force: lifecycle faults (a purchase that is never paid for) are tried
  // where they happen. Thread-safe itself.
  FaultRules& faults;
  // The real containers' health checks, run outside the request lock; nullptr when containers
  // are not checked (HostingOptions::probe is empty).
  ContainerHealth* health = nullptr;
  // The database, for its holdings log; set only under the request lock (nullptr for a read
  // served from a snapshot).
  const store::StateStore* history = nullptr;
};

// A control-plane operation: validated JSON input -> its answer or an AWS error.
using Handler = std::function<domain::Result<Answer>(const nlohmann::json&, Context&)>;

// A sagemaker-runtime invocation, free of HTTP types.
struct InvokeRequest {
  std::string endpoint_name;
  std::string body;
  std::string content_type;
  std::string accept;
  std::string custom_attributes;
  std::string target_variant;
  std::uint64_t sequence = 0;  // the invocation's number since start; set by the Emulator
  // InvokeEndpoint or InvokeEndpointWithResponseStream: what fault rules match.
  std::string operation = "InvokeEndpoint";
};

// The answer, or (forward_to set) the container the caller must forward the request to; the
// body and content type are then left empty.
struct InvokeResponse {
  std::string body;
  std::string content_type;
  std::string invoked_variant;
  std::string custom_attributes;
  std::optional<ContainerAddress> forward_to;
};

using RuntimeHandler =
    std::function<domain::Result<InvokeResponse>(const InvokeRequest&, Context&)>;

}  // namespace smemu::ops
