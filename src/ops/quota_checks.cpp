#include "ops/quota_checks.hpp"

#include <algorithm>

#include "domain/resource_kinds.hpp"
#include "ops/cluster_records.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {
namespace {

using Scope = domain::QuotaSubject::Scope;

bool Owns(const store::ResourceRow& row, const std::string& account, const std::string& region) {
  return row.key.account == account && row.key.region == region;
}

// Instances per type that an account's endpoints or clusters have asked for and do not hold yet
// (domain::ClaimsOf).
std::map<std::string, int> Claimed(const Context& ctx, const std::string& account,
                                   const std::string& region, domain::QuotaUse use) {
  std::map<std::string, int> claimed;
  auto add = [&claimed](const std::vector<domain::Hold>& claims) {
    for (const domain::Hold& claim : claims) claimed[claim.instance_type] += claim.count;
  };
  if (use == domain::QuotaUse::kEndpoint) {
    for (const char* status : {"Creating", "Updating"}) {
      for (const store::ResourceRow& row : ctx.store.AllOfKind(domain::kEndpointKind, status)) {
        if (Owns(row, account, region)) add(domain::ClaimsOf(EndpointFromRow(row).endpoint));
      }
    }
  } else if (use == domain::QuotaUse::kCluster) {
    for (const store::ResourceRow& row : ctx.store.AllOfKind(domain::kClusterKind, "Creating")) {
      if (Owns(row, account, region)) add(domain::ClaimsOf(ClusterFromRow(row).cluster));
    }
  }
  return claimed;
}

int Sum(const std::map<std::string, int>& counts) {
  int sum = 0;
  for (const auto& [key, count] : counts) sum += count;
  return sum;
}

// The size of a cluster: the instances its groups ask for.
int SizeOf(const domain::Cluster& cluster) {
  int size = 0;
  for (const domain::InstanceGroup& group : cluster.groups) size += group.spec.count;
  return size;
}

// The account's plans that have not expired: how many, and their instances per type.
struct LivePlans {
  int count = 0;
  std::map<std::string, int> instances;
};
LivePlans LivePlansOf(const Context& ctx, const std::string& account, const std::string& region) {
  LivePlans live;
  for (const store::ResourceRow& row : ctx.store.AllOf(account, region, domain::kPlanKind)) {
    const domain::Plan plan = PlanFromRow(row);
    if (domain::PlanStatusOf(plan.window, ctx.now) == domain::PlanStatus::kExpired) continue;
    ++live.count;
    live.instances[plan.pool.instance_type] += plan.instance_count;
  }
  return live;
}

}  // namespace

int QuotaUsed(const Context& ctx, const std::string& account, const std::string& region,
              const domain::QuotaSubject& subject) {
  const std::string kind(domain::KindOf(subject.use));
  switch (subject.scope) {
    case Scope::kPerType: {
      const auto claimed = Claimed(ctx, account, region, subject.use);
      auto claim = claimed.find(subject.instance_type);
      return ctx.holdings.UsedBy(account, region, kind, subject.instance_type) +
             (claim == claimed.end() ? 0 : claim->second);
    }
    case Scope::kTotal:
      return ctx.holdings.UsedBy(account, region, kind) +
             Sum(Claimed(ctx, account, region, subject.use));
    case Scope::kPerCluster: {
      int largest = 0;
      for (const store::ResourceRow& row : ctx.store.AllOf(account, region, domain::kClusterKind)) {
        largest = std::max(largest, SizeOf(ClusterFromRow(row).cluster));
      }
      return largest;
    }
    case Scope::kPlanCount:
      return LivePlansOf(ctx, account, region).count;
    case Scope::kReservedCapacity: {
      const LivePlans live = LivePlansOf(ctx, account, region);
      auto it = live.instances.find(subject.instance_type);
      return it == live.instances.end() ? 0 : it->second;
    }
  }
  return 0;
}

namespace {

// The per-type quotas of `use` for each type that grows, then the account-wide total for `growth`.
domain::Status CheckQuotasOfUse(const Context& ctx, domain::QuotaUse use,
                                const std::map<std::string, int>& more, int growth) {
  const std::string& account = ctx.caller.account;
  const std::string& region = ctx.caller.region;
  // Per type first: AWS names the type's quota when both would refuse.
  for (const auto& [type, delta] : more) {
    if (delta <= 0) continue;
    const std::string name = domain::PerTypeQuotaName(use, type);
    if (!ctx.quotas.Limit(account, region, name)) continue;
    const domain::QuotaSubject subject{Scope::kPerType, use, type};
    if (auto ok = domain::CheckLimit(ctx.quotas, account, region, name,
                                     QuotaUsed(ctx, account, region, subject), delta);
        !ok) {
      return ok;
    }
  }
  const std::string_view total = domain::TotalQuotaName(use);
  if (growth <= 0 || !ctx.quotas.Limit(account, region, total)) return domain::Ok();
  return domain::CheckLimit(ctx.quotas, account, region, total,
                            QuotaUsed(ctx, account, region, {Scope::kTotal, use, ""}), growth);
}

}  // namespace

