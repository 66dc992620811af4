// A value that one writer changes while readers on other threads hold versions of it (the
// capacity ledger, the holdings, the quotas in force). The writer changes its own copy in place,
// so what it reads always follows what it wrote; Snapshot() hands out an immutable copy, made
// again only after a change; Restore() puts the writer's copy back to the last snapshot when
// what it changed since is rolled back.
#pragma once

#include <memory>
#include <utility>

namespace smemu::ops {

template <class T>
class Versioned {
 public:
  explicit Versioned(T value = T()) : value_(std::move(value)) {}

  const T& Read() const { return value_; }
  T& Write() {
    changed_ = true;
    return value_;
  }
  std::shared_ptr<const T> Snapshot() {
    if (changed_ || !snapshot_) {
      snapshot_ = std::make_shared<const T>(value_);
      changed_ = false;
    }
    return snapshot_;
  }
  void Restore() {
    if (!snapshot_) return;
    value_ = *snapshot_;
    changed_ = false;
  }

 private:
  T value_;
  std::shared_ptr<const T> snapshot_;
  bool changed_ = true;
};

}  // namespace smemu::ops
