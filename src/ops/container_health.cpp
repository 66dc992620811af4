#include "ops/container_health.hpp"

namespace smemu::ops {

ContainerHealth::ContainerHealth(ContainerProbe ping)
    : ping_(std::move(ping)), thread_([this] { Run(); }) {}

ContainerHealth::~ContainerHealth() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::optional<bool> ContainerHealth::Answer(const ContainerAddress& address) {
  std::lock_guard lock(mutex_);
  const Key key{address.host, address.port};
  if (const auto it = answers_.find(key); it != answers_.end()) return it->second;
  if (asked_.insert(key).second) {
    queue_.push_back(address);
    newly_asked_.push_back(address);
    wake_.notify_one();
  }
  return std::nullopt;
}

void ContainerHealth::Forget(const ContainerAddress& address) {
  std::lock_guard lock(mutex_);
  answers_.erase({address.host, address.port});
}

std::vector<ContainerAddress> ContainerHealth::TakeNewlyAsked() {
  std::lock_guard lock(mutex_);
  return std::exchange(newly_asked_, {});
}

void ContainerHealth::WaitFor(const std::vector<ContainerAddress>& addresses,
                              std::chrono::milliseconds limit) {
  std::unique_lock lock(mutex_);
  answered_.wait_for(lock, limit, [&] {
    for (const ContainerAddress& address : addresses) {
      if (asked_.count({address.host, address.port}) != 0) return false;
    }
    return true;
  });
}

void ContainerHealth::Run() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    const ContainerAddress address = queue_.front();
    queue_.pop_front();
    lock.unlock();
    const bool healthy = ping_(address);  // the only wait on a container, with no lock held
    lock.lock();
    const Key key{address.host, address.port};
    answers_[key] = healthy;
    asked_.erase(key);
    answered_.notify_all();
  }
}

}  // namespace smemu::ops
