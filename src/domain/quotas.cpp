#include "domain/quotas.hpp"

#include <algorithm>
#include <array>

namespace smemu::domain {
namespace {

const InstanceQuotaNames& NamesOf(QuotaUse use) {
  return kResourceKinds[static_cast<std::size_t>(use)].quotas;
}

std::string UseSuffix(QuotaUse use) { return std::string(" for ") + NamesOf(use).usage; }

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

bool IsInstanceTypeName(std::string_view type) {
  return type.size() > 3 && type.substr(0, 3) == "ml." && type.find(' ') == std::string_view::npos;
}

// The GPU and accelerator types a new account cannot use until it asks for more (AWS's defaults
// for them are 0 for every use).
constexpr const char* kAcceleratedTypes[] = {
    "ml.p4d.24xlarge",   "ml.p4de.24xlarge",    "ml.p5.48xlarge",        "ml.p5e.48xlarge",
    "ml.p5en.48xlarge",  "ml.p6-b200.48xlarge", "ml.p6e-gb200.36xlarge", "ml.trn1.32xlarge",
    "ml.trn1n.32xlarge", "ml.trn2.48xlarge",    "ml.g5.xlarge",          "ml.g5.2xlarge",
    "ml.g5.4xlarge",     "ml.g5.8xlarge",       "ml.g5.12xlarge",        "ml.g5.16xlarge",
    "ml.g5.24xlarge",    "ml.g5.48xlarge",      "ml.g6.xlarge",          "ml.g6.2xlarge",
    "ml.g6.4xlarge",     "ml.g6.8xlarge",       "ml.g6.12xlarge",        "ml.g6.16xlarge",
    "ml.g6.24xlarge",    "ml.g6.48xlarge",      "ml.g6e.xlarge",         "ml.g6e.2xlarge",
    "ml.g6e.4xlarge",    "ml.g6e.8xlarge",      "ml.g6e.12xlarge",       "ml.g6e.16xlarge",
    "ml.g6e.24xlarge",   "ml.g6e.48xlarge"};

}  // namespace

std::vector<QuotaUse> QuotaUses() {
  std::vector<QuotaUse> uses;
  for (const ResourceKindName& entry : kResourceKinds) {
    if (HasInstanceQuotas(entry.kind)) uses.push_back(entry.kind);
  }
  return uses;
}

std::string PerTypeQuotaName(QuotaUse use, std::string_view instance_type) {
  return std::string(instance_type) + std::string(UseSuffix(use));
}

std::string_view TotalQuotaName(QuotaUse use) { return NamesOf(use).total; }

std::string ReservedCapacityQuotaName(std::string_view instance_type) {
  return "Number of " + std::string(instance_type) +
         " instances in reserved capacity across training plans per Region";
}

std::optional<QuotaSubject> ParseQuotaName(std::string_view name) {
  using Scope = QuotaSubject::Scope;
  if (name == kPerClusterQuota) return QuotaSubject{Scope::kPerCluster, ResourceKind::kCluster, ""};
  // Plans serve every use; their scopes read only `instance_type`.
  if (name == kPlanCountQuota)
    return QuotaSubject{Scope::kPlanCount, ResourceKind::kTrainingJob, ""};
  for (QuotaUse use : QuotaUses()) {
    if (name == TotalQuotaName(use)) return QuotaSubject{Scope::kTotal, use, ""};
    const std::string suffix = UseSuffix(use);
    if (EndsWith(name, suffix)) {
      const std::string_view type = name.substr(0, name.size() - suffix.size());
      if (IsInstanceTypeName(type)) return QuotaSubject{Scope::kPerType, use, std::string(type)};
    }
  }
  constexpr std::string_view kPlanPrefix = "Number of ";
  constexpr std::string_view kPlanSuffix =
      " instances in reserved capacity across training plans per Region";
  if (name.size() > kPlanPrefix.size() + kPlanSuffix.size() &&
      name.substr(0, kPlanPrefix.size()) == kPlanPrefix && EndsWith(name, kPlanSuffix)) {
    const std::string_view type =
        name.substr(kPlanPrefix.size(), name.size() - kPlanPrefix.size() - kPlanSuffix.size());
    if (IsInstanceTypeName(type)) {
      return QuotaSubject{Scope::kReservedCapacity, ResourceKind::kTrainingJob, std::string(type)};
    }
  }
  return std::nullopt;
}

void QuotaTable::Set(QuotaSetting setting) {
  settings_[setting.name][{setting.account, setting.region}] = setting.value;
}

bool QuotaTable::Unset(const std::string& account, const std::string& region,
                       const std::string& name) {
  auto it = settings_.find(name);
  if (it == settings_.end() || it->second.erase({account, region}) == 0) return false;
  if (it->second.empty()) settings_.erase(it);
  return true;
}

std::optional<QuotaSetting> QuotaTable::InForce(std::string_view account, std::string_view region,
                                                std::string_view name) const {
  auto it = settings_.find(name);
  if (it == settings_.end()) return std::nullopt;
  const auto& by_scope = it->second;
  for (const auto& scope : {std::pair<std::string_view, std::string_view>{account, region},
                            {account, ""},
                            {"", region},
                            {"", ""}}) {
    const std::pair<std::string, std::string> key{scope.first, scope.second};
    if (auto found = by_scope.find(key); found != by_scope.end()) {
      return QuotaSetting{key.first, key.second, it->first, found->second};
    }
  }
  return std::nullopt;
}

std::optional<int> QuotaTable::Limit(std::string_view account, std::string_view region,
                                     std::string_view name) const {
  const auto setting = InForce(account, region, name);
  if (!setting) return std::nullopt;
  return setting->value;
}

std::vector<QuotaSetting> QuotaTable::All() const {
  std::vector<QuotaSetting> all;
  for (const auto& [name, by_scope] : settings_) {
    for (const auto& [scope, value] : by_scope) {
      all.push_back({scope.first, scope.second, name, value});
    }
  }
  return all;
}

std::vector<QuotaSetting> NewAccountQuotas() {
  std::vector<QuotaSetting> preset;
  for (const char* type : kAcceleratedTypes) {
    for (QuotaUse use : QuotaUses()) preset.push_back({"", "", PerTypeQuotaName(use, type), 0});
  }
  return preset;
}

AwsError QuotaExceeded(std::string_view name, int limit, int used, int delta,
                       std::string_view unit) {
  auto amount = [unit](int count) {
    return std::to_string(count) + (unit.empty() ? "" : " " + std::string(unit));
  };
  return ResourceLimitExceeded(
      "The account-level service limit '" + Excerpt(name) + "' is " + amount(limit) +
      ", with current utilization of " + amount(used) + " and a request delta of " + amount(delta) +
      ". Please use AWS Service Quotas to request an increase for this quota. If AWS Service "
      "Quotas is not available, contact AWS support to request an increase for this quota.");
}

Status CheckLimit(const QuotaTable& quotas, std::string_view account, std::string_view region,
                  std::string_view name, int used, int delta, std::string_view unit) {
  if (delta <= 0) return Ok();
  if (auto limit = quotas.Limit(account, region, name); limit && used + delta > *limit) {
    return QuotaExceeded(name, *limit, used, delta, unit);
  }
  return Ok();
}

int QuotaRoom(const QuotaTable& quotas, const Holdings& holdings, std::string_view account,
              std::string_view region, QuotaUse use, std::string_view instance_type) {
  int room = INT_MAX;
  if (auto limit = quotas.Limit(account, region, PerTypeQuotaName(use, instance_type))) {
    room = std::min(room, *limit - holdings.UsedBy(account, region, use, instance_type));
  }
  if (auto limit = quotas.Limit(account, region, TotalQuotaName(use))) {
    room = std::min(room, *limit - holdings.UsedBy(account, region, use));
  }
  return room;
}

}  // namespace smemu::domain
