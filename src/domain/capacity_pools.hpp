// The capacity the emulator starts with: its pools (PoolSpec) and prices, gathered in a
// CapacityConfig (--capacity FILE or the built-in default).
// Plain data; parsing and checking live in src/config/capacity_config.*.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "domain/capacity_ledger.hpp"

namespace smemu::domain {

struct PoolSpec {
  PoolKey key;
  int reservable = 0;
  int on_demand = 0;
};

struct Prices {
  double on_demand_hourly = 0;
  double plan_hourly = 0;
};

struct CapacityConfig {
  std::vector<PoolSpec> pools;
  std::map<std::string, Prices> prices;  // by instance type
};

}  // namespace smemu::domain
