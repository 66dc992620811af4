// A mutex the compiler checks. Clang's thread-safety analysis (-Wthread-safety, on in every clang
// build: the fuzz build compiles all of src/ with it) proves at compile time that data marked
// SMEMU_GUARDED_BY(m) is touched only with m held, and that a function marked SMEMU_REQUIRES(m)
// is called only with m held. std::mutex carries no annotations in libstdc++, so this wraps it.
// Other compilers see plain std::mutex and std::lock_guard.
#pragma once

#include <condition_variable>
#include <mutex>

#if defined(__clang__)
#define SMEMU_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SMEMU_THREAD_ANNOTATION(x)
#endif

#define SMEMU_CAPABILITY(x) SMEMU_THREAD_ANNOTATION(capability(x))
#define SMEMU_SCOPED_CAPABILITY SMEMU_THREAD_ANNOTATION(scoped_lockable)
#define SMEMU_GUARDED_BY(x) SMEMU_THREAD_ANNOTATION(guarded_by(x))
#define SMEMU_PT_GUARDED_BY(x) SMEMU_THREAD_ANNOTATION(pt_guarded_by(x))
#define SMEMU_REQUIRES(...) SMEMU_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define SMEMU_EXCLUDES(...) SMEMU_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define SMEMU_ACQUIRE(...) SMEMU_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define SMEMU_RELEASE(...) SMEMU_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define SMEMU_NO_THREAD_SAFETY_ANALYSIS SMEMU_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace smemu {

class SMEMU_CAPABILITY("mutex") Mutex {
 public:
  void lock() SMEMU_ACQUIRE() { mutex_.lock(); }
  void unlock() SMEMU_RELEASE() { mutex_.unlock(); }

 private:
  friend class MutexLock;
  std::mutex mutex_;
};

// Holds a Mutex for its scope, like std::unique_lock: it can be released and taken again, and a
// condition variable can wait on it.
class SMEMU_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mutex) SMEMU_ACQUIRE(mutex) : lock_(mutex.mutex_) {}
  ~MutexLock() SMEMU_RELEASE() = default;
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  void Unlock() SMEMU_RELEASE() { lock_.unlock(); }
  void Lock() SMEMU_ACQUIRE() { lock_.lock(); }

  // Waits on `condition` until `ready()` holds; the mutex is released while waiting and held
  // again when `ready()` is called and when this returns.
  template <class Ready>
  void Wait(std::condition_variable& condition, Ready ready) {
    condition.wait(lock_, ready);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace smemu