domain::Status CheckInstanceQuotas(const Context& ctx, domain::QuotaUse use,
                                   const std::map<std::string, int>& more) {
  if (ctx.quotas.empty()) return domain::Ok();
  // What grows counts toward the total; what shrinks elsewhere does not free it first (a new
  // fleet is provisioned before the old one is given back).
  int growth = 0;
  for (const auto& [type, delta] : more) growth += std::max(0, delta);
  return CheckQuotasOfUse(ctx, use, more, growth);
}

std::map<std::string, int> EndpointGrowth(const std::vector<domain::Variant>& variants,
                                          const domain::Endpoint* current) {
  std::map<std::string, int> growth;
  for (const domain::Variant& variant : variants) {
    if (!variant.instance_type.empty()) growth[variant.instance_type] += variant.desired_count;
  }
  if (current != nullptr) {
    for (const domain::Hold& hold : domain::HolderOf(*current).holds) {
      growth[hold.instance_type] -= hold.count;
    }
  }
  return growth;
}

domain::Status CheckClusterQuotas(const Context& ctx, const domain::Cluster* current,
                                  const std::vector<domain::GroupSpec>& specs,
                                  const std::vector<std::string>& to_delete) {
  if (ctx.quotas.empty()) return domain::Ok();
  std::map<std::string, int> growth;
  const int size_before = current ? SizeOf(*current) : 0;
  int size_after = size_before;
  for (const domain::GroupSpec& spec : specs) {
    const domain::InstanceGroup* group = current ? current->FindGroup(spec.name) : nullptr;
    const int before = group ? group->spec.count : 0;
    growth[spec.instance_type] += spec.count - before;
    size_after += spec.count - before;
  }
  for (const std::string& name : to_delete) {
    if (const domain::InstanceGroup* group = current ? current->FindGroup(name) : nullptr) {
      growth[group->spec.instance_type] -= group->spec.count;
      size_after -= group->spec.count;
    }
  }
  if (auto ok = domain::CheckLimit(ctx.quotas, ctx.caller.account, ctx.caller.region,
                                   domain::kPerClusterQuota, size_before, size_after - size_before);
      !ok) {
    return ok;
  }
  // One update replaces groups at once: the cluster total follows the net change.
  return CheckQuotasOfUse(ctx, domain::QuotaUse::kCluster, growth, size_after - size_before);
}

domain::Status CheckJobQuotas(const Context& ctx, bool training,
                              const std::vector<domain::JobOption>& options) {
  if (ctx.quotas.empty() || options.empty()) return domain::Ok();
  const domain::QuotaUse use =
      training ? domain::QuotaUse::kTrainingJob : domain::QuotaUse::kProcessingJob;
  std::optional<domain::Status> first_refusal;
  for (const domain::JobOption& option : options) {
    auto allowed = CheckInstanceQuotas(ctx, use, {{option.instance_type, option.instance_count}});
    if (allowed) return allowed;
    if (!first_refusal) first_refusal = std::move(allowed);
  }
  return *first_refusal;
}

domain::Status CheckPlanQuotas(const Context& ctx, const std::string& instance_type, int count) {
  if (ctx.quotas.empty()) return domain::Ok();
  const std::string& account = ctx.caller.account;
  const std::string& region = ctx.caller.region;
  const domain::QuotaSubject plans{Scope::kPlanCount, domain::QuotaUse::kTrainingJob, ""};
  if (auto ok = domain::CheckLimit(ctx.quotas, account, region, domain::kPlanCountQuota,
                                   QuotaUsed(ctx, account, region, plans), 1, /*unit=*/"");
      !ok) {
    return ok;
  }
  return CheckReservedCapacityQuota(ctx, instance_type, count);
}

domain::Status CheckReservedCapacityQuota(const Context& ctx, const std::string& instance_type,
                                          int count) {
  const std::string name = domain::ReservedCapacityQuotaName(instance_type);
  if (!ctx.quotas.Limit(ctx.caller.account, ctx.caller.region, name)) return domain::Ok();
  const domain::QuotaSubject subject{Scope::kReservedCapacity, domain::QuotaUse::kTrainingJob,
                                     instance_type};
  return domain::CheckLimit(ctx.quotas, ctx.caller.account, ctx.caller.region, name,
                            QuotaUsed(ctx, ctx.caller.account, ctx.caller.region, subject), count);
}

}  // namespace smemu::ops
