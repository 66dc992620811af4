// FaultRules: the fault rules in force, with how often each matched and fired. Rules come from
// the --faults file (kept by a reset, which starts them over) or from the admin API at run time
// (dropped by a reset). They are tried in the order added; each keeps its own count of matches
// and its own seeded generator, so a run that sends the same requests fires the same way.
// Thread-safe: the router tries request rules on any transport thread, the handlers try lifecycle
// rules under the emulator's lock.
#pragma once

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "domain/faults.hpp"
#include "smemu/mutex.hpp"

namespace smemu::ops {

enum class FaultSource { kFile, kRunTime };

// A rule as listed: the rule, where it came from, and its counts since it was added (or since the
// last reset, for a rule of the file).
struct FaultRuleView {
  domain::FaultRule rule;
  FaultSource source = FaultSource::kRunTime;
  long long matched = 0;
  long long fired = 0;
};

// What the rules decided for one request: an error to answer instead, a latency to add, or both
// (the latency first). The ids name the rules that fired.
struct RequestFaults {
  std::optional<domain::AwsError> error;
  std::string error_rule;
  Millis latency{0};
  std::string latency_rule;
};

class FaultRules {
 public:
  // Adds `rules` after those in force; a rule without an id gets "rule-<n>". Refuses the lot
  // (a ValidationException) when an id is taken or repeated.
  domain::Result<std::vector<domain::FaultRule>> Add(std::vector<domain::FaultRule> rules,
                                                     FaultSource source) SMEMU_EXCLUDES(mutex_);
  std::vector<FaultRuleView> List() const SMEMU_EXCLUDES(mutex_);
  // Removes the rule `id`; false when there is none.
  bool Remove(const std::string& id) SMEMU_EXCLUDES(mutex_);
  // Removes every rule, the file's too. Returns how many were removed.
  std::size_t Clear() SMEMU_EXCLUDES(mutex_);
  // Drops the rules added at run time; the file's start over (counts and draws).
  void Reset() SMEMU_EXCLUDES(mutex_);

  // Moves whenever the rules or their counts change (the state view's version follows it).
  std::uint64_t Revision() const SMEMU_EXCLUDES(mutex_);

  // The request rules for `subject`, tried in order: the first latency rule that fires adds its
  // latency, the first error rule that fires answers its error and ends the trying.
  RequestFaults ForRequest(const domain::FaultSubject& subject) SMEMU_EXCLUDES(mutex_);
  // The first rule of `stage` (not kRequest) that matches `subject` and fires; nullopt when none.
  std::optional<domain::FaultAction> ForLifecycle(domain::FaultStage stage,
                                                  const domain::FaultSubject& subject)
      SMEMU_EXCLUDES(mutex_);
  // The node failures of the rules whose account, region and resource match the cluster
  // `subject` names (the operation is not looked at), with each rule's id. A rule counts a match
  // and a firing when a failure is applied (NodeFailureApplied), not here.
  std::vector<std::pair<std::string, domain::NodeFault>> NodeFaultsFor(
      const domain::FaultSubject& subject) const SMEMU_EXCLUDES(mutex_);
  // Counts the rule `id`'s failure, applied to one cluster.
  void NodeFailureApplied(const std::string& id) SMEMU_EXCLUDES(mutex_);
  // The instance types (a glob) a provisioning by `subject.operation` of the resource
  // `subject.resource` finds no on-demand capacity of, when a no_capacity rule fires for it.
  std::optional<std::string> NoCapacityFor(const domain::FaultSubject& subject)
      SMEMU_EXCLUDES(mutex_);

 private:
  struct Entry {
    FaultRuleView view;
    std::mt19937_64 draws;
  };
  static Entry Fresh(domain::FaultRule rule, FaultSource source);
  // Counts a match of `entry` and says whether it fires.
  bool Try(Entry& entry) SMEMU_REQUIRES(mutex_);

  mutable Mutex mutex_;
  std::vector<Entry> rules_ SMEMU_GUARDED_BY(mutex_);
  long long next_id_ SMEMU_GUARDED_BY(mutex_) = 1;
  std::uint64_t revision_ SMEMU_GUARDED_BY(mutex_) = 0;
};

}  // namespace smemu::ops
