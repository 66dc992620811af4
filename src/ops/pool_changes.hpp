// Run-time changes of pool counts (POST /_emulator/capacity), kept in the store's settings and
// applied in order over the capacity configuration whenever the ledger is built.
#pragma once

#include <optional>
#include <string>

#include "domain/capacity_ledger.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

// A run-time change of one pool's counts; unset counts are kept.
struct PoolChange {
  domain::PoolKey key;
  std::optional<int> reservable;
  std::optional<int> on_demand;
};

// Sets every changed pool in `ledger` as the saved changes say, oldest first.
void ApplySavedPoolChanges(const store::Tables& store, domain::CapacityLedger& ledger);
// The saved changes (the setting kPoolChangesSetting) with one more, the counts it results in.
std::string PoolChangesWith(const store::Tables& store, const domain::PoolKey& key, int reservable,
                            int on_demand);

}  // namespace smemu::ops
