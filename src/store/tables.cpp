// Tables' rows one at a time, their tags, plan capacity and settings, and loading them all.
#include "store/tables.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "store/tables_keys.hpp"

namespace smemu::store {
namespace {

// The keys a probe spells and the ones a KeptRow or KeptPlan keeps, spelt by one function each so
// that they cannot differ: (kind, account, region, name key) and (account, region, name key).
void AppendRowKey(std::string& text, const ResourceKey& key, std::string_view name_key) {
  keys::Field(text, key.kind);
  keys::Field(text, key.account);
  keys::Field(text, key.region);
  keys::Field(text, name_key);
}

void AppendPlanKey(std::string& text, const ResourceKey& key, std::string_view name_key) {
  keys::Field(text, key.account);
  keys::Field(text, key.region);
  keys::Field(text, name_key);
}

std::string RowKeyOf(const ResourceKey& key) {
  std::string text;
  AppendRowKey(text, key, NameKey(key.name));
  return text;
}

std::string PlanKeyOf(const ResourceKey& key) {
  std::string text;
  AppendPlanKey(text, key, NameKey(key.name));
  return text;
}

}  // namespace

KeptRow::KeptRow(ResourceRow row) : row_(std::move(row)) {
  const ResourceKey& key = row_.key;
  const std::string name = NameKey(key.name);
  const std::size_t fields = key.kind.size() + key.account.size() + key.region.size() + name.size();
  keys_.reserve(3 * fields + row_.status.size() + 2 * keys::kTimeSize + 14);
  AppendRowKey(keys_, key, name);
  created_at_ = keys_.size();
  keys::Field(keys_, key.kind);
  keys::Field(keys_, key.account);
  keys::Field(keys_, key.region);
  keys::Time(keys_, keys::Millis(row_.created));
  keys::Field(keys_, name);
  status_at_ = keys_.size();
  keys::Field(keys_, key.kind);
  keys::Field(keys_, row_.status);
  keys::Time(keys_, keys::Millis(row_.created));
  keys::Field(keys_, key.account);
  keys::Field(keys_, key.region);
  keys::Field(keys_, name);
}

std::string_view KeptRow::name_key() const { return keys::LastField(row_key()); }

KeptRow::~KeptRow() {
  for (const Value* value = values_.load(std::memory_order_acquire); value != nullptr;) {
    const Value* next = value->next;
    delete value;
    value = next;
  }
}

const KeptRow::Value* KeptRow::Keep(std::unique_ptr<Value> value) const {
  const Value* head = values_.load(std::memory_order_acquire);
  for (;;) {
    for (const Value* kept = head; kept != nullptr; kept = kept->next) {
      if (kept->type == value->type) return kept;  // another thread's, made at the same time
    }
    value->next = head;
    if (values_.compare_exchange_weak(head, value.get(), std::memory_order_acq_rel,
                                      std::memory_order_acquire)) {
      return value.release();
    }
  }
}

KeptPlan::KeptPlan(const ResourceKey& key, PlanCapacity capacity)
    : PlanCapacity(std::move(capacity)) {
  const std::string name = NameKey(key.name);
  keys_.reserve(2 * (key.account.size() + key.region.size() + name.size()) + keys::kTimeSize + 6);
  AppendPlanKey(keys_, key, name);
  start_at_ = keys_.size();
  keys::Field(keys_, key.account);
  keys::Field(keys_, key.region);
  keys::Time(keys_, keys::Millis(start));
  keys::Field(keys_, name);
}

std::vector<KindStatusCount> Tables::CountByKindAndStatus() const {
  std::map<std::pair<std::string, std::string>, long long> counts;
  rows_.ForEach([&counts](std::string_view, const KeptRowPtr& kept) {
    ++counts[{kept->row().key.kind, kept->row().status}];
    return true;
  });
  std::vector<KindStatusCount> result;
  for (const auto& [kind_status, count] : counts) {
    result.push_back({kind_status.first, kind_status.second, count});
  }
  return result;
}

KeptRowPtr Tables::Find(const ResourceKey& key) const {
  const KeptRowPtr* kept = rows_.Find(RowKeyOf(key));
  return kept == nullptr ? nullptr : *kept;
}

std::optional<ResourceRow> Tables::Get(const ResourceKey& key) const {
  const KeptRowPtr* kept = rows_.Find(RowKeyOf(key));
  if (kept == nullptr) return std::nullopt;
  return (*kept)->row();
}

std::optional<ResourceRow> Tables::FindByArn(const std::string& arn) const {
  const KeptRowPtr* kept = by_arn_.Find(arn);
  if (kept == nullptr) return std::nullopt;
  return (*kept)->row();
}

std::vector<std::pair<std::string, std::string>> Tables::Scopes() const {
  std::set<std::pair<std::string, std::string>> scopes;
  rows_.ForEach([&scopes](std::string_view, const KeptRowPtr& kept) {
    scopes.emplace(kept->row().key.account, kept->row().key.region);
    return true;
  });
  return {scopes.begin(), scopes.end()};
}

void Tables::IndexRow(const KeptRowPtr& kept) {
  rows_.Set(kept->row_key(), kept);
  by_created_.Set(kept->created_key(), kept);
  by_status_.Set(kept->status_key(), kept);
  by_arn_.Set(kept->row().arn, kept);
}

void Tables::UnindexRow(const KeptRow& kept) {
  rows_.Erase(kept.row_key());
  by_created_.Erase(kept.created_key());
  by_status_.Erase(kept.status_key());
  by_arn_.Erase(kept.row().arn);
}

bool Tables::Insert(const ResourceRow& row, const Tags& tags) {
  if (rows_.Find(RowKeyOf(row.key)) != nullptr || by_arn_.Find(row.arn) != nullptr) return false;
  IndexRow(std::make_shared<const KeptRow>(row));
  // As the database keeps them: one tag per key, the last given winning with its place.
  std::vector<PositionedTag> positioned;
  int64_t position = 0;
  for (const auto& [tag_key, value] : tags) {
    std::erase_if(positioned,
                  [&key = tag_key](const PositionedTag& tag) { return tag.key == key; });
    positioned.push_back({position++, tag_key, value});
  }
  if (!positioned.empty()) PutTagList(row.arn, std::move(positioned));
  ++changes_;
  return true;
}

bool Tables::Update(const ResourceRow& row) {
  const KeptRowPtr* found = rows_.Find(RowKeyOf(row.key));
  if (found == nullptr) return false;
  const KeptRowPtr kept = *found;     // the entry goes below
  ResourceRow updated = kept->row();  // the key, name, ARN and creation time stay
  UnindexRow(*kept);
  updated.status = row.status;
  updated.modified = row.modified;
  updated.doc = row.doc;
  IndexRow(std::make_shared<const KeptRow>(std::move(updated)));
  ++changes_;
  return true;
}

bool Tables::Delete(const ResourceKey& key) {
  const KeptRowPtr* found = rows_.Find(RowKeyOf(key));
  if (found == nullptr) return false;
  const KeptRowPtr kept = *found;  // the entry goes below
  UnindexRow(*kept);
  tags_.Erase(kept->row().arn);
  if (const PlanPtr* plan = plans_.Find(PlanKeyOf(key)); plan && (*plan)->arn == kept->row().arn) {
    ErasePlanCapacity(key);  // a namesake of another kind leaves the plan's
  }
  ++changes_;
  return true;
}

Tags Tables::GetTags(const std::string& arn) const {
  Tags tags;
  for (PositionedTag& tag : GetPositionedTags(arn)) {
    tags.emplace_back(std::move(tag.key), std::move(tag.value));
  }
  return tags;
}

std::vector<PositionedTag> Tables::GetPositionedTags(const std::string& arn) const {
  const TagList* tags = tags_.Find(arn);
  if (tags == nullptr) return {};
  return (*tags)->tags;
}

void Tables::PutTags(const std::string& arn, const Tags& tags) {
  std::vector<PositionedTag> positioned = GetPositionedTags(arn);
  for (const auto& [key, value] : tags) {
    auto same = std::find_if(positioned.begin(), positioned.end(),
                             [&key = key](const PositionedTag& tag) { return tag.key == key; });
    if (same != positioned.end()) {
      same->value = value;
      continue;
    }
    int64_t next = 0;
    for (const PositionedTag& tag : positioned) next = std::max(next, tag.position + 1);
    positioned.push_back({next, key, value});
  }
  if (positioned.empty()) return;
  PutTagList(arn, std::move(positioned));
  ++changes_;
}

int Tables::DeleteTags(const std::string& arn, const std::vector<std::string>& keys) {
  std::vector<PositionedTag> positioned = GetPositionedTags(arn);
  const size_t before = positioned.size();
  for (const std::string& key : keys) {
    std::erase_if(positioned, [&key](const PositionedTag& tag) { return tag.key == key; });
  }
  const auto removed = static_cast<int>(before - positioned.size());
  if (removed == 0) return 0;
  if (positioned.empty()) {
    tags_.Erase(arn);
  } else {
    PutTagList(arn, std::move(positioned));
  }
  ++changes_;
  return removed;
}

void Tables::PutTagList(const std::string& arn, std::vector<PositionedTag> tags) {
  auto kept = std::make_shared<const KeptTags>(KeptTags{arn, std::move(tags)});
  const std::string_view key = kept->arn;
  tags_.Set(key, std::move(kept));  // replaces the entry, its key with it
}

void Tables::ErasePlanCapacity(const ResourceKey& key) {
  const PlanPtr* found = plans_.Find(PlanKeyOf(key));
  if (found == nullptr) return;
  const PlanPtr plan = *found;  // the entries go below
  plans_by_start_.Erase(plan->start_key());
  plans_.Erase(plan->plan_key());
}

void Tables::PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity) {
  ErasePlanCapacity(key);
  auto plan = std::make_shared<const KeptPlan>(key, capacity);
  plans_.Set(plan->plan_key(), plan);
  plans_by_start_.Set(plan->start_key(), plan);
  ++changes_;
}

