// Time for the whole emulator. Only SystemClock reads the machine's clock; every other component is
// handed a Clock&. How long something took (a request's latency) is measured on a MonotonicClock,
// which never jumps when the machine's time is set; only SystemMonotonicClock reads the machine's
// steady clock. VirtualClock is the clock users and tests steer through the admin API: it runs
// from a chosen start, can be set forward, advanced and frozen. All methods are thread-safe.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>

#include "smemu/mutex.hpp"

namespace smemu {

// Milliseconds since the Unix epoch, UTC: the resolution AWS timestamps carry on the wire.
using TimePoint = std::chrono::time_point<std::chrono::system_clock, std::chrono::milliseconds>;
using Millis = std::chrono::milliseconds;

// The earlier of two optional moments; nullopt only when both are (a "next due" with none).
inline std::optional<TimePoint> Earliest(std::optional<TimePoint> a, std::optional<TimePoint> b) {
  if (!a) return b;
  if (!b) return a;
  return std::min(*a, *b);
}

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

class SystemClock final : public Clock {
 public:
  TimePoint Now() const override {
    return std::chrono::time_point_cast<Millis>(std::chrono::system_clock::now());
  }
};

// A clock a test moves by hand; it never moves by itself. Thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(TimePoint now) : now_(now) {}
  TimePoint Now() const override {
    MutexLock lock(mutex_);
    return now_;
  }
  void Set(TimePoint now) {
    MutexLock lock(mutex_);
    now_ = now;
  }
  void Advance(Millis by) {
    MutexLock lock(mutex_);
    now_ += by;
  }

 private:
  mutable Mutex mutex_;
  TimePoint now_ SMEMU_GUARDED_BY(mutex_);
};

// Monotonic time: for measuring how long something took, never for dates.
using SteadyTime = std::chrono::steady_clock::time_point;

class MonotonicClock {
 public:
  virtual ~MonotonicClock() = default;
  virtual SteadyTime Now() const = 0;
};

class SystemMonotonicClock final : public MonotonicClock {
 public:
  SteadyTime Now() const override { return std::chrono::steady_clock::now(); }
};

// Virtual time = base clock + offset while running, or a fixed instant while frozen. It never goes
// backwards through this interface: Set() refuses an earlier instant.
class VirtualClock final : public Clock {
 public:
  struct State {
    TimePoint now;
    bool frozen = false;
  };

  // `base` must outlive this clock. Starts at `start` (frozen or running from there).
  VirtualClock(const Clock& base, TimePoint start, bool frozen) : base_(base) {
    Reset(start, frozen);
  }

  TimePoint Now() const override {
    MutexLock lock(mutex_);
    return NowLocked();
  }

  State GetState() const {
    MutexLock lock(mutex_);
    return {NowLocked(), frozen_};
  }

  // Moves to `now`. Returns false (and changes nothing) when `now` is earlier than the current
  // time.
  bool Set(TimePoint now) {
    MutexLock lock(mutex_);
    if (now < NowLocked()) return false;
    MoveToLocked(now);
    return true;
  }

  // REQUIRES: by >= 0.
  void Advance(Millis by) {
    MutexLock lock(mutex_);
    MoveToLocked(NowLocked() + by);
  }

  void SetFrozen(bool frozen) {
    MutexLock lock(mutex_);
    const TimePoint now = NowLocked();
    frozen_ = frozen;
    MoveToLocked(now);
  }

  // Unconditionally moves to `start` with the given mode (used at start-up and by reset).
  void Reset(TimePoint start, bool frozen) {
    MutexLock lock(mutex_);
    frozen_ = frozen;
    MoveToLocked(start);
  }

 private:
  TimePoint NowLocked() const SMEMU_REQUIRES(mutex_) {
    return frozen_ ? frozen_at_ : base_.Now() + offset_;
  }
  void MoveToLocked(TimePoint now) SMEMU_REQUIRES(mutex_) {
    frozen_at_ = now;
    offset_ = now - base_.Now();
  }

  const Clock& base_;
  mutable Mutex mutex_;
  bool frozen_ SMEMU_GUARDED_BY(mutex_) = false;
  TimePoint frozen_at_ SMEMU_GUARDED_BY(mutex_){};
  Millis offset_ SMEMU_GUARDED_BY(mutex_){0};
};

}  // namespace smemu
