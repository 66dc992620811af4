#include "ops/quota_checks.hpp"

#include <algorithm>

#include "domain/resource_kinds.hpp"
#include "ops/cluster_records.hpp"
#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "ops/plan_records.hpp"

namespace smemu::ops {
namespace {

using Scope = domain::QuotaSubject::Scope;

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

}  // namespace

QuotaUsage::QuotaUsage(const Context& ctx, std::string account, std::string region)
    : ctx_(ctx), account_(std::move(account)), region_(std::move(region)) {}

int QuotaUsage::Of(const domain::QuotaSubject& subject) {
  const domain::ResourceKind kind = subject.use;
  switch (subject.scope) {
    case Scope::kPerType: {
      const auto& claimed = Claimed(subject.use);
      auto claim = claimed.find(subject.instance_type);
      return ctx_.holdings.UsedBy(account_, region_, kind, subject.instance_type) +
             (claim == claimed.end() ? 0 : claim->second);
    }
    case Scope::kTotal:
      return ctx_.holdings.UsedBy(account_, region_, kind) + Sum(Claimed(subject.use));
    case Scope::kPerCluster:
      if (!largest_cluster_) {
        largest_cluster_ = 0;
        for (const store::KeptRowPtr& kept :
             ctx_.store.AllOf(account_, region_, domain::kClusterKind)) {
          const auto record = ctx_.store.DecodedRow<ClusterRecord>(*kept, &ClusterFromRow);
          largest_cluster_ = std::max(*largest_cluster_, SizeOf(record->cluster));
        }
      }
      return *largest_cluster_;
    case Scope::kPlanCount:
      return Plans().count;
    case Scope::kReservedCapacity: {
      const auto& instances = Plans().instances;
      auto it = instances.find(subject.instance_type);
      return it == instances.end() ? 0 : it->second;
    }
  }
  return 0;
}

const std::map<std::string, int>& QuotaUsage::Claimed(domain::QuotaUse use) {
  auto [it, fresh] = claimed_.try_emplace(use);
  if (!fresh) return it->second;
  const KindDescriptor& kind = DescriptorOf(use);
  if (kind.add_claims == nullptr) return it->second;
  std::vector<domain::Hold> claims;
  kind.add_claims(ctx_.store, account_, region_, claims);
  for (const domain::Hold& claim : claims) it->second[claim.instance_type] += claim.count;
  return it->second;
}

const QuotaUsage::LivePlans& QuotaUsage::Plans() {
  if (plans_) return *plans_;
  plans_ = LivePlans{};
  for (const store::KeptRowPtr& kept : ctx_.store.AllOf(account_, region_, domain::kPlanKind)) {
    const auto decoded = ctx_.store.DecodedRow<domain::Plan>(*kept, &PlanFromRow);
    const domain::Plan& plan = *decoded;
    if (plan.Span().end <= ctx_.now) continue;  // expired
    ++plans_->count;
    plans_->instances[plan.InstanceType()] += plan.instance_count;
  }
  return *plans_;
}

namespace {

// The per-type quotas of `use` for each type that grows, then the account-wide total for `growth`.
domain::Status CheckQuotasOfUse(const Context& ctx, domain::QuotaUse use,
                                const std::map<std::string, int>& more, int growth) {
  const std::string& account = ctx.caller.account;
  const std::string& region = ctx.caller.region;
  QuotaUsage usage(ctx, account, region);
  // Per type first: AWS names the type's quota when both would refuse.
  for (const auto& [type, delta] : more) {
    if (delta <= 0) continue;
    const std::string name = domain::PerTypeQuotaName(use, type);
    if (!ctx.quotas.Limit(account, region, name)) continue;
    const domain::QuotaSubject subject{Scope::kPerType, use, type};
    if (auto ok = domain::CheckLimit(ctx.quotas, account, region, name, usage.Of(subject), delta);
        !ok) {
      return ok;
    }
  }
  const std::string_view total = domain::TotalQuotaName(use);
  if (growth <= 0 || !ctx.quotas.Limit(account, region, total)) return domain::Ok();
  return domain::CheckLimit(ctx.quotas, account, region, total, usage.Of({Scope::kTotal, use, ""}),
                            growth);
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
  return CheckQuotasOfUse(ctx, domain::ResourceKind::kCluster, growth, size_after - size_before);
}

domain::Status CheckJobQuotas(const Context& ctx, bool training,
                              const std::vector<domain::JobOption>& options) {
  if (ctx.quotas.empty() || options.empty()) return domain::Ok();
  const domain::QuotaUse use =
      training ? domain::ResourceKind::kTrainingJob : domain::ResourceKind::kProcessingJob;
  for (const domain::JobOption& option : options) {
    auto allowed = CheckInstanceQuotas(ctx, use, {{option.instance_type, option.instance_count}});
    if (!allowed) return allowed;
  }
  return domain::Ok();
}

domain::Status CheckPlanQuotas(const Context& ctx, const std::string& instance_type, int count) {
  if (ctx.quotas.empty()) return domain::Ok();
  const std::string& account = ctx.caller.account;
  const std::string& region = ctx.caller.region;
  const domain::QuotaSubject plans{Scope::kPlanCount, domain::ResourceKind::kTrainingJob, ""};
  if (auto ok = domain::CheckLimit(ctx.quotas, account, region, domain::kPlanCountQuota,
                                   QuotaUsage(ctx, account, region).Of(plans), 1,
                                   /*unit=*/"");
      !ok) {
    return ok;
  }
  return CheckReservedCapacityQuota(ctx, instance_type, count);
}

domain::Status CheckReservedCapacityQuota(const Context& ctx, const std::string& instance_type,
                                          int count) {
  const std::string name = domain::ReservedCapacityQuotaName(instance_type);
  if (!ctx.quotas.Limit(ctx.caller.account, ctx.caller.region, name)) return domain::Ok();
  const domain::QuotaSubject subject{Scope::kReservedCapacity, domain::ResourceKind::kTrainingJob,
                                     instance_type};
  return domain::CheckLimit(ctx.quotas, ctx.caller.account, ctx.caller.region, name,
                            QuotaUsage(ctx, ctx.caller.account, ctx.caller.region).Of(subject),
                            count);
}

}  // namespace smemu::ops
