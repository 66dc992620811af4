#include "store/name_index.hpp"

#include <algorithm>
#include <tuple>

namespace smemu::store {

namespace {

// The order of a listing by creation time, ascending (SQLite compares text bytewise, as
// std::string does).
bool Before(const NameIndex::Name& a, const NameIndex::Name& b) {
  return std::tie(a.created_ms, a.name_key) < std::tie(b.created_ms, b.name_key);
}

}  // namespace

std::vector<NameIndex::Trigram> NameIndex::TrigramsOf(std::string_view text) {
  std::vector<Trigram> trigrams;
  for (size_t i = 0; i + 3 <= text.size(); ++i) {
    trigrams.push_back(static_cast<Trigram>(static_cast<unsigned char>(text[i])) << 16 |
                       static_cast<Trigram>(static_cast<unsigned char>(text[i + 1])) << 8 |
                       static_cast<Trigram>(static_cast<unsigned char>(text[i + 2])));
  }
  std::sort(trigrams.begin(), trigrams.end());
  trigrams.erase(std::unique(trigrams.begin(), trigrams.end()), trigrams.end());
  return trigrams;
}

void NameIndex::Build(const std::string& scope_key, std::vector<Name> names) {
  Scope& scope = scopes_[scope_key];
  scope = Scope{};
  // A name shorter than a trigram matches no pattern the index answers: it is left out.
  names.erase(std::remove_if(names.begin(), names.end(),
                             [](const Name& name) { return name.name_key.size() < kMinPattern; }),
              names.end());
  std::sort(names.begin(), names.end(), Before);
  scope.names = std::move(names);
  // Ids follow the order, so each posting list is in order as it is filled.
  for (NameId id = 0; id < scope.names.size(); ++id) {
    for (const Trigram trigram : TrigramsOf(scope.names[id].name_key)) {
      scope.postings[trigram].push_back(id);
    }
  }
}

void NameIndex::Post(Scope& scope, NameId id) {
  const Name& name = scope.names[id];
  for (const Trigram trigram : TrigramsOf(name.name_key)) {
    std::vector<NameId>& posting = scope.postings[trigram];
    // New rows are the newest as a rule: the place is at the end.
    const auto place = std::upper_bound(
        posting.begin(), posting.end(), id,
        [&scope](NameId a, NameId b) { return Before(scope.names[a], scope.names[b]); });
    posting.insert(place, id);
  }
}

void NameIndex::Add(const std::string& scope_key, const Name& name) {
  const auto it = scopes_.find(scope_key);
  if (it == scopes_.end() || name.name_key.size() < kMinPattern) return;
  Scope& scope = it->second;
  NameId id = 0;
  if (scope.free_ids.empty()) {
    id = static_cast<NameId>(scope.names.size());
    scope.names.push_back(name);
  } else {
    id = scope.free_ids.back();
    scope.free_ids.pop_back();
    scope.names[id] = name;
  }
  Post(scope, id);
}

void NameIndex::Remove(const std::string& scope_key, const Name& name) {
  const auto it = scopes_.find(scope_key);
  if (it == scopes_.end()) return;
  Scope& scope = it->second;
  std::optional<NameId> removed;
  for (const Trigram trigram : TrigramsOf(name.name_key)) {
    const auto posting_it = scope.postings.find(trigram);
    if (posting_it == scope.postings.end()) continue;
    std::vector<NameId>& posting = posting_it->second;
    const auto place =
        std::lower_bound(posting.begin(), posting.end(), name,
                         [&scope](NameId a, const Name& b) { return Before(scope.names[a], b); });
    if (place == posting.end() || scope.names[*place].name_key != name.name_key) continue;
    removed = *place;
    posting.erase(place);
    if (posting.empty()) scope.postings.erase(posting_it);
  }
  if (removed) {
    scope.names[*removed] = Name{};
    scope.free_ids.push_back(*removed);
  }
}

std::vector<NameIndex::Name> NameIndex::Find(const std::string& scope_key,
                                             const Search& search) const {
  std::vector<Name> found;
  const auto scope_it = scopes_.find(scope_key);
  if (scope_it == scopes_.end() || search.limit == 0) return found;
  const Scope& scope = scope_it->second;
  // Every name that contains the pattern is on the posting list of each of its trigrams: the
  // shortest list holds them all.
  const std::vector<NameId>* shortest = nullptr;
  for (const Trigram trigram : TrigramsOf(search.pattern)) {
    const auto it = scope.postings.find(trigram);
    if (it == scope.postings.end()) return found;
    if (shortest == nullptr || it->second.size() < shortest->size()) shortest = &it->second;
  }
  if (shortest == nullptr) return found;  // a pattern too short for a trigram
  const std::vector<NameId>& posting = *shortest;
  const auto name_of = [&scope](NameId id) -> const Name& { return scope.names[id]; };
  // [first, last): the names within the page's bounds, before the direction is applied.
  auto first = posting.begin();
  auto last = posting.end();
  if (search.created_after) {
    first = std::partition_point(
        first, last, [&](NameId id) { return name_of(id).created_ms <= *search.created_after; });
  }
  if (search.created_before) {
    last = std::partition_point(
        first, last, [&](NameId id) { return name_of(id).created_ms < *search.created_before; });
  }
  if (search.after) {
    const Name& after = *search.after;
    if (search.descending) {
      last =
          std::partition_point(first, last, [&](NameId id) { return Before(name_of(id), after); });
    } else {
      first =
          std::partition_point(first, last, [&](NameId id) { return !Before(after, name_of(id)); });
    }
  }
  const auto take = [&](NameId id) {
    const Name& name = name_of(id);
    if (name.name_key.find(search.pattern) != std::string::npos) found.push_back(name);
    return found.size() == search.limit;
  };
  if (search.descending) {
    for (auto it = last; it != first;) {
      if (take(*--it)) break;
    }
  } else {
    for (auto it = first; it != last; ++it) {
      if (take(*it)) break;
    }
  }
  return found;
}

}  // namespace smemu::store
