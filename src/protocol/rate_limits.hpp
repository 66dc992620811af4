// AWS's request rates, off by default (--rate-limits): a token bucket per account, region and
// operation. A request finds its operation's limit (the first whose glob matches), takes a token
// from its bucket if one is there, and is refused otherwise with AWS's answer: ThrottlingException,
// HTTP 400, "Rate exceeded". Buckets fill on the MonotonicClock the router is given, so tests
// drive them without sleeping.
// Thread-safe: every transport thread asks the one instance.
#pragma once

#include <map>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "domain/aws_error.hpp"
#include "smemu/clock.hpp"
#include "smemu/mutex.hpp"

namespace smemu::protocol {

struct RateLimit {
  std::string operation;  // a name or a shell glob
  double per_second = 0;  // the bucket fills this fast
  double burst = 0;       // and holds at most this many
  std::string source;     // where the rate comes from (AWS's published quota, or "emulator")
};

// The rates of `--rate-limits aws`: AWS's where it publishes them, the emulator's own elsewhere
// (each entry's `source` says which).
std::vector<RateLimit> AwsRateLimits();

// Reads {"limits": [{"operation", "per_second", "burst"?}]} (schemas/rate-limits.schema.json);
// a problem is a ValidationException naming the entry.
domain::Result<std::vector<RateLimit>> ReadRateLimits(const nlohmann::json& doc);

class RateLimiter {
 public:
  explicit RateLimiter(std::vector<RateLimit> limits) : limits_(std::move(limits)) {}

  // Whether a request of `operation` by `account` in `region` may be served at `now`; takes a
  // token when it may. Operations no limit matches always may.
  bool Admit(std::string_view operation, std::string_view account, std::string_view region,
             SteadyTime now) SMEMU_EXCLUDES(mutex_);
  const std::vector<RateLimit>& limits() const { return limits_; }

 private:
  struct Bucket {
    double tokens = 0;
    SteadyTime filled{};
  };
  const std::vector<RateLimit> limits_;
  Mutex mutex_;
  std::map<std::tuple<std::string, std::string, std::string>, Bucket, std::less<>> buckets_
      SMEMU_GUARDED_BY(mutex_);
};

}  // namespace smemu::protocol
