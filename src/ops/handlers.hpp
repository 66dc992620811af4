// The operation handlers that belong to no one kind (tags), the lifecycles' settlers, and plan
// commitments. Each kind registers its own handlers through its descriptor (ops/kinds.hpp).
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ops/context.hpp"

namespace smemu::ops {

using HandlerTable = std::map<std::string, Handler, std::less<>>;

void AddTagHandlers(HandlerTable& table);

// What a stored training plan holds of a pool.
struct PlanCommitment {
  std::string training_plan_arn;
  domain::PoolKey pool;
  domain::Window window;
  int count = 0;
  // A purchase whose payment fails: held until then, nothing after (domain::CapacityLedger::Hold).
  std::optional<TimePoint> lapses_at;
};

// Every sold plan of every account, in no particular order (rebuilding the ledger, the admin
// view).
std::vector<PlanCommitment> StoredPlanCommitments(const store::Tables& store);
// The same, each passed to `visit` in turn (the value is reused): rebuilding the ledger at start.
void ForEachStoredPlanCommitment(const store::Tables& store,
                                 const std::function<void(const PlanCommitment&)>& visit);

// sagemaker-runtime InvokeEndpoint.
domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, Context& ctx);

}  // namespace smemu::ops
