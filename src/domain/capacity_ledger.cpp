#include "domain/capacity_ledger.hpp"

#include <algorithm>

namespace smemu::domain {
std::map<TimePoint, int>::iterator CommitmentTimeline::Split(TimePoint time) {
  auto it = level_.lower_bound(time);
  if (it != level_.end() && it->first == time) return it;
  const int level = it == level_.begin() ? 0 : std::prev(it)->second;
  return level_.emplace_hint(it, time, level);
}

// Drops breakpoints in [from, to] that repeat the level before them, keeping the map minimal.
void CommitmentTimeline::Compact(std::map<TimePoint, int>::iterator from,
                                 std::map<TimePoint, int>::iterator to) {
  auto it = from;
  while (true) {
    const bool last = it == to;
    const int before = it == level_.begin() ? 0 : std::prev(it)->second;
    auto next = std::next(it);
    if (it->second == before) level_.erase(it);
    if (last || next == level_.end()) break;
    it = next;
  }
}

void CommitmentTimeline::Add(Window window, int count) {
  if (count == 0 || window.start >= window.end) return;
  auto first = Split(window.start);
  auto end = Split(window.end);
  for (auto it = first; it != end; ++it) it->second += count;
  Compact(first, end);
}

void CommitmentTimeline::AddAll(const std::vector<Commitment>& commitments) {
  // Every level change, the current breakpoints' included, as (time, change).
  std::vector<std::pair<TimePoint, int>> changes;
  changes.reserve(level_.size() + 2 * commitments.size());
  int previous = 0;
  for (const auto& [time, level] : level_) {
    changes.emplace_back(time, level - previous);
    previous = level;
  }
  for (const Commitment& commitment : commitments) {
    if (commitment.count == 0 || commitment.window.start >= commitment.window.end) continue;
    changes.emplace_back(commitment.window.start, commitment.count);
    changes.emplace_back(commitment.window.end, -commitment.count);
  }
  std::sort(changes.begin(), changes.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // A breakpoint only where the level differs from the one before it, as Compact keeps it.
  std::map<TimePoint, int> rebuilt;
  int level = 0;
  int kept = 0;
  for (size_t i = 0; i < changes.size();) {
    const TimePoint time = changes[i].first;
    for (; i < changes.size() && changes[i].first == time; ++i) level += changes[i].second;
    if (level == kept) continue;
    rebuilt.emplace_hint(rebuilt.end(), time, level);
    kept = level;
  }
  level_ = std::move(rebuilt);
}

int CommitmentTimeline::CommittedAt(TimePoint time) const {
  auto it = level_.upper_bound(time);
  return it == level_.begin() ? 0 : std::prev(it)->second;
}

int CommitmentTimeline::MaxCommitted(Window window) const {
  int highest = CommittedAt(window.start);
  for (auto it = level_.upper_bound(window.start); it != level_.end() && it->first < window.end;
       ++it) {
    highest = std::max(highest, it->second);
  }
  return highest;
}

std::vector<Window> CommitmentTimeline::Above(Window window, int limit) const {
  std::vector<Window> result;
  std::optional<TimePoint> open;
  auto visit = [&](TimePoint time, int level) {
    if (level > limit && !open) open = time;
    if (level <= limit && open) {
      result.push_back({*open, time});
      open.reset();
    }
  };
  visit(window.start, CommittedAt(window.start));
  for (auto it = level_.upper_bound(window.start); it != level_.end() && it->first < window.end;
       ++it) {
    visit(it->first, it->second);
  }
  if (open) result.push_back({*open, window.end});
  return result;
}

std::vector<std::pair<TimePoint, int>> CommitmentTimeline::Steps(Window window) const {
  std::vector<std::pair<TimePoint, int>> steps{{window.start, CommittedAt(window.start)}};
  for (auto it = level_.upper_bound(window.start); it != level_.end() && it->first < window.end;
       ++it) {
    steps.emplace_back(it->first, it->second);
  }
  return steps;
}

void CapacityLedger::SetPool(const PoolKey& key, int reservable, int on_demand) {
  Pool& pool = pools_[key];
  pool.reservable = reservable;
  pool.on_demand = on_demand;
}

const CapacityLedger::Pool* CapacityLedger::Find(const PoolKey& key) const {
  auto it = pools_.find(key);
  return it == pools_.end() ? nullptr : &it->second;
}

int CapacityLedger::FreeReservable(const PoolKey& key, Window window) const {
  const Pool* pool = Find(key);
  if (pool == nullptr) return 0;
  return std::max(0, pool->reservable - pool->reserved.MaxCommitted(window));
}

bool CapacityLedger::Reserve(const PoolKey& key, Window window, int count) {
  if (count <= 0 || window.start >= window.end || FreeReservable(key, window) < count) return false;
  pools_.at(key).reserved.Add(window, count);
  return true;
}

void CapacityLedger::Restore(const PoolKey& key, const std::vector<Commitment>& commitments) {
  pools_[key].reserved.AddAll(commitments);
}

void CapacityLedger::Release(const PoolKey& key, Window window, int count) {
  auto it = pools_.find(key);
  if (it != pools_.end()) it->second.reserved.Add(window, -count);
}

bool CapacityLedger::Hold(const PoolKey& key, Window window, int count, TimePoint lapses_at) {
  if (!Reserve(key, window, count)) return false;
  holds_.emplace(lapses_at, Held{key, window, count});
  return true;
}

void CapacityLedger::RestoreHold(const PoolKey& key, Window window, int count,
                                 TimePoint lapses_at) {
  if (count <= 0 || window.start >= window.end) return;
  pools_[key].reserved.Add(window, count);
  holds_.emplace(lapses_at, Held{key, window, count});
}

std::optional<TimePoint> CapacityLedger::ReleaseLapsed(TimePoint now) {
  while (!holds_.empty() && holds_.begin()->first <= now) {
    const Held& held = holds_.begin()->second;
    Release(held.key, held.window, held.count);
    holds_.erase(holds_.begin());
  }
  return NextLapse();
}

std::optional<TimePoint> CapacityLedger::NextLapse() const {
  if (holds_.empty()) return std::nullopt;
  return holds_.begin()->first;
}

std::vector<Window> CapacityLedger::FreeStretches(const PoolKey& key, Window range,
                                                  int count) const {
  std::vector<Window> free;
  const Pool* pool = Find(key);
  if (pool == nullptr || count > pool->reservable || range.start >= range.end) return free;
  // Free stretches are the gaps between the stretches where too much is committed.
  TimePoint cursor = range.start;
  for (const Window& busy : pool->reserved.Above(range, pool->reservable - count)) {
    if (cursor < busy.start) free.push_back({cursor, busy.start});
    cursor = busy.end;
  }
  if (cursor < range.end) free.push_back({cursor, range.end});
  return free;
}

std::vector<PoolKey> CapacityLedger::PoolsOf(const std::string& region,
                                             const std::string& instance_type) const {
  std::vector<PoolKey> keys;
  for (const auto& [key, pool] : pools_) {
    if (key.region == region && key.instance_type == instance_type) keys.push_back(key);
  }
  return keys;
}

}  // namespace smemu::domain
