#include "ops/apply.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "ops/pool_changes.hpp"
#include "ops/quota_document.hpp"
#include "ops/settings.hpp"

namespace smemu::ops {
namespace {

// A handler checks that what it inserts does not exist yet, under the request lock: an insert
// that meets an existing key is a defect, and the request is rolled back.
void Inserted(bool inserted, const store::ResourceKey& key) {
  if (!inserted) {
    throw std::logic_error("an edit inserts " + key.kind + " " + key.name + ", which exists");
  }
}

void Reserve(const Writer& writer, const Reservation& reservation, const std::string& plan_arn) {
  const bool reserved =
      reservation.lapses_at
          ? writer.ledger.Write().Hold(reservation.pool, reservation.window, reservation.count,
                                       *reservation.lapses_at)
          : writer.ledger.Write().Reserve(reservation.pool, reservation.window, reservation.count);
  if (!reserved) {
    throw std::logic_error("an edit reserves capacity for " + plan_arn + " that is not free");
  }
}

// ---- Holdings: what a resource holds, in memory and in the holdings log

// What a holder holds, as the holdings log keeps it.
std::vector<store::HeldCount> LogEntries(const domain::Holder& holder) {
  std::vector<store::HeldCount> entries;
  for (const domain::Hold& hold : holder.holds) {
    entries.push_back({hold.instance_type, hold.plan_arn, hold.count});
  }
  return entries;
}

// Puts `holder` in the holdings unless they hold it as it is: an unchanged holding lets the
// readers' next version share the holdings instead of copying them.
void Hold(const Writer& writer, domain::Holder holder) {
  const domain::Holder* held = writer.holdings.Read().Find(holder.arn);
  if (held != nullptr ? *held == holder : holder.holds.empty()) return;
  writer.holdings.Write().Put(std::move(holder));
}

// Makes `holder` what the resource `key` holds from `at` on: in the holdings and, when that
// differs from what it held, in the holdings log (the cost ledger's history).
void PutHolder(const Writer& writer, const store::ResourceKey& key, domain::Holder holder,
               TimePoint at) {
  const domain::Holder* held = writer.holdings.Read().Find(holder.arn);
  const std::vector<domain::Hold> none;
  if ((held != nullptr ? held->holds : none) != holder.holds) {
    writer.store.LogHolds(key, holder.arn, LogEntries(holder), at);
  }
  Hold(writer, std::move(holder));
}

void RemoveHolder(const Writer& writer, const store::ResourceKey& key, const std::string& arn,
                  TimePoint at) {
  if (writer.holdings.Read().Find(arn) == nullptr) return;
  writer.store.LogHolds(key, arn, {}, at);
  writer.holdings.Write().Remove(arn);
}

// The writes of a resource that holds instances (an endpoint, a cluster): its row and, in step,
// what it holds from `at` on.
void InsertHolding(const Writer& writer, TimePoint at, const store::ResourceRow& row,
                   const store::Tags& tags, domain::Holder holder) {
  Inserted(writer.store.Insert(row, tags), row.key);
  PutHolder(writer, row.key, std::move(holder), at);
}

void SaveHolding(const Writer& writer, TimePoint at, const store::ResourceRow& row,
                 domain::Holder holder) {
  writer.store.Update(row);
  PutHolder(writer, row.key, std::move(holder), at);
}

void EraseHolding(const Writer& writer, TimePoint at, const store::ResourceKey& key,
                  const std::string& arn) {
  writer.store.Delete(key);
  RemoveHolder(writer, key, arn, at);
}

void SaveJob(const Writer& writer, const JobRecord& record, const domain::Job& before) {
  writer.store.Update(EncodeJob(record));
  Hold(writer, domain::HolderOf(record.job));
  // The scheduler may start and end a job within one settling, between two requests: its
  // instances were held from its start to its end whatever the time of the request.
  const domain::Job& job = record.job;
  if (!job.start || !job.selected) return;
  // HolderOf(job) holds nothing once the job has ended or while it is interrupted: log what it
  // held while it ran, in time order.
  const domain::JobOption& option = *job.selected;
  const std::vector<store::HeldCount> held = {
      {option.instance_type, option.plan_arn, option.instance_count}};
  if (!before.start) writer.store.LogHolds(record.key, job.arn, held, *job.start);
  if (job.interrupted && job.interrupted != before.interrupted) {
    writer.store.LogHolds(record.key, job.arn, {}, *job.interrupted);
  }
  if (job.resumed && job.resumed != before.resumed) {
    writer.store.LogHolds(record.key, job.arn, held, *job.resumed);
  }
  if (job.end && !before.end) writer.store.LogHolds(record.key, job.arn, {}, *job.end);
}

// Brings the holdings log in line with the holdings at `now`, when a server starts: a database
// from before the log, or a clock started earlier than its history, leaves resources holding
// instances without an open stretch (or stretches open for what nothing holds any more).
void ReconcileLog(const Writer& writer, TimePoint now) {
  store::StateStore& store = writer.store;
  // What the log has open, per resource, in a canonical order.
  std::map<std::string, std::pair<store::ResourceKey, std::vector<store::HeldCount>>> logged;
  for (const store::HeldStretch& stretch : store.HeldNow()) {
    auto& [key, held] = logged[stretch.arn];
    key = {stretch.account, stretch.region, stretch.kind, stretch.name};
    held.push_back({stretch.instance_type, stretch.plan_arn, stretch.count});
  }
  for (auto& [arn, entry] : logged) std::sort(entry.second.begin(), entry.second.end());
  for (const domain::Holder* holder : writer.holdings.Read().All()) {
    std::vector<store::HeldCount> held = LogEntries(*holder);
    std::sort(held.begin(), held.end());
    const auto it = logged.find(holder->arn);
    const bool already_logged = it != logged.end() && it->second.second == held;
    if (it != logged.end()) logged.erase(it);
    if (already_logged) continue;
    if (const auto row = store.Rows().FindByArn(holder->arn)) {
      store.LogHolds(row->key, holder->arn, held, now);
    }
  }
  // Stretches still open for what nothing holds any more.
  for (const auto& [arn, entry] : logged) store.LogHolds(entry.first, arn, {}, now);
}

// ---- One visitor over the changes

struct ChangeApplier {
  const Writer& writer;
  TimePoint at;

