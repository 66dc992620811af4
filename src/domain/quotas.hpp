// Account service quotas, as SageMaker names and enforces them: per account and region, a limit on
// the instances of a type that endpoints, training jobs, processing jobs or HyperPod clusters use
// ('ml.g5.12xlarge for endpoint usage'), account-wide totals ('Number of instances across all
// training jobs'), and limits on training plans. A request that would go over one is refused with
// ResourceLimitExceeded and AWS's sentence; nothing is limited until a quota is set. Plain data and
// pure functions; no I/O.
#pragma once

#include <climits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/aws_error.hpp"
#include "domain/holdings.hpp"
#include "domain/resource_kinds.hpp"

namespace smemu::domain {

// What uses instances, as the quota names say it: a kind with HasInstanceQuotas, whose words the
// kinds table holds (domain/resource_kinds.hpp).
using QuotaUse = ResourceKind;
// The kinds with instance quotas, in the table's order.
std::vector<QuotaUse> QuotaUses();

// '<instance type> for endpoint usage', '... for training job usage', ... REQUIRES:
// HasInstanceQuotas(use).
std::string PerTypeQuotaName(QuotaUse use, std::string_view instance_type);
// The account-wide total of a use: 'Number of instances across active endpoints', ...
// REQUIRES: HasInstanceQuotas(use).
std::string_view TotalQuotaName(QuotaUse use);
inline constexpr std::string_view kPerClusterQuota =
    "Maximum number instances allowed per SageMaker HyperPod cluster";  // sic: AWS's wording
inline constexpr std::string_view kPlanCountQuota = "Number of training plans per Region";
// 'Number of ml.p5.48xlarge instances in reserved capacity across training plans per Region'
std::string ReservedCapacityQuotaName(std::string_view instance_type);

// What a quota limits, read from its name.
struct QuotaSubject {
  enum class Scope { kPerType, kTotal, kPerCluster, kPlanCount, kReservedCapacity };
  Scope scope = Scope::kPerType;
  QuotaUse use = ResourceKind::kEndpoint;  // kPerType, kTotal (plans: kTrainingJob, unread)
  std::string instance_type;               // kPerType, kReservedCapacity
};
// nullopt for a name the emulator does not know (and so cannot enforce).
std::optional<QuotaSubject> ParseQuotaName(std::string_view name);

struct QuotaSetting {
  std::string account;  // empty: every account
  std::string region;   // empty: every region
  std::string name;
  int value = 0;

  bool operator==(const QuotaSetting&) const = default;
};

// The quotas set, most specific first: a setting for the account and region wins over one for
// the account, which wins over one for the region, which wins over one for every caller.
class QuotaTable {
 public:
  // Replaces the setting of the same account, region and name.
  void Set(QuotaSetting setting);
  // Removes the setting of the same account, region and name; false when there was none.
  bool Unset(const std::string& account, const std::string& region, const std::string& name);
  void Clear() { settings_.clear(); }
  bool empty() const { return settings_.empty(); }

  // The setting of `name` in force for `account` in `region`: the most specific that applies.
  std::optional<QuotaSetting> InForce(std::string_view account, std::string_view region,
                                      std::string_view name) const;
  std::optional<int> Limit(std::string_view account, std::string_view region,
                           std::string_view name) const;
  // Every setting, ordered by name, account and region.
  std::vector<QuotaSetting> All() const;

 private:
  // name -> (account, region) -> value
  std::map<std::string, std::map<std::pair<std::string, std::string>, int>, std::less<>> settings_;
};

// The preset that reproduces a new AWS account: 0 instances of every GPU and accelerator type for
// endpoints, training jobs, processing jobs and clusters.
std::vector<QuotaSetting> NewAccountQuotas();

// The refusal, in AWS's words: "The account-level service limit '<name>' is <limit> Instances, with
// current utilization of <used> Instances and a request delta of <delta> Instances. Please use AWS
// Service Quotas to request an increase for this quota. ..."
AwsError QuotaExceeded(std::string_view name, int limit, int used, int delta,
                       std::string_view unit = "Instances");

// Refuses `delta` more on top of `used` when the quota `name` is set for the account and region
// and does not allow it. A request that takes nothing more (a scale-down) is always allowed.
Status CheckLimit(const QuotaTable& quotas, std::string_view account, std::string_view region,
                  std::string_view name, int used, int delta, std::string_view unit = "Instances");

// Instances that `owner` may still take of a type for a use under the quotas, given only what is
// held (`holdings`); INT_MAX when nothing limits it. The job scheduler skips an option that does
// not fit, as it skips one without capacity.
int QuotaRoom(const QuotaTable& quotas, const Holdings& holdings, std::string_view account,
              std::string_view region, QuotaUse use, std::string_view instance_type);

}  // namespace smemu::domain
