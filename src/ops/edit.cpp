#include "ops/edit.hpp"

#include <stdexcept>

namespace smemu::ops {
namespace {

// A handler checks that what it inserts does not exist yet, under the request lock: an insert
// that meets an existing key is a defect, and the request is rolled back.
void Inserted(bool inserted, const store::ResourceKey& key) {
  if (!inserted) {
    throw std::logic_error("an edit inserts " + key.kind + " " + key.name + ", which exists");
  }
}

void Reserve(Writer& writer, const Reservation& reservation, const std::string& plan_arn) {
  const bool reserved =
      reservation.lapses_at
          ? writer.ledger.Hold(reservation.pool, reservation.window, reservation.count,
                               *reservation.lapses_at)
          : writer.ledger.Reserve(reservation.pool, reservation.window, reservation.count);
  if (!reserved) {
    throw std::logic_error("an edit reserves capacity for " + plan_arn + " that is not free");
  }
}

struct Applier {
  TimePoint now;
  Writer& writer;

  void operator()(const Edit::InsertModel& change) const {
    Inserted(InsertModel(writer.store, change.record, change.tags), change.record.key);
  }
  void operator()(const Edit::EraseModel& change) const { EraseModel(writer.store, change.key); }
  void operator()(const Edit::InsertEndpointConfig& change) const {
    Inserted(InsertEndpointConfig(writer.store, change.record, change.tags), change.record.key);
  }
  void operator()(const Edit::EraseEndpointConfig& change) const {
    EraseEndpointConfig(writer.store, change.key);
  }
  void operator()(const Edit::InsertEndpoint& change) const {
    Inserted(InsertEndpoint(writer, now, change.record, change.tags), change.record.key);
  }
  void operator()(const Edit::SaveEndpoint& change) const {
    SaveEndpoint(writer, now, change.record);
  }
  void operator()(const Edit::InsertJob& change) const {
    Inserted(InsertJob(writer, change.record, change.tags), change.record.key);
  }
  void operator()(const Edit::SaveJob& change) const {
    SaveJob(writer, change.record, change.before);
  }
  void operator()(const Edit::InsertCluster& change) const {
    Inserted(InsertCluster(writer, now, change.record, change.tags), change.record.key);
  }
  void operator()(const Edit::SaveCluster& change) const {
    SaveCluster(writer, now, change.record);
  }
  void operator()(const Edit::InsertPlan& change) const {
    for (const Reservation& reservation : change.reservations) {
      Reserve(writer, reservation, change.plan.arn);
    }
    Inserted(InsertPlan(writer.store, change.key, change.plan, change.tags, now), change.key);
  }
  void operator()(const Edit::SavePlan& change) const {
    if (change.reservation) Reserve(writer, *change.reservation, change.plan.arn);
    SavePlan(writer.store, change.key, change.plan, change.created, now);
  }
  void operator()(const Edit::PutTags& change) const {
    writer.store.PutTags(change.arn, change.tags);
  }
  void operator()(const Edit::DeleteTags& change) const {
    writer.store.DeleteTags(change.arn, change.keys);
  }
};

}  // namespace

void Apply(const Edit& edit, TimePoint now, Writer& writer) {
  const Applier applier{now, writer};
  for (const Edit::Change& change : edit.changes()) std::visit(applier, change);
}

}  // namespace smemu::ops
