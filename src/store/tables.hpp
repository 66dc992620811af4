// Tables: every row of the store, in memory, as one immutable version. The store (StateStore)
// loads them once when it opens and makes the next version as it writes its rows; each
// transaction that commits installs the version it made (StateStore::Snapshot), and one rolled
// back leaves the version it started from. A version never changes once installed, so a reader
// holding one (a request on another thread) sees it whole while the writer builds the next:
// copies share everything a change did not touch (store/persistent_map.hpp).
//
// The tables answer every read of the rows: one row by key or ARN, a kind's rows, a listing's
// filtered, sorted page from ordered indexes, tags, plan capacity and settings. The database is
// read only to load them, and for the holdings log (StateStore::HeldBetween).
//
// Thread-safety: const methods may run on any thread at once; the non-const ones (the store's
// writes) on one thread, on a version no reader holds.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <utility>
#include <vector>

#include "store/persistent_map.hpp"
#include "store/rows.hpp"

namespace smemu::store {

// A row as the tables keep it, with what the codecs decoded from it. The row never changes: a
// write installs a new KeptRow. Shared by every version that holds the row and by the pages that
// list it, so that a page takes its rows without copying their documents and decodes each row
// once, whichever thread asks first.
//
// The row also keeps its keys in the tables' indexes, spelt once (store/tables_keys.hpp), so the
// indexes hold views of them rather than copies: a row costs one allocation for all its keys.
class KeptRow {
 public:
  explicit KeptRow(ResourceRow row);
  const ResourceRow& row() const { return row_; }
  // (kind, account, region, name key): the row's place in Tables' rows_
  std::string_view row_key() const { return std::string_view(keys_).substr(0, created_at_); }
  // (kind, account, region, created, name key): by_created_
  std::string_view created_key() const {
    return std::string_view(keys_).substr(created_at_, status_at_ - created_at_);
  }
  // (kind, status, created, account, region, name key): by_status_
  std::string_view status_key() const { return std::string_view(keys_).substr(status_at_); }
  // The row's name as its keys spell it (NameKey).
  std::string_view name_key() const;

  KeptRow(const KeptRow&) = delete;
  KeptRow& operator=(const KeptRow&) = delete;
  ~KeptRow();

  // The value of type T kept with the row, made by `make` (returning std::shared_ptr<T>) the first
  // time. Two threads asking at once may both make it; the first kept wins. Finding a kept value
  // only reads the row (no lock, no counter), so threads listing the same rows do not contend.
  template <class T, class Make>
  std::shared_ptr<T> Kept(Make&& make) const {
    const Value* kept = Find(typeid(T));
    if (kept == nullptr) kept = Keep(std::make_unique<Value>(Value{typeid(T), make(), nullptr}));
    return std::static_pointer_cast<T>(std::const_pointer_cast<void>(kept->value));
  }

 private:
  // The kept values, a list that only grows (one entry per type, a few types per row) and is
  // freed with the row.
  struct Value {
    std::type_index type;
    std::shared_ptr<const void> value;
    const Value* next;
  };
  const Value* Find(std::type_index type) const {
    for (const Value* value = values_.load(std::memory_order_acquire); value != nullptr;
         value = value->next) {
      if (value->type == type) return value;
    }
    return nullptr;
  }
  // Adds `value` unless another thread kept one of its type first; returns the one kept.
  const Value* Keep(std::unique_ptr<Value> value) const;

  const ResourceRow row_;
  std::string keys_;  // row_key, created_key and status_key, one after another
  std::size_t created_at_ = 0;
  std::size_t status_at_ = 0;
  mutable std::atomic<const Value*> values_{nullptr};
};
using KeptRowPtr = std::shared_ptr<const KeptRow>;

// A plan's capacity as the tables keep it, with its keys: (account, region, name key) in plans_
// and (account, region, start, name key) in plans_by_start_.
class KeptPlan : public PlanCapacity {
 public:
  KeptPlan(const ResourceKey& key, PlanCapacity capacity);
  std::string_view plan_key() const { return std::string_view(keys_).substr(0, start_at_); }
  std::string_view start_key() const { return std::string_view(keys_).substr(start_at_); }

 private:
  std::string keys_;
  std::size_t start_at_ = 0;
};

// The tags of one ARN, by position, with the ARN their entry is keyed by.
struct KeptTags {
  std::string arn;
  std::vector<PositionedTag> tags;
};

struct ListPage {
  std::vector<KeptRowPtr> kept;              // the rows, as the tables keep them
  std::vector<ListQuery::Cursor> positions;  // each row's sort value and name key
  bool has_more = false;
};

struct KindStatusCount {
  std::string kind;
  std::string status;
  long long count = 0;
};

class Tables {
 public:
  // True when any account has any resource.
  bool HasResources() const { return !rows_.empty(); }
  // How many resources of every account there are, by kind and status, ordered by both.
  std::vector<KindStatusCount> CountByKindAndStatus() const;

