// Holdings: who holds which instances right now. Endpoint variants and jobs hold instances of a
// region, either on a training plan or from the region's on-demand pools, and compete for the same
// instances through this one structure. The operation layer keeps it in step with every write of
// an endpoint or job (and rebuilds it from the store only when a transaction rolls back), so
// reading what a plan or a pool has left costs a map lookup, not a pass over every resource.
// Plain data; no I/O.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "domain/resource_kinds.hpp"

namespace smemu::domain {

// Instances of one type that a resource holds, on a plan or on demand.
struct Hold {
  std::string instance_type;
  std::string plan_arn;  // the ARN the resource names its plan by; empty: on demand
  int count = 0;

  bool operator==(const Hold&) const = default;
};

// A resource and everything it holds (one hold per endpoint variant; one for a running job).
struct Holder {
  std::string arn;
  ResourceKind kind = ResourceKind::kEndpoint;  // endpoint, training or processing job, cluster
  std::string region;
  std::vector<Hold> holds;
  std::string account;  // whose quotas the holds count against

  bool operator==(const Holder&) const = default;
};

class Holdings {
 public:
  // Replaces what `holder.arn` held by `holder.holds`; a holder with nothing held is removed.
  void Put(Holder holder);
  void Remove(std::string_view arn);
  void Clear();

  // Instances held on the plan named `plan_arn` (in any letter case), by every resource or by all
  // but `except_arn`.
  int OnPlan(std::string_view plan_arn, std::string_view except_arn = {}) const;
  // On-demand instances of a type held in a region, by every resource or by all but `except_arn`.
  int OnDemand(std::string_view region, std::string_view instance_type,
               std::string_view except_arn = {}) const;
  // Instances held in an account and region by resources of `kind` (endpoint, training-job, ...):
  // of one instance type, or of every type when `instance_type` is empty. On plans and on demand
  // alike: both count against the account's service quotas.
  int UsedBy(std::string_view account, std::string_view region, ResourceKind kind,
             std::string_view instance_type = {}) const;
  // What `arn` holds; nullptr when it holds nothing.
  const Holder* Find(std::string_view arn) const;

  // Every holder, in the kinds' declared order (domain/resource_kinds.hpp), then by ARN.
  std::vector<const Holder*> All() const;
  std::size_t size() const { return by_arn_.size(); }

 private:
  void Count(const Holder& holder, int sign);

  std::map<std::string, Holder, std::less<>> by_arn_;
  std::map<std::string, int, std::less<>> by_plan_;
  // On-demand instances held, by region and then instance type.
  std::map<std::string, std::map<std::string, int, std::less<>>, std::less<>> on_demand_;
  // Instances held by account, region, kind and type (and "" for every type).
  std::map<std::string, int, std::less<>> used_;
};

}  // namespace smemu::domain
