#include "ops/pool_changes.hpp"

#include <nlohmann/json.hpp>

#include "ops/record_codec.hpp"

namespace smemu::ops {
namespace {

constexpr const char* kCapacitySetting = "capacity_changes";

}  // namespace

void ApplySavedPoolChanges(const store::StateStore& store, domain::CapacityLedger& ledger) {
  const auto saved = store.GetSetting(kCapacitySetting);
  if (!saved) return;
  codec::DecodingSetting(kCapacitySetting, *saved, [&ledger](const nlohmann::json& changes) {
    for (const auto& pool : changes) {
      ledger.SetPool({pool.at("region"), pool.at("availability_zone"), pool.at("instance_type")},
                     pool.at("reservable"), pool.at("on_demand"));
    }
    return true;
  });
}

void SavePoolChange(store::StateStore& store, const domain::PoolKey& key, int reservable,
                    int on_demand) {
  nlohmann::json saved = nlohmann::json::array();
  if (auto previous = store.GetSetting(kCapacitySetting)) {
    saved = codec::DecodingSetting(kCapacitySetting, *previous,
                                   [](const nlohmann::json& changes) { return changes; });
  }
  saved.push_back({{"region", key.region},
                   {"availability_zone", key.availability_zone},
                   {"instance_type", key.instance_type},
                   {"reservable", reservable},
                   {"on_demand", on_demand}});
  store.PutSetting(kCapacitySetting, saved.dump());
}

}  // namespace smemu::ops
