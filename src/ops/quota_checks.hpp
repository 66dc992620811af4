// The account service quotas applied to requests: each create or update that would take more
// instances (or plans) than a quota allows is refused before anything changes. The rules and the
// wording are domain/quotas; this adds what the store knows: resources still being created have
// asked for instances they do not hold yet, and count as used.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "domain/cluster.hpp"
#include "domain/endpoint.hpp"
#include "domain/job.hpp"
#include "domain/quotas.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

// What one account uses now in one region of each quota's subject: instances held, and those asked
// for by endpoints and clusters being created or updated (domain::ClaimsOf); the largest cluster;
// live plans or their instances. Each kind of subject reads the store once, however many quotas
// ask about it.
class QuotaUsage {
 public:
  QuotaUsage(const Context& ctx, std::string account, std::string region);
  int Of(const domain::QuotaSubject& subject);

 private:
  struct LivePlans {
    int count = 0;
    std::map<std::string, int> instances;  // by instance type
  };
  const std::map<std::string, int>& Claimed(domain::QuotaUse use);
  const LivePlans& Plans();

  const Context& ctx_;
  std::string account_;
  std::string region_;
  std::map<domain::QuotaUse, std::map<std::string, int>> claimed_;
  std::optional<LivePlans> plans_;
  std::optional<int> largest_cluster_;
};

// `more` instances per type for `use` in the caller's account and region.
domain::Status CheckInstanceQuotas(const Context& ctx, domain::QuotaUse use,
                                   const std::map<std::string, int>& more);

// Instances per type that `variants` ask for beyond what `current` holds (all when null).
std::map<std::string, int> EndpointGrowth(const std::vector<domain::Variant>& variants,
                                          const domain::Endpoint* current);

// A cluster's groups as `specs` and `to_delete` would leave them, per type and in total, against
// the cluster quotas; `current` is the cluster being updated (null for a new one).
domain::Status CheckClusterQuotas(const Context& ctx, const domain::Cluster* current,
                                  const std::vector<domain::GroupSpec>& specs,
                                  const std::vector<std::string>& to_delete = {});

// A new job: refused when any option of `options` does not fit its quotas now. "SageMaker AI
// checks your service quota for every type in the list, not just the one it selects. [...] If any
// type falls short, the request is rejected, even when the types ahead of it would have
// succeeded." (instance preferences for training jobs). While the job waits, the scheduler skips
// the options whose quota has filled up since.
domain::Status CheckJobQuotas(const Context& ctx, bool training,
                              const std::vector<domain::JobOption>& options);

// `count` more instances of `instance_type` reserved by the caller's plans (a search or a
// purchase).
domain::Status CheckReservedCapacityQuota(const Context& ctx, const std::string& instance_type,
                                          int count);
// A new plan of `count` instances of `instance_type` for the caller: the plan count and the
// reserved capacity.
domain::Status CheckPlanQuotas(const Context& ctx, const std::string& instance_type, int count);

}  // namespace smemu::ops
