// Registration of the operation handlers, one function per resource family.
#pragma once

#include <map>
#include <string>

#include "ops/context.hpp"

namespace smemu::ops {

using HandlerTable = std::map<std::string, Handler, std::less<>>;

void AddModelHandlers(HandlerTable& table);
void AddTrainingPlanHandlers(HandlerTable& table);

// Commits every stored training plan's capacity to the ledger (at start and after reset).
void RestoreTrainingPlans(const store::StateStore& store, domain::CapacityLedger& ledger);

// sagemaker-runtime InvokeEndpoint.
domain::Result<InvokeResponse> InvokeEndpoint(const InvokeRequest& request, Context& ctx);

}  // namespace smemu::ops
