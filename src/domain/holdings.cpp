#include "domain/holdings.hpp"

#include <algorithm>

#include "domain/aws_names.hpp"

namespace smemu::domain {
namespace {

int HeldBy(const Holder* holder, std::string_view region, std::string_view instance_type,
           std::string_view plan_arn) {
  if (holder == nullptr || holder->region != region) return 0;
  int count = 0;
  for (const Hold& hold : holder->holds) {
    if (ArnKey(hold.plan_arn) == ArnKey(plan_arn) &&
        (!plan_arn.empty() || hold.instance_type == instance_type)) {
      count += hold.count;
    }
  }
  return count;
}

std::string UseKey(std::string_view account, std::string_view region, ResourceKind resource_kind,
                   std::string_view instance_type) {
  const std::string_view kind = WireName(resource_kind);
  std::string key;
  key.reserve(account.size() + region.size() + kind.size() + instance_type.size() + 3);
  key.append(account).append(1, '\n').append(region).append(1, '\n').append(kind);
  key.append(1, '\n').append(instance_type);
  return key;
}

}  // namespace

void Holdings::Count(const Holder& holder, int sign) {
  for (const Hold& hold : holder.holds) {
    used_[UseKey(holder.account, holder.region, holder.kind, hold.instance_type)] +=
        sign * hold.count;
    used_[UseKey(holder.account, holder.region, holder.kind, "")] += sign * hold.count;
    if (hold.plan_arn.empty()) {
      on_demand_[holder.region][hold.instance_type] += sign * hold.count;
    } else {
      by_plan_[ArnKey(hold.plan_arn)] += sign * hold.count;
    }
  }
}

void Holdings::Put(Holder holder) {
  auto it = by_arn_.find(holder.arn);
  if (it != by_arn_.end()) {
    if (it->second == holder) return;
    Count(it->second, -1);
  }
  holder.holds.erase(std::remove_if(holder.holds.begin(), holder.holds.end(),
                                    [](const Hold& hold) { return hold.count <= 0; }),
                     holder.holds.end());
  if (holder.holds.empty()) {
    if (it != by_arn_.end()) by_arn_.erase(it);
    return;
  }
  Count(holder, +1);
  if (it != by_arn_.end()) {
    it->second = std::move(holder);
    return;
  }
  std::string arn = holder.arn;
  by_arn_.emplace(std::move(arn), std::move(holder));
}

void Holdings::Remove(std::string_view arn) {
  auto it = by_arn_.find(arn);
  if (it == by_arn_.end()) return;
  Count(it->second, -1);
  by_arn_.erase(it);
}

void Holdings::Clear() {
  used_.clear();
  by_arn_.clear();
  by_plan_.clear();
  on_demand_.clear();
}

int Holdings::OnPlan(std::string_view plan_arn, std::string_view except_arn) const {
  auto it = by_plan_.find(ArnKey(plan_arn));
  const int all = it == by_plan_.end() ? 0 : it->second;
  if (except_arn.empty()) return all;
  const Holder* except = Find(except_arn);
  return all - (except ? HeldBy(except, except->region, "", plan_arn) : 0);
}

int Holdings::OnDemand(std::string_view region, std::string_view instance_type,
                       std::string_view except_arn) const {
  int all = 0;
  if (auto in_region = on_demand_.find(region); in_region != on_demand_.end()) {
    if (auto it = in_region->second.find(instance_type); it != in_region->second.end()) {
      all = it->second;
    }
  }
  if (except_arn.empty()) return all;
  return all - HeldBy(Find(except_arn), region, instance_type, "");
}

int Holdings::UsedBy(std::string_view account, std::string_view region, ResourceKind kind,
                     std::string_view instance_type) const {
  auto it = used_.find(UseKey(account, region, kind, instance_type));
  return it == used_.end() ? 0 : it->second;
}

const Holder* Holdings::Find(std::string_view arn) const {
  auto it = by_arn_.find(arn);
  return it == by_arn_.end() ? nullptr : &it->second;
}

std::vector<const Holder*> Holdings::All() const {
  std::vector<const Holder*> holders;
  holders.reserve(by_arn_.size());
  for (const auto& [arn, holder] : by_arn_) holders.push_back(&holder);
  std::stable_sort(holders.begin(), holders.end(),
                   [](const Holder* a, const Holder* b) { return a->kind < b->kind; });
  return holders;
}

}  // namespace smemu::domain
