// An endpoint's lifecycle as typed state and pure transitions. A variant's instances come from the
// training plan its config reserves, or from the region's on-demand pools (the first of its
// InstancePools that has them all). Creating, Updating and Deleting each fall due after the
// provisioning delay; Settle applies what fell due, each step at the moment it fell due.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/capacity_facts.hpp"
#include "domain/holdings.hpp"
#include "domain/training_plan.hpp"
#include "smemu/clock.hpp"

namespace smemu::domain {

// The statuses the emulator moves endpoints through (a subset of the model's EndpointStatus).
enum class EndpointStatus { kCreating, kUpdating, kInService, kDeleting, kFailed };
std::string_view ToString(EndpointStatus status);
std::optional<EndpointStatus> ParseEndpointStatus(std::string_view text);

struct InstancePool {
  std::string instance_type;
  int priority = 0;
  std::optional<std::string> model_name_override;

  bool operator==(const InstancePool&) const = default;
};

struct ReservationConfig {
  std::string preference;  // CapacityReservationPreference as configured
  std::string ml_reservation_arn;

  bool operator==(const ReservationConfig&) const = default;
};

struct Variant {
  std::string name;
  std::string instance_type;  // for InstancePools: the pool selected (empty until provisioned)
  int desired_count = 1;
  int current_count = 0;
  double weight = 1.0;
  std::optional<double> desired_weight;  // set by an update until it applies
  std::optional<std::string> model_name;
  std::optional<ReservationConfig> reservation;
  std::vector<InstancePool> instance_pools;  // in Priority order

  const std::string& plan_arn() const;  // empty: on demand
  bool operator==(const Variant&) const = default;
};

// A move to another endpoint config, waiting to be provisioned.
struct PendingUpdate {
  std::string config_name;
  std::vector<Variant> variants;

  bool operator==(const PendingUpdate&) const = default;
};

struct Endpoint {
  std::string arn;
  Owner owner;
  EndpointStatus status = EndpointStatus::kCreating;
  TimePoint modified{};
  std::string config_name;
  std::vector<Variant> variants;
  std::optional<TimePoint> due;  // when the next transition falls due
  std::optional<std::string> failure_reason;
  std::optional<PendingUpdate> pending;

  bool operator==(const Endpoint&) const = default;
};

// What the health checks of the containers a set of variants runs say. The operation layer pings
// them outside the request lock, so an answer may not have come in yet: provisioning then waits
// and is tried again at the next settling.
struct HealthVerdict {
  enum class Kind { kHealthy, kFailed, kUnknown } kind = Kind::kHealthy;
  std::string failed_variant;  // kFailed: the first variant whose container failed its check
};
using HealthCheck =
    std::function<HealthVerdict(const Owner& owner, const std::vector<Variant>& variants)>;

// ---- Transitions a request asks for

// A new endpoint, Creating until `now + delay`.
Endpoint NewEndpoint(std::string arn, Owner owner, std::string config_name,
                     std::vector<Variant> variants, TimePoint now, Millis delay);
// Delete: an endpoint being provisioned cannot be deleted until it settles (as on SageMaker).
// Its instances are given back at once; it is gone after the delay.
Result<Endpoint> StartDelete(Endpoint endpoint, TimePoint now, Millis delay);
// An update needs an InService endpoint (Deleting reads as not found, like a missing one).
Status CheckUpdatable(const Endpoint& endpoint);
// Scaling `variant` to `wanted` instances must fit its plan or its on-demand pool, counting what
// every other resource holds and all but this variant's own current instances.
Status CheckScale(const Endpoint& endpoint, const Variant& variant, int wanted, TimePoint now,
                  const CapacityFacts& facts, const Holdings& holdings);
// Puts an endpoint with changed variants (or a pending config) into Updating until `now + delay`.
Endpoint StartUpdate(Endpoint endpoint, TimePoint now, Millis delay);

// ---- Transitions the clock brings

// A status change, stamped with the moment it happened.
struct EndpointEvent {
  TimePoint at;
  EndpointStatus from;
  std::optional<EndpointStatus> to;  // nullopt: the endpoint is gone
  std::string reason;                // why it failed, or why an update was not applied
};
struct EndpointSettlement {
  std::optional<Endpoint> endpoint;  // nullopt: deleted
  std::vector<EndpointEvent> events;
  // When the next transition falls due while nothing else changes (at or before `now` for an
  // endpoint that retries on every settling); nullopt when none is scheduled.
  std::optional<TimePoint> next_due;
};
// Applies every transition of `endpoint` due by `now`. Each happens at the moment it fell due and
// is judged by the plans and holdings of that moment; `holdings` must include what `endpoint`
// itself holds now.
EndpointSettlement Settle(const Endpoint& endpoint, TimePoint now, const CapacityFacts& facts,
                          const Holdings& holdings, const HealthCheck& healthy);

// What an endpoint holds: a serving endpoint that is scaling holds its new count from the moment
// it asked for it.
Holder HolderOf(const Endpoint& endpoint);

// What an endpoint has asked for and does not hold yet, counted as used by the quotas: while
// Creating, its variants; while Updating to a bigger config, what that config adds.
std::vector<Hold> ClaimsOf(const Endpoint& endpoint);

// An endpoint's FailureReason when provisioning finds no capacity for a variant, as the service
// words it (a public report of 2026: aws/deep-learning-containers#6673).
inline constexpr std::string_view kInsufficientCapacity =
    "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
    "error. Please retry using a different ML instance type or after some time.";

// The refusal of a request that would take more on-demand capacity than is left (a scale-up, a
// cluster update), as the service words a shortage.
inline constexpr std::string_view kNoOnDemandCapacity =
    "Unable to provision requested ML compute capacity. Please retry using a different ML "
    "instance type.";

}  // namespace smemu::domain
