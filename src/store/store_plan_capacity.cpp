// StateStore's table plan_capacity: the capacity each training plan reserves, in columns (the
// tables in memory answer the ledger's reads and the window sorts and filters).
#include <SQLiteCpp/SQLiteCpp.h>

#include <functional>
#include <memory>
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
  tables_.PutPlanCapacity(key, capacity);
  transaction.Commit();
}

void StateStore::ReadPlanCapacity(std::vector<std::shared_ptr<const KeptPlan>>& plans) const {
  Prepared statement_lease = Prepare(
      "SELECT account, region, name_key, arn, availability_zone, instance_type, instance_count, "
      "start_ms, end_ms, paid_ms, gap_start_ms, gap_end_ms, second_zone, payment_fails FROM "
      "plan_capacity");
  SQLite::Statement& statement = *statement_lease;
  while (statement.executeStep()) {
    ResourceKey key{statement.getColumn(0).getString(),
                    statement.getColumn(1).getString(),
                    {},
                    statement.getColumn(2).getString()};
    PlanCapacity plan;
    plan.arn = statement.getColumn(3).getString();
    plan.region = key.region;
    plan.availability_zone = statement.getColumn(4).getString();
    plan.instance_type = statement.getColumn(5).getString();
    plan.instance_count = statement.getColumn(6).getInt();
    plan.start = FromMillis(statement.getColumn(7).getInt64());
    plan.end = FromMillis(statement.getColumn(8).getInt64());
    plan.paid = FromMillis(statement.getColumn(9).getInt64());
    if (std::string zone = statement.getColumn(12).getString(); !zone.empty()) {
      plan.second = PlanCapacity::SecondBlock{FromMillis(statement.getColumn(10).getInt64()),
                                              FromMillis(statement.getColumn(11).getInt64()),
                                              std::move(zone)};
    }
    plan.payment_fails = statement.getColumn(13).getInt() != 0;
    plans.push_back(std::make_shared<const KeptPlan>(key, std::move(plan)));
  }
}

}  // namespace smemu::store
