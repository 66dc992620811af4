// The options the in-process end-to-end tests start a Server with: a free port, nothing on disk,
// two threads, a frozen clock at 2027-01-25T00:00:00Z, and every answer checked against the service
// model (--check-responses). Tests change what they exercise.
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
  options.check_responses = true;
  return options;
}

}  // namespace smemu::testing
