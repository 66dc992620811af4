// The options the in-process end-to-end tests start a Server with: a free port, nothing on disk,
// two threads and a frozen clock at 2027-01-25T00:00:00Z. Tests change what they exercise.
#pragma once

#include "smemu/options.hpp"

namespace smemu::testing {

inline ServerOptions TestServerOptions() {
  ServerOptions options;
  options.port = 0;
  options.db_path = ":memory:";
  options.threads = 2;
  options.clock_start = TimePoint{Millis{1800835200000}};
  options.frozen_clock = true;
  return options;
}

}  // namespace smemu::testing
