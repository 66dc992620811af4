// The capacity the emulator starts with: its pools (PoolSpec) and prices, gathered in a
// CapacityConfig (--capacity FILE or the built-in default).
// Plain data; parsing and checking live in src/config/capacity_config.*.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "domain/capacity_ledger.hpp"

namespace smemu::domain {

// A pool whose reservable instances are sold only as whole UltraServers ("You can only purchase
// UltraServers in full units"): `instances` of the pool's instance type under one NVLink domain.
struct UltraServerShape {
  std::string type;   // e.g. ml.u-p6e-gb200x72
  int instances = 0;  // per UltraServer, e.g. 18

  bool operator==(const UltraServerShape&) const = default;
};

struct PoolSpec {
  PoolKey key;
  int reservable = 0;
  int on_demand = 0;
  std::optional<UltraServerShape> ultraserver;  // sold as UltraServers only
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
