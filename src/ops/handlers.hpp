// Registration of the operation handlers, one function per resource family.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ops/context.hpp"

namespace smemu::ops {

using HandlerTable = std::map<std::string, Handler, std::less<>>;

void AddModelHandlers(HandlerTable& table);
void AddTrainingPlanHandlers(HandlerTable& table);
void AddEndpointConfigHandlers(HandlerTable& table);
void AddEndpointHandlers(HandlerTable& table);
void AddJobHandlers(HandlerTable& table);
void AddTagHandlers(HandlerTable& table);
void AddClusterHandlers(HandlerTable& table);

// Applies every endpoint transition that is due at ctx.now: Creating endpoints take their
// capacity (or fail), Deleting ones disappear. Returns when the next one falls due while the store
// stays as it is (at or before ctx.now when an endpoint is retried on every request), or nullopt
// when no endpoint is in transition.
std::optional<TimePoint> SettleEndpoints(Context& ctx);

// Applies every HyperPod cluster transition due at ctx.now (provisioning, updates, nodes following
// their plans, deletions). Returns when the next one falls due, or nullopt when none will.
std::optional<TimePoint> SettleClusters(Context& ctx);

// Applies every job event that is due at ctx.now, in time order: jobs end, waiting jobs time out
// or start where capacity is free (first come, first served). Returns when the next job event
// falls due by time alone (domain::NextDue); a write may bring one sooner.
std::optional<TimePoint> SettleJobs(Context& ctx);

// What a stored training plan holds of a pool.
struct PlanCommitment {
  std::string training_plan_arn;
  domain::PoolKey pool;
  domain::Window window;
  int count = 0;
};

// Every sold plan of every account, in no particular order (rebuilding the ledger, the admin
// view).
std::vector<PlanCommitment> StoredPlanCommitments(const store::StateStore& store);

// sagemaker-runtime InvokeEndpoint.
domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, Context& ctx);

}  // namespace smemu::ops
