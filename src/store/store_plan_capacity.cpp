// StateStore's table plan_capacity: the capacity each training plan reserves, read from columns
// for the capacity ledger (the window sorts and filters that read it are in store_listing.cpp).
#include <SQLiteCpp/SQLiteCpp.h>

#include <functional>
#include <string>
#include <vector>

#include "store/state_store.hpp"
#include "store/store_internal.hpp"

namespace smemu::store {

void StateStore::PutPlanCapacity(const ResourceKey& key, const PlanCapacity& capacity) {
  WriteScope transaction(*this);
  Prepared put_lease = Prepare(
      "INSERT OR REPLACE INTO plan_capacity VALUES (:account, :region, :name_key, :arn, :zone, "
      ":type, :count, :start_ms, :end_ms, :paid_ms, :gap_start_ms, :gap_end_ms, :second_zone, "
      ":payment_fails)");
  SQLite::Statement& put = *put_lease;
  put.bind(":account", key.account);
  put.bind(":region", key.region);
  put.bind(":name_key", NameKey(key.name));
  put.bind(":arn", capacity.arn);
  put.bind(":zone", capacity.availability_zone);
  put.bind(":type", capacity.instance_type);
  put.bind(":count", capacity.instance_count);
  put.bind(":start_ms", ToMillis(capacity.start));
  put.bind(":end_ms", ToMillis(capacity.end));
  put.bind(":paid_ms", ToMillis(capacity.paid));
  put.bind(":gap_start_ms", capacity.second ? ToMillis(capacity.second->gap_start) : 0);
  put.bind(":gap_end_ms", capacity.second ? ToMillis(capacity.second->gap_end) : 0);
  put.bind(":second_zone", capacity.second ? capacity.second->zone : std::string());
  put.bind(":payment_fails", capacity.payment_fails ? 1 : 0);
  put.exec();
  transaction.Commit();
}

void StateStore::ForEachPlanCapacity(const std::function<void(const PlanCapacity&)>& visit) const {
  Prepared statement_lease = Prepare(
      "SELECT arn, region, availability_zone, instance_type, instance_count, start_ms, end_ms, "
      "paid_ms, gap_start_ms, gap_end_ms, second_zone, payment_fails FROM plan_capacity");
  SQLite::Statement& statement = *statement_lease;
  // One value, its strings assigned in place: start-up reads every plan this way, and a vector
  // of them, copied again into commitments, was most of rebuilding the ledger (page faults and
  // copies, in a profile of a start with 10,000 plans).
  PlanCapacity plan;
  PlanCapacity::SecondBlock second;
  auto text = [&statement](int column, std::string& into) {
    const SQLite::Column value = statement.getColumn(column);
    into.assign(static_cast<const char*>(value.getBlob()), static_cast<size_t>(value.getBytes()));
  };
  while (statement.executeStep()) {
    text(0, plan.arn);
    text(1, plan.region);
    text(2, plan.availability_zone);
    text(3, plan.instance_type);
    plan.instance_count = statement.getColumn(4).getInt();
    plan.start = FromMillis(statement.getColumn(5).getInt64());
    plan.end = FromMillis(statement.getColumn(6).getInt64());
    plan.paid = FromMillis(statement.getColumn(7).getInt64());
    plan.payment_fails = statement.getColumn(11).getInt() != 0;
    if (plan.second) second = std::move(*plan.second);
    plan.second.reset();
    text(10, second.zone);
    if (!second.zone.empty()) {
      second.gap_start = FromMillis(statement.getColumn(8).getInt64());
      second.gap_end = FromMillis(statement.getColumn(9).getInt64());
      plan.second = std::move(second);
    }
    visit(plan);
  }
}

std::vector<PlanCapacity> StateStore::AllPlanCapacity() const {
  std::vector<PlanCapacity> plans;
  ForEachPlanCapacity([&plans](const PlanCapacity& plan) { plans.push_back(plan); });
  return plans;
}

}  // namespace smemu::store
