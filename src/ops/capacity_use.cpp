#include "ops/capacity_use.hpp"

namespace smemu::ops {

std::vector<Holder> HoldersIn(const domain::Holdings& holdings, const std::string& region) {
  std::vector<Holder> lines;
  for (const domain::Holder* holder : holdings.All()) {
    if (!region.empty() && holder->region != region) continue;
    for (const domain::Hold& hold : holder->holds) {
      lines.push_back({holder->arn, holder->kind, holder->region, hold.instance_type, hold.plan_arn,
                       hold.count});
    }
  }
  return lines;
}

}  // namespace smemu::ops