std::vector<PlanCapacity> Tables::AllPlanCapacity() const {
  std::vector<PlanCapacity> plans;
  plans.reserve(plans_.size());
  ForEachPlanCapacity([&plans](const PlanCapacity& plan) { plans.push_back(plan); });
  return plans;
}

void Tables::ForEachPlanCapacity(const std::function<void(const PlanCapacity&)>& visit) const {
  plans_.ForEach([&visit](std::string_view, const PlanPtr& plan) {
    visit(*plan);
    return true;
  });
}

std::optional<std::string> Tables::GetSetting(const std::string& key) const {
  const std::string* value = settings_.Find(key);
  if (value == nullptr) return std::nullopt;
  return *value;
}

void Tables::PutSetting(const std::string& key, const std::string& value) {
  settings_.Set(key, value);
  ++changes_;
}

void Tables::Clear() {
  const long long changes = changes_ + 1;
  *this = Tables();
  changes_ = changes;
}

Tables Tables::Load(Contents contents) {
  Tables tables;
  auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  // Each index from one sorted vector of views.
  auto index = [&](auto& map, std::string_view (*key_of)(const KeptRow&)) {
    std::vector<std::pair<std::string_view, KeptRowPtr>> entries;
    entries.reserve(contents.rows.size());
    for (const KeptRowPtr& kept : contents.rows) entries.emplace_back(key_of(*kept), kept);
    std::sort(entries.begin(), entries.end(), by_key);
    map = std::remove_reference_t<decltype(map)>::FromSorted(std::move(entries));
  };
  index(tables.rows_, [](const KeptRow& kept) { return kept.row_key(); });
  index(tables.by_created_, [](const KeptRow& kept) { return kept.created_key(); });
  index(tables.by_status_, [](const KeptRow& kept) { return kept.status_key(); });
  index(tables.by_arn_, [](const KeptRow& kept) { return std::string_view(kept.row().arn); });
  contents.rows = {};

  std::vector<std::pair<std::string_view, TagList>> tags;
  tags.reserve(contents.tags.size());
  for (TagList& kept : contents.tags) tags.emplace_back(kept->arn, std::move(kept));
  contents.tags = {};
  std::sort(tags.begin(), tags.end(), by_key);
  tables.tags_ = decltype(tables.tags_)::FromSorted(std::move(tags));

  std::vector<std::pair<std::string_view, PlanPtr>> plans;
  std::vector<std::pair<std::string_view, PlanPtr>> plans_by_start;
  plans.reserve(contents.plans.size());
  plans_by_start.reserve(contents.plans.size());
  for (PlanPtr& plan : contents.plans) {
    plans_by_start.emplace_back(plan->start_key(), plan);
    plans.emplace_back(plan->plan_key(), std::move(plan));
  }
  contents.plans = {};
  std::sort(plans.begin(), plans.end(), by_key);
  std::sort(plans_by_start.begin(), plans_by_start.end(), by_key);
  tables.plans_ = decltype(tables.plans_)::FromSorted(std::move(plans));
  tables.plans_by_start_ = decltype(tables.plans_by_start_)::FromSorted(std::move(plans_by_start));
  std::sort(contents.settings.begin(), contents.settings.end(), by_key);
  tables.settings_ = decltype(tables.settings_)::FromSorted(std::move(contents.settings));
  return tables;
}

}  // namespace smemu::store