  std::optional<ResourceRow> Get(const ResourceKey& key) const;
  // The row of `key` as kept, or nullptr.
  KeptRowPtr Find(const ResourceKey& key) const;
  // What `decode` (a codec: a pure function of the row) makes of the row of `key`, as a T; nullopt
  // when there is no such row. Decoded once per row version, then copied.
  template <class T, class Decode>
  std::optional<T> GetDecoded(const ResourceKey& key, Decode&& decode) const {
    const KeptRowPtr kept = Find(key);
    if (!kept) return std::nullopt;
    return *DecodedRow<T>(*kept, decode);
  }
  // The same value, shared rather than copied (a cluster's record holds every node); nullptr
  // when there is no such row.
  template <class T, class Decode>
  std::shared_ptr<const T> GetDecodedShared(const ResourceKey& key, Decode&& decode) const {
    const KeptRowPtr kept = Find(key);
    if (!kept) return nullptr;
    return DecodedRow<T>(*kept, decode);
  }
  // The same for a row a listing returned (ListPage::kept), without looking it up.
  template <class T, class Decode>
  std::shared_ptr<const T> DecodedRow(const KeptRow& kept, Decode&& decode) const {
    return kept.Kept<const T>([&] { return std::make_shared<const T>(decode(kept.row())); });
  }
  // A value of type T kept with a row (what a summary wrote of it), made by T's default
  // constructor the first time. Unlike what the codecs decode, it may change, so T guards itself:
  // readers on several threads share it.
  template <class T>
  T& RowMemo(const KeptRow& kept) const {
    return *kept.Kept<T>([] { return std::make_shared<T>(); });
  }

  // Every row of a kind (optionally with one status), of every account and region, by creation
  // time, then status, then account, region and name key: the rows as kept, so that what
  // DecodedRow makes of each is made once per row version, however often they are walked.
  std::vector<KeptRowPtr> AllOfKind(const std::string& kind,
                                    const std::optional<std::string>& status = {}) const;
  // Every row of a kind in one account and region, in name order.
  std::vector<KeptRowPtr> AllOf(const std::string& account, const std::string& region,
                                const std::string& kind) const;
  // Every (account, region) that has a resource, in order.
  std::vector<std::pair<std::string, std::string>> Scopes() const;
  // A page of a filtered, sorted listing (see ListQuery).
  ListPage List(const ListQuery& query) const;

  // The row whose ARN is exactly `arn`, of any account, region and kind.
  std::optional<ResourceRow> FindByArn(const std::string& arn) const;
  // The tags of `arn` in order, without their positions (GetPositionedTags).
  Tags GetTags(const std::string& arn) const;
  // The tags of `arn` with their positions, ordered by position (then key).
  std::vector<PositionedTag> GetPositionedTags(const std::string& arn) const;

  // The capacity of every training plan of every account, in no particular order.
  std::vector<PlanCapacity> AllPlanCapacity() const;
  void ForEachPlanCapacity(const std::function<void(const PlanCapacity&)>& visit) const;

  std::optional<std::string> GetSetting(const std::string& key) const;

  // How many changes these tables have taken since the store opened: equal counts of one store
  // mean equal contents.
  long long TotalChanges() const { return changes_; }

  // The store's writes, made after the database took them (StateStore's methods of the same
  // names say what each does).
  bool Insert(const ResourceRow& row, const Tags& tags);  // false: the key or the ARN exists
  bool Update(const ResourceRow& row);                    // false: no such row
  bool Delete(const ResourceKey& key);                    // false: no such row
  void PutTags(const std::string& arn, const Tags& tags);
  int DeleteTags(const std::string& arn, const std::vector<std::string>& keys);
  void PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity);
  void PutSetting(const std::string& key, const std::string& value);
  void Clear();

  // What the database holds, for Load: rows, tag lists (each by position) and plan capacity in
  // any order.
  struct Contents {
    std::vector<KeptRowPtr> rows;
    std::vector<std::shared_ptr<const KeptTags>> tags;
    std::vector<std::shared_ptr<const KeptPlan>> plans;
    std::vector<std::pair<std::string, std::string>> settings;
  };
  static Tables Load(Contents contents);

 private:
  using TagList = std::shared_ptr<const KeptTags>;
  using PlanPtr = std::shared_ptr<const KeptPlan>;

  void IndexRow(const KeptRowPtr& kept);
  void UnindexRow(const KeptRow& kept);
  void PutTagList(const std::string& arn, std::vector<PositionedTag> tags);
  void ErasePlanCapacity(const ResourceKey& key);
  // The walks List chooses from: along an index that orders the page, or over the scope.
  bool ListAlongIndex(const ListQuery& query, ListPage& page) const;
  void ListBySorting(const ListQuery& query, ListPage& page) const;
  bool Passes(const ListQuery& query, const ResourceRow& row, const PlanCapacity* plan) const;

  // Keys are one string each: the fields joined by '\x1f' (below every character a field
  // holds), times as fixed-width hexadecimal, so that the strings order as the fields would. Each
  // is a view of a string its value keeps (KeptRow, KeptPlan, KeptTags), so it lives as long as
  // the entry does.
  // (kind, account, region, name key) -> row
  PersistentMap<std::string_view, KeptRowPtr> rows_;
  // (kind, account, region, created, name key) -> row: listings by creation time
  PersistentMap<std::string_view, KeptRowPtr> by_created_;
  // (kind, status, created, account, region, name key) -> row: resources in transition
  PersistentMap<std::string_view, KeptRowPtr> by_status_;
  // ARN -> row
  PersistentMap<std::string_view, KeptRowPtr> by_arn_;
  // ARN -> tags by position
  PersistentMap<std::string_view, TagList> tags_;
  // (account, region, name key) -> what the plan reserves
  PersistentMap<std::string_view, PlanPtr> plans_;
  // (account, region, start, name key) -> the same: listings by a plan's start
  PersistentMap<std::string_view, PlanPtr> plans_by_start_;
  PersistentMap<std::string, std::string> settings_;
  long long changes_ = 0;
};

}  // namespace smemu::store
