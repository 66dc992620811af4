// Who holds which instances right now, one line per holding, as the admin view and the metrics
// show it. The holdings themselves are domain::Holdings, kept in step with the store.
#pragma once

#include <string>
#include <vector>

#include "domain/holdings.hpp"

namespace smemu::ops {

// One endpoint variant or job holding instances, on a plan or on demand.
struct Holder {
  std::string arn;
  std::string kind;  // endpoint, training-job, processing-job
  std::string region;
  std::string instance_type;
  std::string training_plan_arn;  // empty: on-demand
  int count = 0;
};

// Every holding in `region` (all regions when empty), endpoints first, then jobs.
std::vector<Holder> HoldersIn(const domain::Holdings& holdings, const std::string& region);

}  // namespace smemu::ops
