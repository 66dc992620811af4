// Request metrics for GET /_emulator/metrics: requests by operation and status, and a latency
// histogram by operation, rendered with the emulator's resource, capacity and quota gauges in the
// Prometheus text exposition format (version 0.0.4).
// Thread-safe: every transport thread records into one instance.
#pragma once

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ops/admin_views.hpp"
#include "smemu/mutex.hpp"

namespace smemu::protocol {

class RequestMetrics {
 public:
  // Upper bounds of the latency buckets, in seconds (+Inf is implied).
  static constexpr std::array<double, 14> kBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5};

  // `operation` must come from a bounded set (the caller maps anything else to "other"), since
  // each distinct value is a time series.
  void Record(const std::string& operation, int status, double seconds);
  // A fault rule fired on a request to `operation` (a served operation's name).
  void RecordFault(const std::string& rule, const std::string& operation);
  // A request to `operation` (a served operation's name) refused for its rate (--rate-limits).
  void RecordThrottled(const std::string& operation);

  // The whole exposition: these request metrics plus the gauges from `census`.
  std::string Render(const ops::AdminViews::Census& census) const;

 private:
  struct Latency {
    std::array<unsigned long long, kBuckets.size() + 1> counts{};  // the last one is +Inf
    double sum = 0;
    unsigned long long count = 0;
  };
  mutable Mutex mutex_;
  std::map<std::pair<std::string, int>, unsigned long long> requests_ SMEMU_GUARDED_BY(mutex_);
  std::map<std::string, Latency> latency_ SMEMU_GUARDED_BY(mutex_);
  std::map<std::pair<std::string, std::string>, unsigned long long> faults_
      SMEMU_GUARDED_BY(mutex_);
  std::map<std::string, unsigned long long> throttled_ SMEMU_GUARDED_BY(mutex_);
};

}  // namespace smemu::protocol
