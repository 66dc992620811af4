#include "protocol/rate_limits.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "domain/faults.hpp"

namespace smemu::protocol {

std::vector<RateLimit> AwsRateLimits() {
  return {
      // Service Quotas lists ListTrainingJobs at 2 requests per second per account and region, not
      // adjustable (as quoted in aws-solutions/deepracer-on-aws#87); AWS's documentation publishes
      // no SageMaker API rate.
      {"ListTrainingJobs", 2, 2, "AWS Service Quotas (account-level, not adjustable)"},
      // The emulator's own choices, modest enough that a poller without backoff meets them.
      {"List*", 10, 10, "emulator"},
      {"Describe*", 20, 20, "emulator"},
      {"Search*", 10, 10, "emulator"},
      {"Create*", 5, 5, "emulator"},
      {"Update*", 5, 5, "emulator"},
      {"Delete*", 5, 5, "emulator"},
      {"Stop*", 5, 5, "emulator"},
      {"Extend*", 5, 5, "emulator"},
  };
}

domain::Result<std::vector<RateLimit>> ReadRateLimits(const nlohmann::json& doc) {
  auto fail = [](std::size_t index, const std::string& what) {
    return domain::ValidationException("Rate limit " + std::to_string(index + 1) + " " + what +
                                       ".");
  };
  if (!doc.is_object() || !doc.contains("limits") || !doc["limits"].is_array()) {
    return domain::ValidationException(
        "A rate-limit document is {\"limits\": [{\"operation\", \"per_second\", \"burst\"?}]}.");
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "limits" && key != "$schema") {
      return domain::ValidationException("Unknown member '" + domain::Excerpt(key) + "'.");
    }
  }
  std::vector<RateLimit> limits;
  const nlohmann::json& entries = doc["limits"];
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const nlohmann::json& entry = entries[i];
    if (!entry.is_object()) return fail(i, "must be an object");
    for (const auto& [key, value] : entry.items()) {
      if (key != "operation" && key != "per_second" && key != "burst") {
        return fail(i, "has an unknown member '" + domain::Excerpt(key) + "'");
      }
    }
    RateLimit limit;
    if (!entry.contains("operation") || !entry["operation"].is_string() ||
        entry["operation"].get_ref<const std::string&>().empty()) {
      return fail(i, "must name its 'operation' (a name or a glob)");
    }
    limit.operation = entry["operation"];
    if (!entry.contains("per_second") || !entry["per_second"].is_number() ||
        !(entry["per_second"].get<double>() > 0 && entry["per_second"].get<double>() <= 1e6)) {
      return fail(i, "'per_second' must be a number above 0 and at most 1000000");
    }
    limit.per_second = entry["per_second"];
    limit.burst = std::max(1.0, limit.per_second);
    if (entry.contains("burst")) {
      if (!entry["burst"].is_number() ||
          !(entry["burst"].get<double>() >= 1 && entry["burst"].get<double>() <= 1e6)) {
        return fail(i, "'burst' must be a number from 1 to 1000000");
      }
      limit.burst = entry["burst"];
    }
    limit.source = "file";
    limits.push_back(std::move(limit));
  }
  return limits;
}

bool RateLimiter::Admit(std::string_view operation, std::string_view account,
                        std::string_view region, SteadyTime now) {
  const RateLimit* limit = nullptr;
  for (const RateLimit& candidate : limits_) {
    if (domain::GlobMatches(candidate.operation, operation)) {
      limit = &candidate;
      break;
    }
  }
  if (limit == nullptr) return true;
  MutexLock lock(mutex_);
  auto [it, fresh] =
      buckets_.try_emplace({std::string(account), std::string(region), std::string(operation)},
                           Bucket{limit->burst, now});
  Bucket& bucket = it->second;
  if (!fresh && now > bucket.filled) {
    const double elapsed = std::chrono::duration<double>(now - bucket.filled).count();
    bucket.tokens = std::min(limit->burst, bucket.tokens + elapsed * limit->per_second);
    bucket.filled = now;
  }
  if (bucket.tokens < 1) return false;
  bucket.tokens -= 1;
  return true;
}

}  // namespace smemu::protocol
