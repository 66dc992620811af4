#include "http/allocator.hpp"

#include <atomic>
#include <cstdlib>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace smemu::http {

namespace {

// Set once by KeepAnswerMemory, before the threads start.
std::atomic<bool> answer_memory_kept{false};

#if defined(__GLIBC__)
// glibc starts its mmap and trim thresholds at 128 KiB and raises both only once it has freed a
// larger mapped block. Until then a List page's answer (84 KB for 100 training plans) came from
// pages the allocator had just given back to the kernel: at 64 connections ListTrainingPlans
// spent a quarter of its time in page faults, at 1,700-1,900 req/s instead of 5,000-6,000. These
// values are the ones glibc itself reaches once it has served the dashboard's largest answers
// (its maximum mmap threshold, and twice that to trim). Lower fixed ones made each 6 MB state
// view fault its pages in again (80 -> 160-190 ms at 10,000 plans).
constexpr int kMmapThreshold = 32 << 20;         // allocations below come from the arenas
constexpr int kTrimThreshold = 64 << 20;         // free memory an arena keeps at its top
constexpr int kGivingBackThreshold = 128 << 10;  // glibc's own starting trim threshold
// Freed at once, it joins its arena's top and makes free() consider trimming the arena (glibc
// does for a freed block of 64 KiB or more).
constexpr std::size_t kShrinkingBlock = 256 << 10;
#endif

}  // namespace

void KeepAnswerMemory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  answer_memory_kept = true;
#endif
}

bool BeginGivingMemoryBack() {
#if defined(__GLIBC__)
  if (!answer_memory_kept) return false;
  mallopt(M_TRIM_THRESHOLD, kGivingBackThreshold);
  return true;
#else
  return false;
#endif
}

void ShrinkThisThreadsArena() {
#if defined(__GLIBC__)
  void* volatile block = std::malloc(kShrinkingBlock);  // volatile: not elided with the free
  std::free(block);
#endif
}

void EndGivingMemoryBack() {
#if defined(__GLIBC__)
  if (answer_memory_kept) mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
  malloc_trim(0);
#endif
}

}  // namespace smemu::http
