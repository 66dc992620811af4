// Sold training plans as the operation handlers keep them in the store, and how other operations
// (endpoint configs, endpoints, jobs) find the plan an ARN names.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_facts.hpp"
#include "domain/capacity_ledger.hpp"
#include "domain/resource_kinds.hpp"
#include "domain/training_plan.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

using domain::Plan;

// The plan codec. The status column holds the plan's status when it was bought (the store sorts
// and filters on the window, not on it). Decoding a row that cannot be read is a StoreFailure
// naming it.
store::ResourceRow EncodePlan(const store::ResourceKey& key, const Plan& plan, TimePoint created,
                              TimePoint modified);
Plan PlanFromRow(const store::ResourceRow& row);
// Each reserved capacity of a plan: a row of its own that names the plan, so that its ARN finds
// it.
store::ResourceRow EncodeReservedCapacity(const store::ResourceKey& plan_key, const Plan& plan,
                                          const domain::CapacityBlock& block, TimePoint created);

// What a plan reserves, as the store's plan_capacity columns keep it (the ledger's rebuild and
// ListTrainingPlans's window sorts and filters read them). Written with the plan's row.
store::PlanCapacity CapacityOf(const Plan& plan);

std::string ReservedCapacityArn(const Caller& caller, const std::string& id);

// The plan of `key`, decoded once per stored version (StateStore::GetDecoded).
std::optional<Plan> LoadPlan(const store::Tables& store, const store::ResourceKey& key);

// The owner's plan named by its training-plan ARN (same account and region), if any.
std::optional<Plan> PlanByArn(const store::Tables& store, const domain::Owner& owner,
                              const std::string& arn);
std::optional<Plan> PlanByArn(const Context& ctx, const std::string& arn);

// The owner's plan named by a training-plan ARN or by the ARN of its reserved capacity.
std::optional<Plan> PlanByReservationArn(const store::Tables& store, const domain::Owner& owner,
                                         const std::string& arn);
std::optional<Plan> PlanByReservationArn(const Context& ctx, const std::string& arn);

// The reserved capacities the store's columns of a plan describe (ids left empty).
std::vector<domain::CapacityBlock> StoredBlocks(const store::PlanCapacity& plan);

// What the lifecycle rules see of a plan.
domain::PlanFacts FactsOf(const Plan& plan);

// The caller's account and region, as the owner of what it creates.
domain::Owner OwnerOf(const Caller& caller);

}  // namespace smemu::ops
