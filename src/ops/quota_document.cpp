#include "ops/quota_document.hpp"

#include "domain/aws_names.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

constexpr int kMaxQuotaValue = 1000000;

domain::AwsError Invalid(const std::string& path, const std::string& problem) {
  return domain::ValidationException("quotas document: " + path + ": " + problem);
}

domain::Result<std::string> OptionalScope(const json& entry, const std::string& path,
                                          const char* member) {
  if (!entry.contains(member) || entry[member].is_null()) return std::string();
  if (!entry[member].is_string()) return Invalid(path + "." + member, "must be a string");
  const std::string value = entry[member];
  const bool ok = std::string_view(member) == "account" ? domain::IsAccountId(value)
                                                        : domain::IsRegionName(value);
  if (!ok) {
    return Invalid(
        path + "." + member,
        std::string("not a") +
            (std::string_view(member) == "account" ? " 12-digit account id" : " region name") +
            ": " + domain::Excerpt(value));
  }
  return value;
}

// Every quota name the emulator enforces, for the error that meets an unknown one.
std::string KnownQuotaNames() {
  std::string known;
  auto add = [&known](std::string_view name) {
    known += (known.empty() ? "'" : ", '") + std::string(name) + "'";
  };
  for (const domain::QuotaUse use : domain::QuotaUses()) {
    add(domain::PerTypeQuotaName(use, "<instance type>"));
  }
  for (const domain::QuotaUse use : domain::QuotaUses()) add(domain::TotalQuotaName(use));
  add(domain::kPerClusterQuota);
  add(domain::kPlanCountQuota);
  add(domain::ReservedCapacityQuotaName("<instance type>"));
  return known;
}

}  // namespace

domain::Result<QuotaDocument> ReadQuotaDocument(const json& doc) {
  if (!doc.is_object()) return Invalid("(document)", "must be a JSON object");
  QuotaDocument document;
  for (const auto& [key, value] : doc.items()) {
    if (key != "preset" && key != "quotas" && key != "$schema") {
      return Invalid(domain::Excerpt(key), "unknown member (expected preset, quotas)");
    }
  }
  if (doc.contains("preset")) {
    const json& preset = doc["preset"];
    if (!preset.is_string() || (preset != "new-account" && preset != "none")) {
      return Invalid("preset", "must be \"new-account\" or \"none\"");
    }
    document.preset = preset.get<std::string>();
  }
  if (!doc.contains("quotas")) return document;
  if (!doc["quotas"].is_array()) return Invalid("quotas", "must be an array");
  for (std::size_t i = 0; i < doc["quotas"].size(); ++i) {
    const json& entry = doc["quotas"][i];
    const std::string path = "quotas[" + std::to_string(i) + "]";
    if (!entry.is_object()) return Invalid(path, "must be an object");
    for (const auto& [key, value] : entry.items()) {
      if (key != "name" && key != "value" && key != "account" && key != "region") {
        return Invalid(path + "." + domain::Excerpt(key),
                       "unknown member (expected name, value, account, region)");
      }
    }
    if (!entry.contains("name") || !entry["name"].is_string()) {
      return Invalid(path + ".name", "is required and must be a string");
    }
    const std::string name = entry["name"];
    if (!domain::ParseQuotaName(name)) {
      return Invalid(path + ".name",
                     "unknown quota '" + domain::Excerpt(name) + "'. Known: " + KnownQuotaNames());
    }
    auto account = OptionalScope(entry, path, "account");
    if (!account) return account.error();
    auto region = OptionalScope(entry, path, "region");
    if (!region) return region.error();
    if (!entry.contains("value")) return Invalid(path + ".value", "is required (null removes it)");
    const json& value = entry["value"];
    domain::QuotaSetting setting{*account, *region, name, 0};
    if (value.is_null()) {
      document.unset.push_back(std::move(setting));
      continue;
    }
    if (!value.is_number_integer() || value.get<long long>() < 0 ||
        value.get<long long>() > kMaxQuotaValue) {
      return Invalid(path + ".value", "must be an integer from 0 to " +
                                          std::to_string(kMaxQuotaValue) + ", or null");
    }
    setting.value = value.get<int>();
    document.set.push_back(std::move(setting));
  }
  return document;
}

void ApplyQuotaDocument(const QuotaDocument& document, domain::QuotaTable& table) {
  if (document.preset) {
    table.Clear();
    if (*document.preset == "new-account") {
      for (domain::QuotaSetting& setting : domain::NewAccountQuotas()) table.Set(setting);
    }
  }
  for (const domain::QuotaSetting& setting : document.unset) {
    table.Unset(setting.account, setting.region, setting.name);
  }
  for (const domain::QuotaSetting& setting : document.set) table.Set(setting);
}

json QuotaSettingsJson(const domain::QuotaTable& table) {
  json quotas = json::array();
  for (const domain::QuotaSetting& setting : table.All()) {
    json entry = {{"name", setting.name}, {"value", setting.value}};
    if (!setting.account.empty()) entry["account"] = setting.account;
    if (!setting.region.empty()) entry["region"] = setting.region;
    quotas.push_back(std::move(entry));
  }
  return quotas;
}

domain::QuotaTable QuotaTableFromJson(const json& settings) {
  domain::QuotaTable table;
  if (!settings.is_array()) return table;
  for (const json& entry : settings) {
    table.Set({entry.value("account", ""), entry.value("region", ""), entry.value("name", ""),
               entry.value("value", 0)});
  }
  return table;
}

}  // namespace smemu::ops
