// When the transport gives freed memory back to the system (a moment after a burst of connections
// has closed), and how: on every connection thread, as the allocator's policy needs
// (allocator.hpp).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "http/net.hpp"

namespace smemu::http {

// How long after a burst has ended memory is given back: the moment lets the rest of its
// connections close first.
inline constexpr std::chrono::milliseconds kTrimDelay{500};

// Watches the number of open connections for the end of a burst: a peak of at least
// kTrimAfterPeak connections, then a fall to 1/kTrimFraction of it. Thread-safe.
class BurstWatch {
 public:
  static constexpr std::size_t kTrimAfterPeak = 256;
  static constexpr std::size_t kTrimFraction = 8;

  // A connection opened: `open` are open now.
  void Opened(std::size_t open);
  // A connection closed, leaving `open`: the burst's peak when this ended one, else nullopt. Once
  // per burst: ending it starts the next peak from `open`. Always nullopt once stopped.
  std::optional<std::size_t> Closed(std::size_t open);
  // Shutdown began: no burst ends any more (the transport that would give memory back may be gone).
  void Stop();

 private:
  // The most connections open since memory was last given back.
  std::atomic<std::size_t> peak_{0};
  std::atomic<bool> stopped_{false};
};

// Gives freed memory back to the system: each thread of `contexts` (each runs one) shrinks its own
// arena, then the first context's finishes, and calls `done` with the process's resident memory
// before and after, in KiB (-1 when it cannot be read). Called on the first context's thread.
void GiveMemoryBack(const std::vector<net::io_context*>& contexts,
                    std::function<void(long long before_kib, long long after_kib)> done);

}  // namespace smemu::http
