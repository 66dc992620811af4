// CapacityLedger: how many instances of each pool (region, availability zone, instance type) are
// committed to reservations over time, and the questions asked of it: how many are free over a
// window, and where the next windows with enough free instances start.
//
// Each pool keeps its commitments as a step function (sorted breakpoints -> committed count), so a
// query costs O(log n + k) for k breakpoints inside the window, never a scan of all reservations.
// Plain data, no I/O; rebuilt from the store at start. Not thread-safe: its owner serialises
// access.
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "smemu/clock.hpp"

namespace smemu::domain {

struct PoolKey {
  std::string region;
  std::string availability_zone;
  std::string instance_type;
  auto operator<=>(const PoolKey&) const = default;
};

// [start, end)
struct Window {
  TimePoint start;
  TimePoint end;
  bool operator==(const Window&) const = default;
};

// `count` instances committed over `window`.
struct Commitment {
  Window window;
  int count = 0;
};

// A step function of committed instances over time.
class CommitmentTimeline {
 public:
  // Adds `count` instances over [start, end). A negative count releases them.
  // REQUIRES: start < end.
  void Add(Window window, int count);
  // The same step function as Add for each commitment in turn (empty windows and zero counts are
  // skipped), built in one sort and one pass: Add splits and compacts the breakpoints under
  // every window, which rebuilding the ledger of 10,000 plans at start paid 10,000 times.
  void AddAll(const std::vector<Commitment>& commitments);
  int CommittedAt(TimePoint time) const;
  // The largest commitment at any instant of [start, end). REQUIRES: start < end.
  int MaxCommitted(Window window) const;
  // The maximal sub-windows of `window` in which more than `limit` instances are committed.
  std::vector<Window> Above(Window window, int limit) const;
  // (time, committed from then on) for every change inside `window`, starting with its start.
  std::vector<std::pair<TimePoint, int>> Steps(Window window) const;
  bool empty() const { return level_.empty(); }

 private:
  // Ensures a breakpoint exists at `time` and returns it.
  std::map<TimePoint, int>::iterator Split(TimePoint time);
  void Compact(std::map<TimePoint, int>::iterator from, std::map<TimePoint, int>::iterator to);

  std::map<TimePoint, int> level_;  // committed from each key until the next; 0 before the first
};

class CapacityLedger {
 public:
  struct Pool {
    int reservable = 0;  // instances that can be sold as reservations
    int on_demand = 0;   // instances available without a reservation
    CommitmentTimeline reserved;
  };

  // Creates the pool or changes its counts; commitments are kept.
  void SetPool(const PoolKey& key, int reservable, int on_demand);
  const Pool* Find(const PoolKey& key) const;
  const std::map<PoolKey, Pool>& pools() const { return pools_; }

  // Reservable instances free during the whole window; 0 for an unknown pool.
  int FreeReservable(const PoolKey& key, Window window) const;
  // Commits `count` reservable instances over the window if they are all free; else changes
  // nothing.
  bool Reserve(const PoolKey& key, Window window, int count);
  // Records a pool's commitments without checking its size (rebuilding from stored, sold plans).
  void Restore(const PoolKey& key, const std::vector<Commitment>& commitments);
  void Release(const PoolKey& key, Window window, int count);
  // Commits as Reserve does, and gives the instances back once the clock reaches `lapses_at`
  // (ReleaseLapsed): a purchase whose payment is going to fail holds its capacity while it is
  // Pending, as any purchase does, so that no one else can buy it meanwhile.
  bool Hold(const PoolKey& key, Window window, int count, TimePoint lapses_at);
  // Records a hold without checking the pool's size (rebuilding from stored purchases).
  void RestoreHold(const PoolKey& key, Window window, int count, TimePoint lapses_at);
  // Gives back every hold that lapsed by `now`; returns when the next one lapses.
  std::optional<TimePoint> ReleaseLapsed(TimePoint now);
  // When the next hold lapses; nullopt when none is held.
  std::optional<TimePoint> NextLapse() const;

  // The maximal stretches of `range` in which `count` reservable instances are free throughout,
  // in time order; none for an unknown pool or a count above its size.
  std::vector<Window> FreeStretches(const PoolKey& key, Window range, int count) const;

  // The pools of one instance type in a region, in availability-zone order.
  std::vector<PoolKey> PoolsOf(const std::string& region, const std::string& instance_type) const;

 private:
  struct Held {
    PoolKey key;
    Window window;
    int count = 0;
  };

  std::map<PoolKey, Pool> pools_;
  std::multimap<TimePoint, Held> holds_;  // by when each lapses
};

}  // namespace smemu::domain
