// The transport's live connections (Sessions): every one, so that shutdown can close them, and
// those waiting for their next request, oldest first, so that the connection cap can close the one
// idle longest. Shared by the Transport and each Session, so a Session can unregister itself even
// when it is destroyed after the Transport (its pending handlers die with the io_context).
// Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "http/memory_trim.hpp"
#include "smemu/mutex.hpp"

namespace smemu::http {

class Session;
struct IdleEntry;

// The connections waiting for their next request on one io_context, oldest first, linked through
// their entries. The context's thread adds and removes its own sessions (twice a request,
// uncontended); the accepting thread adds new ones and takes the oldest when the cap is reached.
struct IdleList {
  Mutex mutex;
  // The entries' links are guarded by this mutex too (clang's analysis cannot name another
  // object's list, so they are not annotated).
  IdleEntry* oldest SMEMU_GUARDED_BY(mutex) = nullptr;
  IdleEntry* newest SMEMU_GUARDED_BY(mutex) = nullptr;
};

// What the registry keeps of one Session, inside it: its place in its io_context's idle list, and
// whether it still counts against the cap.
struct IdleEntry {
  IdleEntry(std::enable_shared_from_this<Session>& session, IdleList& list)
      : owner(session), idle_list(list) {}

  // The Session holding this entry, by the base that gives a reference to it (the registry does
  // not see the Session class), to close it at the cap.
  std::enable_shared_from_this<Session>& owner;
  IdleList& idle_list;  // its io_context's
  // Guarded by idle_list.mutex: the links, and when the idle wait began (as its deadline).
  IdleEntry* previous = nullptr;
  IdleEntry* next = nullptr;
  bool listed = false;
  std::chrono::steady_clock::time_point idle_deadline;
  // No longer counted as open: taken off to make room at the cap, or destroyed.
  std::atomic<bool> released{false};
};

class SessionRegistry {
 public:
  explicit SessionRegistry(std::size_t contexts) : idle_(contexts) {}

  // The idle list of the io_context of index `context_index`.
  IdleList& idle_list(std::size_t context_index) { return idle_[context_index]; }

  // A new session, counted against the cap from now on.
  void Opened() { open_.fetch_add(1, std::memory_order_relaxed); }
  // The sessions counted against the cap: alive, and not yet taken off to make room for another.
  std::size_t Open() const { return open_.load(std::memory_order_relaxed); }

  // Registers a session as it starts. Returns whether shutdown has begun: the session is then to
  // close as soon as it is idle.
  bool Add(Session* session, std::weak_ptr<Session> weak);
  // Unregisters a session as it is destroyed, with its entry: the sessions left counted against the
  // cap, or nullopt when making room at the cap stopped counting this one already.
  std::optional<std::size_t> Remove(Session* session, IdleEntry& entry);
  // The sessions registered.
  std::size_t size() const;
  // Shutdown begins: the sessions still alive, for the caller to close outside the lock (dropping
  // the last reference to one runs ~Session, which takes it).
  std::vector<std::shared_ptr<Session>> BeginShutdown();

  // The session waits for its next request from now until `deadline`; all waits are equally long,
  // so the deadline orders them as they began. Not for a session already listed, or taken off.
  void EnterIdle(IdleEntry& entry, std::chrono::steady_clock::time_point deadline);
  void LeaveIdle(IdleEntry& entry);
  // Takes the session idle longest, on any io_context, off its list and stops counting it against
  // the cap; false when none is idle. `evicted` is then the session to close (CloseWhenIdle), or
  // null when it is already being destroyed.
  bool MakeRoom(std::shared_ptr<Session>& evicted);

  // The bursts of open sessions, after which memory is given back.
  BurstWatch& bursts() { return bursts_; }

 private:
  // REQUIRES: entry.listed.
  static void UnlinkLocked(IdleEntry& entry) SMEMU_REQUIRES(entry.idle_list.mutex);
  // When the oldest entry on `list` started waiting (its idle deadline); nullopt if none does.
  static std::optional<std::chrono::steady_clock::time_point> OldestIdleSince(IdleList& list)
      SMEMU_EXCLUDES(list.mutex);
  // MakeRoom() on one list. Not analysed: `list` is the oldest entry's own idle_list, which clang
  // cannot see.
  bool TakeOldestIdle(IdleList& list,
                      std::shared_ptr<Session>& evicted) SMEMU_NO_THREAD_SAFETY_ANALYSIS;

  mutable Mutex mutex_;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions_ SMEMU_GUARDED_BY(mutex_);
  bool shutting_down_ SMEMU_GUARDED_BY(mutex_) = false;
  std::vector<IdleList> idle_;  // one per io_context, by its index
  std::atomic<std::size_t> open_{0};
  BurstWatch bursts_;
};

}  // namespace smemu::http
