// NameIndex: the names of one listing scope (an account, a region and a kind) by their trigrams,
// so that a NameContains page in creation order reads about as many names as it shows instead of
// every name created after its first match.
//
// Each distinct three-byte sequence of a name key (the lower-case name) has a posting list: the
// names that contain it, in (creation time, name key) order. A pattern of three bytes or more can
// only be in names on the posting list of each of its trigrams, so a page walks the shortest of
// those lists from its cursor and keeps the names that contain the whole pattern. Names never
// change and creation times never move, so a name is added when its row is inserted and removed
// when its row is deleted. Knows nothing of SQL; StateStore builds a scope from its rows the first
// time a page needs it and keeps it in step from then on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace smemu::store {

class NameIndex {
 public:
  // A name in the index: its row's creation time (milliseconds) and name key.
  struct Name {
    int64_t created_ms = 0;
    std::string name_key;
  };
  // What a page asks for. Bounds are exclusive, like ListQuery's; `after` continues after the
  // name that ended the last page, in the page's direction.
  struct Search {
    std::string_view pattern;  // a name key's substring, at least kMinPattern bytes
    bool descending = true;
    std::optional<Name> after;
    std::optional<int64_t> created_after;
    std::optional<int64_t> created_before;
    size_t limit = 0;
  };
  static constexpr size_t kMinPattern = 3;

  // True once Build() has run for `scope` (and no Clear() since).
  bool Has(const std::string& scope) const { return scopes_.count(scope) != 0; }
  // True when no scope is built: inserts and deletes then have nothing to keep in step.
  bool Empty() const { return scopes_.empty(); }
  // Starts `scope` from every name it has, in any order.
  void Build(const std::string& scope, std::vector<Name> names);
  // Keeps a scope that was built in step with its rows; does nothing for one that was not.
  void Add(const std::string& scope, const Name& name);
  void Remove(const std::string& scope, const Name& name);
  // Forgets every scope (after a rollback, whose undone inserts and deletes it cannot see).
  void Clear() { scopes_.clear(); }
  // The names of a built `scope` that contain `search.pattern`, in the page's order, at most
  // `search.limit` of them.
  std::vector<Name> Find(const std::string& scope, const Search& search) const;

 private:
  using Trigram = uint32_t;
  using NameId = uint32_t;
  struct Scope {
    std::vector<Name> names;  // by id; a removed name's slot is reused
    std::vector<NameId> free_ids;
    std::unordered_map<Trigram, std::vector<NameId>> postings;  // in (created_ms, name_key) order
  };
  static std::vector<Trigram> TrigramsOf(std::string_view text);
  static void Post(Scope& scope, NameId id);

  std::unordered_map<std::string, Scope> scopes_;
};

}  // namespace smemu::store