  void operator()(const Edit::InsertModel& change) const {
    Inserted(writer.store.Insert(EncodeModel(change.record), change.tags), change.record.key);
  }
  void operator()(const Edit::EraseModel& change) const { writer.store.Delete(change.key); }
  void operator()(const Edit::InsertEndpointConfig& change) const {
    Inserted(writer.store.Insert(EncodeEndpointConfig(change.record), change.tags),
             change.record.key);
  }
  void operator()(const Edit::EraseEndpointConfig& change) const {
    writer.store.Delete(change.key);
  }
  void operator()(const Edit::InsertEndpoint& change) const {
    InsertHolding(writer, at, EncodeEndpoint(change.record), change.tags,
                  domain::HolderOf(change.record.endpoint));
  }
  void operator()(const Edit::SaveEndpoint& change) const {
    SaveHolding(writer, at, EncodeEndpoint(change.record),
                domain::HolderOf(change.record.endpoint));
  }
  void operator()(const Edit::EraseEndpoint& change) const {
    EraseHolding(writer, at, change.key, change.arn);
  }
  void operator()(const Edit::InsertJob& change) const {
    Inserted(writer.store.Insert(EncodeJob(change.record), change.tags), change.record.key);
    Hold(writer, domain::HolderOf(change.record.job));
  }
  void operator()(const Edit::SaveJob& change) const {
    SaveJob(writer, change.record, change.before);
  }
  void operator()(const Edit::InsertCluster& change) const {
    InsertHolding(writer, at, EncodeCluster(change.record), change.tags,
                  domain::HolderOf(change.record.cluster));
  }
  void operator()(const Edit::SaveCluster& change) const {
    SaveHolding(writer, at, EncodeCluster(change.record), domain::HolderOf(change.record.cluster));
  }
  void operator()(const Edit::EraseCluster& change) const {
    EraseHolding(writer, at, change.key, change.arn);
  }
  void operator()(const Edit::InsertPlan& change) const {
    for (const Reservation& reservation : change.reservations) {
      Reserve(writer, reservation, change.plan.arn);
    }
    // The plan's row, a row per reserved capacity (so that its ARN finds the plan), and what it
    // reserves.
    std::vector<std::pair<store::ResourceRow, store::Tags>> rows{
        {EncodePlan(change.key, change.plan, at, at), change.tags}};
    for (const domain::CapacityBlock& block : change.plan.blocks) {
      rows.push_back({EncodeReservedCapacity(change.key, change.plan, block, at), {}});
    }
    Inserted(writer.store.InsertAll(rows), change.key);
    writer.store.PutPlanCapacity(change.key, CapacityOf(change.plan));
  }
  void operator()(const Edit::SavePlan& change) const {
    if (change.reservation) Reserve(writer, *change.reservation, change.plan.arn);
    writer.store.Update(EncodePlan(change.key, change.plan, change.created, at));
    writer.store.PutPlanCapacity(change.key, CapacityOf(change.plan));
  }
  void operator()(const Edit::PutTags& change) const {
    writer.store.PutTags(change.arn, change.tags);
  }
  void operator()(const Edit::DeleteTags& change) const {
    writer.store.DeleteTags(change.arn, change.keys);
  }
  void operator()(const Edit::ReleaseLapsedHolds&) const {
    // Every settling asks; only a lapse that fell due changes the ledger (and makes the readers'
    // next version copy it).
    const std::optional<TimePoint> lapse = writer.ledger.Read().NextLapse();
    if (lapse && *lapse <= at) writer.ledger.Write().ReleaseLapsed(at);
  }
  void operator()(const Edit::SetPool& change) const {
    writer.ledger.Write().SetPool(change.key, change.reservable, change.on_demand);
    writer.store.PutSetting(
        kPoolChangesSetting,
        PoolChangesWith(writer.store.Rows(), change.key, change.reservable, change.on_demand));
  }
  void operator()(const Edit::SetQuotas& change) const {
    writer.store.PutSetting(kQuotasSetting, QuotaSettingsJson(change.quotas).dump());
    writer.quotas.Write() = change.quotas;
  }
  void operator()(const Edit::SaveClock& change) const {
    writer.store.PutSetting(kClockSetting, EncodeClock(change.state, change.base_now));
  }
  void operator()(const Edit::CutHistoryAt& change) const {
    writer.store.CutHoldingsLogAt(change.at);
  }
  void operator()(const Edit::EraseEverything&) const {
    writer.store.DeleteEverything();
    writer.holdings.Write() = domain::Holdings();
  }
  void operator()(const Edit::ReconcileHoldingsLog&) const { ReconcileLog(writer, at); }
};

}  // namespace

void Applier::Apply(const Edit::Change& change, TimePoint at) {
  std::visit(ChangeApplier{writer_, at}, change);
}

void Applier::Apply(const Edit& edit, TimePoint at) {
  for (const Edit::Change& change : edit.changes()) Apply(change, at);
}

}  // namespace smemu::ops
