#include "ops/faults.hpp"

#include <algorithm>
#include <set>

namespace smemu::ops {

FaultRules::Entry FaultRules::Fresh(domain::FaultRule rule, FaultSource source) {
  const std::uint64_t seed = rule.firing.seed;
  return {{std::move(rule), source, 0, 0}, std::mt19937_64(seed)};
}

bool FaultRules::Try(Entry& entry) {
  FaultRuleView& view = entry.view;
  ++view.matched;
  double draw = 0;
  if (view.rule.firing.kind == domain::FaultFiring::Kind::kProbability) {
    // The top 53 bits as a double in [0, 1): the same on every platform, unlike the standard
    // distributions, whose algorithms the library chooses.
    draw = static_cast<double>(entry.draws() >> 11) * 0x1.0p-53;
  }
  if (!domain::Fires(view.rule.firing, view.matched, view.fired, draw)) return false;
  ++view.fired;
  ++revision_;
  return true;
}

domain::Result<std::vector<domain::FaultRule>> FaultRules::Add(std::vector<domain::FaultRule> rules,
                                                               FaultSource source) {
  MutexLock lock(mutex_);
  std::set<std::string> taken;
  for (const Entry& entry : rules_) taken.insert(entry.view.rule.id);
  long long next = next_id_;
  for (domain::FaultRule& rule : rules) {
    if (rule.id.empty()) {
      while (taken.count("rule-" + std::to_string(next)) != 0) ++next;
      rule.id = "rule-" + std::to_string(next++);
    }
    if (!taken.insert(rule.id).second) {
      return domain::ValidationException("A fault rule with id '" + domain::Excerpt(rule.id) +
                                         "' exists already; remove it first or choose another.");
    }
  }
  next_id_ = next;
  for (const domain::FaultRule& rule : rules) rules_.push_back(Fresh(rule, source));
  ++revision_;
  return rules;
}

std::uint64_t FaultRules::Revision() const {
  MutexLock lock(mutex_);
  return revision_;
}

std::vector<FaultRuleView> FaultRules::List() const {
  MutexLock lock(mutex_);
  std::vector<FaultRuleView> views;
  views.reserve(rules_.size());
  for (const Entry& entry : rules_) views.push_back(entry.view);
  return views;
}

bool FaultRules::Remove(const std::string& id) {
  MutexLock lock(mutex_);
  const auto before = rules_.size();
  std::erase_if(rules_, [&id](const Entry& entry) { return entry.view.rule.id == id; });
  ++revision_;
  return rules_.size() != before;
}

std::size_t FaultRules::Clear() {
  MutexLock lock(mutex_);
  const std::size_t removed = rules_.size();
  rules_.clear();
  ++revision_;
  return removed;
}

void FaultRules::Reset() {
  MutexLock lock(mutex_);
  std::vector<Entry> kept;
  for (Entry& entry : rules_) {
    if (entry.view.source == FaultSource::kFile) {
      kept.push_back(Fresh(std::move(entry.view.rule), FaultSource::kFile));
    }
  }
  rules_ = std::move(kept);
  next_id_ = 1;
  ++revision_;
}

RequestFaults FaultRules::ForRequest(const domain::FaultSubject& subject) {
  RequestFaults faults;
  MutexLock lock(mutex_);
  for (Entry& entry : rules_) {
    const domain::FaultRule& rule = entry.view.rule;
    if (domain::StageOf(rule.action) != domain::FaultStage::kRequest) continue;
    if (!rule.scope.Matches(subject)) continue;
    if (const auto* latency = std::get_if<domain::LatencyFault>(&rule.action)) {
      if (faults.latency_rule.empty() && Try(entry)) {
        faults.latency = latency->delay;
        faults.latency_rule = rule.id;
      }
      continue;
    }
    if (Try(entry)) {
      faults.error = std::get<domain::ErrorFault>(rule.action).error;
      faults.error_rule = rule.id;
      break;
    }
  }
  return faults;
}

std::optional<domain::FaultAction> FaultRules::ForLifecycle(domain::FaultStage stage,
                                                            const domain::FaultSubject& subject) {
  MutexLock lock(mutex_);
  for (Entry& entry : rules_) {
    const domain::FaultRule& rule = entry.view.rule;
    if (domain::StageOf(rule.action) != stage || !rule.scope.Matches(subject)) continue;
    if (Try(entry)) return rule.action;
  }
  return std::nullopt;
}

}  // namespace smemu::ops

namespace smemu::ops {

std::vector<std::pair<std::string, domain::NodeFault>> FaultRules::NodeFaultsFor(
    const domain::FaultSubject& subject) const {
  std::vector<std::pair<std::string, domain::NodeFault>> faults;
  MutexLock lock(mutex_);
  for (const Entry& entry : rules_) {
    const domain::FaultRule& rule = entry.view.rule;
    const auto* fault = std::get_if<domain::NodeFault>(&rule.action);
    if (fault == nullptr) continue;
    domain::FaultScope scope = rule.scope;
    scope.operation = "*";
    if (scope.Matches(subject)) faults.emplace_back(rule.id, *fault);
  }
  return faults;
}

void FaultRules::NodeFailureApplied(const std::string& id) {
  MutexLock lock(mutex_);
  for (Entry& entry : rules_) {
    if (entry.view.rule.id != id) continue;
    ++entry.view.matched;
    ++entry.view.fired;
    ++revision_;
  }
}

std::optional<std::string> FaultRules::NoCapacityFor(const domain::FaultSubject& subject) {
  const auto fault = ForLifecycle(domain::FaultStage::kProvisioning, subject);
  if (!fault) return std::nullopt;
  return std::get<domain::NoCapacityFault>(*fault).instance_type;
}

}  // namespace smemu::ops
