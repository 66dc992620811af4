// Health checks of real inference containers (GET /ping), run on a thread of their own and never
// under the request lock: a provisioning that needs an answer asks for it and is tried again at a
// later settling, once the answer is in. The request whose settling asked waits for the answer
// after it has let go of the lock (Emulator), so its caller sees the outcome as before, while
// every other request goes on. A container that never answers holds up only that request and the
// checks queued behind it, for the ping's timeout.
// Thread-safe: any thread may call any method.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ops/context.hpp"

namespace smemu::ops {

class ContainerHealth {
 public:
  // `ping` (HostingOptions::probe) runs on the checking thread. A provisioning waiting for an
  // answer is due at every settling, so nothing needs telling when one comes in.
  explicit ContainerHealth(ContainerProbe ping);
  // Stops the thread once the ping in progress, if any, has answered or timed out.
  ~ContainerHealth();
  ContainerHealth(const ContainerHealth&) = delete;
  ContainerHealth& operator=(const ContainerHealth&) = delete;

  // The answer for `address` if it has come in; nullopt while it has not, and then a check is
  // asked for unless one is under way.
  std::optional<bool> Answer(const ContainerAddress& address);
  // Forgets the answer for `address` once a provisioning has acted on it: the next provisioning
  // checks again, as SageMaker pings each time it provisions instances.
  void Forget(const ContainerAddress& address);
  // The checks asked for since the last call (each asked once until it answers).
  std::vector<ContainerAddress> TakeNewlyAsked();
  // Waits until none of `addresses` is being checked any more, or `limit` has passed.
  void WaitFor(const std::vector<ContainerAddress>& addresses, std::chrono::milliseconds limit);

 private:
  using Key = std::pair<std::string, std::string>;  // host, port
  void Run();

  const ContainerProbe ping_;
  std::mutex mutex_;
  std::condition_variable wake_;      // a check was asked for, or the thread must stop
  std::condition_variable answered_;  // a check has answered
  std::deque<ContainerAddress> queue_;
  std::set<Key> asked_;  // queued or being pinged
  std::vector<ContainerAddress> newly_asked_;
  std::map<Key, bool> answers_;
  bool stopping_ = false;
  std::thread thread_;  // last: it starts once every member above exists
};

}  // namespace smemu::ops
