#include "http/memory_trim.hpp"

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include "http/allocator.hpp"

namespace smemu::http {
namespace {

// This process's resident memory in KiB (VmRSS), or -1 when it cannot be read.
long long ResidentKib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atoll(line.c_str() + 6);
  }
  return -1;
}

}  // namespace

void BurstWatch::Opened(std::size_t open) {
  std::size_t peak = peak_.load(std::memory_order_relaxed);
  while (open > peak && !peak_.compare_exchange_weak(peak, open, std::memory_order_relaxed)) {
  }
}

std::optional<std::size_t> BurstWatch::Closed(std::size_t open) {
  std::size_t peak = peak_.load(std::memory_order_relaxed);
  if (peak >= kTrimAfterPeak && open <= peak / kTrimFraction &&
      !stopped_.load(std::memory_order_acquire) &&
      peak_.compare_exchange_strong(peak, open, std::memory_order_relaxed)) {
    return peak;
  }
  return std::nullopt;
}

void BurstWatch::Stop() { stopped_ = true; }

void GiveMemoryBack(const std::vector<net::io_context*>& contexts,
                    std::function<void(long long before_kib, long long after_kib)> done) {
  const long long before = ResidentKib();
  auto finish = [before, done = std::move(done)] {
    EndGivingMemoryBack();
    done(before, ResidentKib());
  };
  if (!BeginGivingMemoryBack()) return finish();
  // Each connection thread shrinks its own arena; the last to do so has the first context's
  // thread finish.
  auto remaining = std::make_shared<std::atomic<std::size_t>>(contexts.size());
  net::io_context* const first = contexts.front();
  for (net::io_context* context : contexts) {
    net::post(*context, [remaining, first, finish] {
      ShrinkThisThreadsArena();
      if (remaining->fetch_sub(1) == 1) net::post(*first, finish);
    });
  }
}

}  // namespace smemu::http
