#include "domain/endpoint.hpp"

#include <algorithm>
#include <map>

#include "domain/wire_names.hpp"

namespace smemu::domain {
namespace {

AwsError NotFound(const Endpoint& endpoint) {
  return ValidationException("Could not find endpoint \"" + Excerpt(endpoint.arn) + "\".");
}

AwsError InProgress(const Endpoint& endpoint) {
  return ValidationException("Cannot update in-progress endpoint \"" + Excerpt(endpoint.arn) +
                             "\".");
}

std::string Expired(const std::string& plan_arn) {
  return "The capacity reservation " + Excerpt(plan_arn) + " has expired.";
}

std::string ExceedsAvailable(int wanted, int available, const std::string& plan_arn) {
  return "Requested instance count (" + std::to_string(wanted) + ") exceeds available capacity (" +
         std::to_string(available) + ") in training plan " + Excerpt(plan_arn) + ".";
}

// What one provisioning attempt decided.
struct Attempt {
  // InService, Failed, or Creating: waiting for a plan to start, or for health checks' answers
  EndpointStatus status;
  std::vector<Variant> variants;
  std::string failure_reason;
  std::optional<TimePoint> retry_at;  // Creating: when the plan's window opens; nullopt: answers
};

// Instances this attempt has taken so far, on top of what `holdings` counts.
struct Taken {
  std::map<std::string, int> by_plan;
  std::map<std::string, int> on_demand;
};

int FreeOnDemand(const CapacityFacts& facts, const Holdings& holdings, const Taken& taken,
                 const std::string& region, const std::string& type, std::string_view except) {
  const int free = OnDemandFree(facts, holdings, region, type, except);
  if (free == INT_MAX) return free;
  auto it = taken.on_demand.find(type);
  return free - (it == taken.on_demand.end() ? 0 : it->second);
}

// Gives a variant with InstancePools the first pool, by Priority, that has all its instances
// free: the variant takes that pool's instance type (and model override). False when none has.
bool SelectInstancePool(const CapacityFacts& facts, const Holdings& holdings, const Taken& taken,
                        const std::string& region, std::string_view except, Variant& variant) {
  for (const InstancePool& pool : variant.instance_pools) {
    if (FreeOnDemand(facts, holdings, taken, region, pool.instance_type, except) <
        variant.desired_count) {
      continue;
    }
    variant.instance_type = pool.instance_type;
    if (pool.model_name_override) variant.model_name = pool.model_name_override;
    return true;
  }
  return false;
}

// Tries to give every variant its instances, all or none, as of `at`. `except`: a resource whose
// holdings are left out (an endpoint swapping its own instances to a new config).
Attempt Provision(const Endpoint& endpoint, std::vector<Variant> variants, TimePoint at,
                  const CapacityFacts& facts, const Holdings& holdings, const HealthCheck& healthy,
                  std::string_view except) {
  const std::string& region = endpoint.owner.region;
  Taken taken;
  auto fail = [&variants](std::string reason) {
    return Attempt{EndpointStatus::kFailed, std::move(variants), std::move(reason), std::nullopt};
  };
  for (Variant& variant : variants) {
    const int wanted = variant.desired_count;
    const std::string plan_arn = variant.plan_arn();
    if (plan_arn.empty()) {
      if (!variant.instance_pools.empty() &&
          !SelectInstancePool(facts, holdings, taken, region, except, variant)) {
        return fail(std::string(kInsufficientCapacity));
      }
      if (FreeOnDemand(facts, holdings, taken, region, variant.instance_type, except) < wanted) {
        return fail(std::string(kInsufficientCapacity));
      }
      taken.on_demand[variant.instance_type] += wanted;
      continue;
    }
    const auto plan = facts.Plan(endpoint.owner, plan_arn);
    const PlanStatus status = plan ? plan->StatusAt(at) : PlanStatus::kExpired;
    if (status == PlanStatus::kExpired) return fail(Expired(plan_arn));
    if (status == PlanStatus::kScheduled) {  // waits for the next reserved capacity to open
      return Attempt{EndpointStatus::kCreating, std::move(variants), "",
                     plan->BlockFrom(at)->start};
    }
    const int available =
        plan->instance_count - holdings.OnPlan(plan_arn, except) - taken.by_plan[plan_arn];
    if (available < wanted) return fail(ExceedsAvailable(wanted, available, plan_arn));
    taken.by_plan[plan_arn] += wanted;
  }
  if (healthy) {
    const HealthVerdict verdict = healthy(endpoint.owner, variants);
    if (verdict.kind == HealthVerdict::Kind::kUnknown) {  // tried again when the answers are in
      return Attempt{EndpointStatus::kCreating, std::move(variants), "", std::nullopt};
    }
    if (verdict.kind == HealthVerdict::Kind::kFailed) {
      return fail("The primary container for production variant " +
                  Excerpt(verdict.failed_variant) +
                  " did not pass the ping health check. Please check CloudWatch logs for this "
                  "endpoint.");
    }
  }
  for (Variant& variant : variants) variant.current_count = variant.desired_count;
  return Attempt{EndpointStatus::kInService, std::move(variants), "", std::nullopt};
}

void Record(EndpointSettlement& settlement, TimePoint at, EndpointStatus from,
            std::optional<EndpointStatus> to, std::string reason = "") {
  settlement.events.push_back({at, from, to, std::move(reason)});
}

// Creating: each attempt happens at the moment it fell due, however late the settling that
// notices it, and is judged by the plans of that moment.
EndpointSettlement SettleCreating(Endpoint endpoint, TimePoint now, const CapacityFacts& facts,
                                  const Holdings& holdings, const HealthCheck& healthy) {
  EndpointSettlement settlement;
  TimePoint due = endpoint.due.value_or(endpoint.modified);
  while (due <= now) {
    Attempt attempt =
        Provision(endpoint, endpoint.variants, due, facts, holdings, healthy, /*except=*/{});
    endpoint.variants = std::move(attempt.variants);
    if (attempt.status == EndpointStatus::kCreating) {
      if (!attempt.retry_at) break;  // health checks to wait for: retried at every settling
      endpoint.due = attempt.retry_at;
      if (*attempt.retry_at <= due) break;  // no later attempt is scheduled
      due = *attempt.retry_at;
      continue;
    }
    endpoint.status = attempt.status;
    endpoint.modified = due;
    endpoint.due.reset();
    if (attempt.status == EndpointStatus::kFailed) endpoint.failure_reason = attempt.failure_reason;
    Record(settlement, due, EndpointStatus::kCreating, attempt.status, attempt.failure_reason);
    break;
  }
  if (endpoint.status == EndpointStatus::kCreating) settlement.next_due = due;
  settlement.endpoint = std::move(endpoint);
  return settlement;
}

// Updating: the endpoint serves on throughout; when the update falls due it swaps to the pending
// config if that gets its capacity (its own old instances are given back in the same step), or
// stays on the old one and says why. A scaling update simply applies.
EndpointSettlement SettleUpdating(Endpoint endpoint, TimePoint now, const CapacityFacts& facts,
                                  const Holdings& holdings, const HealthCheck& healthy) {
  EndpointSettlement settlement;
  const TimePoint due = endpoint.due.value_or(endpoint.modified);
  if (due > now) {
    settlement.next_due = due;
    settlement.endpoint = std::move(endpoint);
    return settlement;
  }
  std::string reason;
  if (endpoint.pending) {
    Attempt attempt = Provision(endpoint, endpoint.pending->variants, due, facts, holdings, healthy,
                                endpoint.arn);
    if (attempt.status == EndpointStatus::kCreating && !attempt.retry_at) {
      settlement.next_due = due;  // health checks to wait for: retried at every settling
      settlement.endpoint = std::move(endpoint);
      return settlement;
    }
    if (attempt.status == EndpointStatus::kInService) {
      endpoint.variants = std::move(attempt.variants);
      endpoint.config_name = endpoint.pending->config_name;
    } else {
      reason = attempt.failure_reason.empty() ? "The update could not be provisioned."
                                              : attempt.failure_reason;
      endpoint.failure_reason = reason;
    }
    endpoint.pending.reset();
  } else {
    for (Variant& variant : endpoint.variants) {
      variant.current_count = variant.desired_count;
      if (variant.desired_weight) {
        variant.weight = *variant.desired_weight;
        variant.desired_weight.reset();
      }
    }
  }
  endpoint.due.reset();
  endpoint.status = EndpointStatus::kInService;
  endpoint.modified = due;
  Record(settlement, due, EndpointStatus::kUpdating, EndpointStatus::kInService, reason);
  settlement.endpoint = std::move(endpoint);
  return settlement;
}

}  // namespace

constexpr WireNames<EndpointStatus, 5> kEndpointStatuses({{
    {EndpointStatus::kCreating, "Creating"},
    {EndpointStatus::kUpdating, "Updating"},
    {EndpointStatus::kInService, "InService"},
    {EndpointStatus::kDeleting, "Deleting"},
    {EndpointStatus::kFailed, "Failed"},
}});
static_assert(kEndpointStatuses.Complete());

std::string_view ToString(EndpointStatus status) { return kEndpointStatuses.NameOf(status); }

std::optional<EndpointStatus> ParseEndpointStatus(std::string_view text) {
  return kEndpointStatuses.Find(text);
}

const std::string& Variant::plan_arn() const {
  static const std::string kNone;
  return reservation ? reservation->ml_reservation_arn : kNone;
}

Endpoint NewEndpoint(std::string arn, Owner owner, std::string config_name,
                     std::vector<Variant> variants, TimePoint now, Millis delay) {
  Endpoint endpoint;
  endpoint.arn = std::move(arn);
  endpoint.owner = std::move(owner);
  endpoint.status = EndpointStatus::kCreating;
  endpoint.modified = now;
  endpoint.config_name = std::move(config_name);
  endpoint.variants = std::move(variants);
  endpoint.due = now + delay;
  return endpoint;
}

Result<Endpoint> StartDelete(Endpoint endpoint, TimePoint now, Millis delay) {
  if (endpoint.status == EndpointStatus::kDeleting) return NotFound(endpoint);
  if (endpoint.status == EndpointStatus::kCreating ||
      endpoint.status == EndpointStatus::kUpdating) {
    return InProgress(endpoint);
  }
  for (Variant& variant : endpoint.variants) variant.current_count = 0;  // released now
  endpoint.due = now + delay;
  endpoint.status = EndpointStatus::kDeleting;
  endpoint.modified = now;
  return endpoint;
}

Status CheckUpdatable(const Endpoint& endpoint) {
  if (endpoint.status == EndpointStatus::kDeleting) return NotFound(endpoint);
  if (endpoint.status != EndpointStatus::kInService) return InProgress(endpoint);
  return Ok();
}

Status CheckScale(const Endpoint& endpoint, const Variant& variant, int wanted, TimePoint now,
                  const CapacityFacts& facts, const Holdings& holdings) {
  const std::string& region = endpoint.owner.region;
  const int own = variant.current_count;
  const std::string& plan_arn = variant.plan_arn();
  if (plan_arn.empty()) {
    const auto total = facts.OnDemandTotal(region, variant.instance_type);
    const int others = holdings.OnDemand(region, variant.instance_type) - own;
    if (total && *total - others < wanted) {
      return ResourceLimitExceeded(std::string(kNoOnDemandCapacity));
    }
    return Ok();
  }
  const auto plan = facts.Plan(endpoint.owner, plan_arn);
  if (!plan || plan->StatusAt(now) == PlanStatus::kExpired) {
    return ValidationException(Expired(plan_arn));
  }
  if (wanted > plan->instance_count) {
    return ValidationException("Requested instance count (" + std::to_string(wanted) +
                               ") exceeds reserved capacity (" +
                               std::to_string(plan->instance_count) + ") for training plan.");
  }
  const int others = holdings.OnPlan(plan_arn) - own;
  if (plan->instance_count - others < wanted) {
    return ResourceLimitExceeded(ExceedsAvailable(wanted, plan->instance_count - others, plan_arn));
  }
  return Ok();
}

Endpoint StartUpdate(Endpoint endpoint, TimePoint now, Millis delay) {
  endpoint.due = now + delay;
  endpoint.status = EndpointStatus::kUpdating;
  endpoint.modified = now;
  return endpoint;
}

EndpointSettlement Settle(const Endpoint& endpoint, TimePoint now, const CapacityFacts& facts,
                          const Holdings& holdings, const HealthCheck& healthy) {
  switch (endpoint.status) {
    case EndpointStatus::kCreating:
      return SettleCreating(endpoint, now, facts, holdings, healthy);
    case EndpointStatus::kUpdating:
      return SettleUpdating(endpoint, now, facts, holdings, healthy);
    case EndpointStatus::kDeleting: {
      EndpointSettlement settlement;
      const TimePoint due = endpoint.due.value_or(endpoint.modified);
      if (due <= now) {
        Record(settlement, due, EndpointStatus::kDeleting, std::nullopt);
      } else {
        settlement.endpoint = endpoint;
        settlement.next_due = due;
      }
      return settlement;
    }
    case EndpointStatus::kInService:
    case EndpointStatus::kFailed:
      break;
  }
  return {endpoint, {}, std::nullopt};
}

std::vector<Hold> ClaimsOf(const Endpoint& endpoint) {
  std::map<std::pair<std::string, std::string>, int> claimed;  // (type, plan) -> instances
  if (endpoint.status == EndpointStatus::kCreating) {
    for (const Variant& variant : endpoint.variants) {
      if (!variant.instance_type.empty()) {
        claimed[{variant.instance_type, variant.plan_arn()}] += variant.desired_count;
      }
    }
  } else if (endpoint.status == EndpointStatus::kUpdating && endpoint.pending) {
    for (const Variant& variant : endpoint.pending->variants) {
      if (!variant.instance_type.empty()) {
        claimed[{variant.instance_type, variant.plan_arn()}] += variant.desired_count;
      }
    }
    for (const Hold& hold : HolderOf(endpoint).holds) {
      claimed[{hold.instance_type, hold.plan_arn}] -= hold.count;
    }
  }
  std::vector<Hold> claims;
  for (const auto& [key, count] : claimed) {
    if (count > 0) claims.push_back({key.first, key.second, count});
  }
  return claims;
}

Holder HolderOf(const Endpoint& endpoint) {
  Holder holder{
      endpoint.arn, ResourceKind::kEndpoint, endpoint.owner.region, {}, endpoint.owner.account};
  const bool serving =
      endpoint.status == EndpointStatus::kInService || endpoint.status == EndpointStatus::kUpdating;
  for (const Variant& variant : endpoint.variants) {
    const int held =
        serving ? std::max(variant.current_count, variant.desired_count) : variant.current_count;
    if (held > 0) holder.holds.push_back({variant.instance_type, variant.plan_arn(), held});
  }
  return holder;
}

}  // namespace smemu::domain
