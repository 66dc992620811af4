// Tables' rows one at a time, their tags, plan capacity and settings, and loading them all.
#include "store/tables.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "store/tables_keys.hpp"

namespace smemu::store {
namespace {

std::string RowKeyOf(std::string_view kind, std::string_view account, std::string_view region,
                     std::string_view name_key) {
  std::string key;
  key.reserve(kind.size() + account.size() + region.size() + name_key.size() + 4);
  keys::Field(key, kind);
  keys::Field(key, account);
  keys::Field(key, region);
  keys::Field(key, name_key);
  return key;
}

std::string RowKeyOf(const ResourceKey& key) {
  return RowKeyOf(key.kind, key.account, key.region, NameKey(key.name));
}

std::string CreatedKeyOf(const ResourceRow& row) {
  std::string key;
  keys::Field(key, row.key.kind);
  keys::Field(key, row.key.account);
  keys::Field(key, row.key.region);
  keys::Time(key, keys::Millis(row.created));
  keys::Field(key, NameKey(row.key.name));
  return key;
}

std::string StatusKeyOf(const ResourceRow& row) {
  std::string key;
  keys::Field(key, row.key.kind);
  keys::Field(key, row.status);
  keys::Time(key, keys::Millis(row.created));
  keys::Field(key, row.key.account);
  keys::Field(key, row.key.region);
  keys::Field(key, NameKey(row.key.name));
  return key;
}

std::string PlanKeyOf(const ResourceKey& key) {
  std::string text;
  keys::Field(text, key.account);
  keys::Field(text, key.region);
  keys::Field(text, NameKey(key.name));
  return text;
}

std::string PlanStartKeyOf(const ResourceKey& key, const PlanCapacity& plan) {
  std::string text;
  keys::Field(text, key.account);
  keys::Field(text, key.region);
  keys::Time(text, keys::Millis(plan.start));
  keys::Field(text, NameKey(key.name));
  return text;
}

}  // namespace

std::vector<KindStatusCount> Tables::CountByKindAndStatus() const {
  std::map<std::pair<std::string, std::string>, long long> counts;
  rows_.ForEach([&counts](const std::string&, const KeptRowPtr& kept) {
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
  const std::string* key = by_arn_.Find(arn);
  if (key == nullptr) return std::nullopt;
  return (*rows_.Find(*key))->row();
}

std::vector<std::pair<std::string, std::string>> Tables::Scopes() const {
  std::set<std::pair<std::string, std::string>> scopes;
  rows_.ForEach([&scopes](const std::string&, const KeptRowPtr& kept) {
    scopes.emplace(kept->row().key.account, kept->row().key.region);
    return true;
  });
  return {scopes.begin(), scopes.end()};
}

void Tables::IndexRow(const KeptRowPtr& kept) {
  const ResourceRow& row = kept->row();
  rows_.Set(RowKeyOf(row.key), kept);
  by_created_.Set(CreatedKeyOf(row), kept);
  by_status_.Set(StatusKeyOf(row), kept);
}

void Tables::UnindexRow(const ResourceRow& row) {
  rows_.Erase(RowKeyOf(row.key));
  by_created_.Erase(CreatedKeyOf(row));
  by_status_.Erase(StatusKeyOf(row));
}

bool Tables::Insert(const ResourceRow& row, const Tags& tags) {
  const std::string key = RowKeyOf(row.key);
  if (rows_.Find(key) != nullptr || by_arn_.Find(row.arn) != nullptr) return false;
  IndexRow(std::make_shared<const KeptRow>(row));
  by_arn_.Set(row.arn, key);
  // As the database keeps them: one tag per key, the last given winning with its place.
  std::vector<PositionedTag> positioned;
  int64_t position = 0;
  for (const auto& [tag_key, value] : tags) {
    std::erase_if(positioned,
                  [&key = tag_key](const PositionedTag& tag) { return tag.key == key; });
    positioned.push_back({position++, tag_key, value});
  }
  if (!positioned.empty()) {
    tags_.Set(row.arn, std::make_shared<const std::vector<PositionedTag>>(std::move(positioned)));
  }
  ++changes_;
  return true;
}

bool Tables::Update(const ResourceRow& row) {
  const KeptRowPtr* kept = rows_.Find(RowKeyOf(row.key));
  if (kept == nullptr) return false;
  ResourceRow updated = (*kept)->row();  // the key, name, ARN and creation time stay
  UnindexRow(updated);
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
  UnindexRow(kept->row());
  by_arn_.Erase(kept->row().arn);
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
  return **tags;
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
  tags_.Set(arn, std::make_shared<const std::vector<PositionedTag>>(std::move(positioned)));
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
    tags_.Set(arn, std::make_shared<const std::vector<PositionedTag>>(std::move(positioned)));
  }
  ++changes_;
  return removed;
}

void Tables::ErasePlanCapacity(const ResourceKey& key) {
  const std::string plan_key = PlanKeyOf(key);
  const PlanPtr* plan = plans_.Find(plan_key);
  if (plan == nullptr) return;
  plans_by_start_.Erase(PlanStartKeyOf(key, **plan));
  plans_.Erase(plan_key);
}

void Tables::PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity) {
  ErasePlanCapacity(key);
  auto plan = std::make_shared<const PlanCapacity>(capacity);
  plans_.Set(PlanKeyOf(key), plan);
  plans_by_start_.Set(PlanStartKeyOf(key, capacity), std::move(plan));
  ++changes_;
}

std::vector<PlanCapacity> Tables::AllPlanCapacity() const {
  std::vector<PlanCapacity> plans;
  plans.reserve(plans_.size());
  ForEachPlanCapacity([&plans](const PlanCapacity& plan) { plans.push_back(plan); });
  return plans;
}

void Tables::ForEachPlanCapacity(const std::function<void(const PlanCapacity&)>& visit) const {
  plans_.ForEach([&visit](const std::string&, const PlanPtr& plan) {
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
  std::vector<std::pair<std::string, KeptRowPtr>> rows;
  std::vector<std::pair<std::string, KeptRowPtr>> by_created;
  std::vector<std::pair<std::string, KeptRowPtr>> by_status;
  std::vector<std::pair<std::string, std::string>> by_arn;
  rows.reserve(contents.rows.size());
  by_created.reserve(contents.rows.size());
  by_status.reserve(contents.rows.size());
  by_arn.reserve(contents.rows.size());
  for (ResourceRow& row : contents.rows) {
    auto kept = std::make_shared<const KeptRow>(std::move(row));
    std::string key = RowKeyOf(kept->row().key);
    by_created.emplace_back(CreatedKeyOf(kept->row()), kept);
    by_status.emplace_back(StatusKeyOf(kept->row()), kept);
    by_arn.emplace_back(kept->row().arn, key);
    rows.emplace_back(std::move(key), std::move(kept));
  }
  auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
  auto sorted = [&by_key](auto entries) {
    std::sort(entries.begin(), entries.end(), by_key);
    return entries;
  };
  tables.rows_ = decltype(tables.rows_)::FromSorted(sorted(std::move(rows)));
  tables.by_created_ = decltype(tables.by_created_)::FromSorted(sorted(std::move(by_created)));
  tables.by_status_ = decltype(tables.by_status_)::FromSorted(sorted(std::move(by_status)));
  tables.by_arn_ = decltype(tables.by_arn_)::FromSorted(sorted(std::move(by_arn)));

  std::sort(contents.tags.begin(), contents.tags.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.position, a.second.key) <
           std::tie(b.first, b.second.position, b.second.key);
  });
  std::vector<std::pair<std::string, TagList>> tags;
  for (size_t i = 0; i < contents.tags.size();) {
    std::vector<PositionedTag> of_one;
    size_t j = i;
    for (; j < contents.tags.size() && contents.tags[j].first == contents.tags[i].first; ++j) {
      of_one.push_back(std::move(contents.tags[j].second));
    }
    tags.emplace_back(std::move(contents.tags[i].first),
                      std::make_shared<const std::vector<PositionedTag>>(std::move(of_one)));
    i = j;
  }
  tables.tags_ = decltype(tables.tags_)::FromSorted(std::move(tags));

  std::vector<std::pair<std::string, PlanPtr>> plans;
  std::vector<std::pair<std::string, PlanPtr>> plans_by_start;
  for (auto& [key, capacity] : contents.plans) {
    auto plan = std::make_shared<const PlanCapacity>(std::move(capacity));
    plans_by_start.emplace_back(PlanStartKeyOf(key, *plan), plan);
    plans.emplace_back(PlanKeyOf(key), std::move(plan));
  }
  tables.plans_ = decltype(tables.plans_)::FromSorted(sorted(std::move(plans)));
  tables.plans_by_start_ =
      decltype(tables.plans_by_start_)::FromSorted(sorted(std::move(plans_by_start)));
  tables.settings_ = decltype(tables.settings_)::FromSorted(sorted(std::move(contents.settings)));
  return tables;
}

}  // namespace smemu::store
