#include "http/session_registry.hpp"

#include <utility>

namespace smemu::http {

bool SessionRegistry::Add(Session* session, std::weak_ptr<Session> weak) {
  MutexLock lock(mutex_);
  sessions_.emplace(session, std::move(weak));
  return shutting_down_;
}

std::optional<std::size_t> SessionRegistry::Remove(Session* session, IdleEntry& entry) {
  LeaveIdle(entry);
  {
    MutexLock lock(mutex_);
    sessions_.erase(session);
  }
  if (entry.released.exchange(true)) return std::nullopt;  // made room at the cap: not counted
  return open_.fetch_sub(1, std::memory_order_relaxed) - 1;
}

std::size_t SessionRegistry::size() const {
  MutexLock lock(mutex_);
  return sessions_.size();
}

std::vector<std::shared_ptr<Session>> SessionRegistry::BeginShutdown() {
  std::vector<std::shared_ptr<Session>> live;
  MutexLock lock(mutex_);
  shutting_down_ = true;
  for (auto& [raw, weak] : sessions_) {
    if (auto session = weak.lock()) live.push_back(std::move(session));
  }
  return live;
}

void SessionRegistry::EnterIdle(IdleEntry& entry, std::chrono::steady_clock::time_point deadline) {
  IdleList& list = entry.idle_list;
  MutexLock lock(list.mutex);
  if (entry.listed || entry.released) return;  // listed since it was accepted; or to be closed
  entry.idle_deadline = deadline;
  entry.previous = list.newest;
  entry.next = nullptr;
  if (list.newest) {
    list.newest->next = &entry;
  } else {
    list.oldest = &entry;
  }
  list.newest = &entry;
  entry.listed = true;
}

void SessionRegistry::LeaveIdle(IdleEntry& entry) {
  MutexLock lock(entry.idle_list.mutex);
  if (entry.listed) UnlinkLocked(entry);
}

void SessionRegistry::UnlinkLocked(IdleEntry& entry) {
  (entry.previous ? entry.previous->next : entry.idle_list.oldest) = entry.next;
  (entry.next ? entry.next->previous : entry.idle_list.newest) = entry.previous;
  entry.previous = entry.next = nullptr;
  entry.listed = false;
}

std::optional<std::chrono::steady_clock::time_point> SessionRegistry::OldestIdleSince(
    IdleList& list) {
  MutexLock lock(list.mutex);
  if (!list.oldest) return std::nullopt;
  return list.oldest->idle_deadline;
}

bool SessionRegistry::MakeRoom(std::shared_ptr<Session>& evicted) {
  bool made_room = false;
  while (!made_room) {
    // The list whose oldest entry has waited longest; an entry may leave it meanwhile.
    IdleList* oldest_list = nullptr;
    std::optional<std::chrono::steady_clock::time_point> oldest_since;
    for (IdleList& list : idle_) {
      const auto since = OldestIdleSince(list);
      if (since && (!oldest_since || *since < *oldest_since)) {
        oldest_since = since;
        oldest_list = &list;
      }
    }
    if (!oldest_list) break;
    made_room = TakeOldestIdle(*oldest_list, evicted);
  }
  return made_room;
}

bool SessionRegistry::TakeOldestIdle(IdleList& list, std::shared_ptr<Session>& evicted) {
  MutexLock lock(list.mutex);
  IdleEntry* oldest = list.oldest;
  if (!oldest) return false;
  UnlinkLocked(*oldest);
  // Counted out now, not when it is gone, so that each new connection of a flood closes one old
  // one, not one for every new connection until the first closes.
  if (!oldest->released.exchange(true)) open_.fetch_sub(1, std::memory_order_relaxed);
  evicted = oldest->owner.weak_from_this().lock();  // null if its destructor waits for the lock
  return true;
}

}  // namespace smemu::http
