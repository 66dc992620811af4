#include "ops/pool_changes.hpp"

#include <nlohmann/json.hpp>

#include "ops/record_codec.hpp"
#include "ops/settings.hpp"

namespace smemu::ops {

void ApplySavedPoolChanges(const store::Tables& store, domain::CapacityLedger& ledger) {
  const auto saved = store.GetSetting(kPoolChangesSetting);
  if (!saved) return;
  codec::DecodingSetting(kPoolChangesSetting, *saved, [&ledger](const nlohmann::json& changes) {
    for (const auto& pool : changes) {
      ledger.SetPool({pool.at("region"), pool.at("availability_zone"), pool.at("instance_type")},
                     pool.at("reservable"), pool.at("on_demand"));
    }
    return true;
  });
}

std::string PoolChangesWith(const store::Tables& store, const domain::PoolKey& key, int reservable,
                            int on_demand) {
  nlohmann::json saved = nlohmann::json::array();
  if (auto previous = store.GetSetting(kPoolChangesSetting)) {
    saved = codec::DecodingSetting(kPoolChangesSetting, *previous,
                                   [](const nlohmann::json& changes) { return changes; });
  }
  saved.push_back({{"region", key.region},
                   {"availability_zone", key.availability_zone},
                   {"instance_type", key.instance_type},
                   {"reservable", reservable},
                   {"on_demand", on_demand}});
  return saved.dump();
}

}  // namespace smemu::ops
