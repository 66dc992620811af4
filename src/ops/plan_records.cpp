#include "ops/plan_records.hpp"

#include "ops/arn.hpp"
#include "ops/record_codec.hpp"

namespace smemu::ops {

using nlohmann::json;

namespace {

json PlanDoc(const Plan& plan) {
  json doc = {{"TargetResources", plan.target_resources},
              {"InstanceType", plan.pool.instance_type},
              {"InstanceCount", plan.instance_count},
              {"AvailabilityZone", plan.pool.availability_zone},
              {"StartMs", codec::Ms(plan.window.start)},
              {"EndMs", codec::Ms(plan.window.end)},
              {"UpfrontFee", plan.upfront_fee},
              {"ReservedCapacityId", plan.reserved_capacity_id},
              {"Extensions", [&] {
                 json list = json::array();
                 for (const auto& e : plan.extensions) {
                   list.push_back({{"OfferingId", e.offering_id},
                                   {"ExtendedAtMs", codec::Ms(e.extended_at)},
                                   {"StartMs", codec::Ms(e.window.start)},
                                   {"EndMs", codec::Ms(e.window.end)},
                                   {"UpfrontFee", e.upfront_fee}});
                   // Extensions stored before payments took time have none: paid when bought.
                   if (e.paid_at != TimePoint{}) list.back()["PaidMs"] = codec::Ms(e.paid_at);
                 }
                 return list;
               }()}};
  // Plans stored before payments took time have none: paid when bought.
  if (plan.paid_at != TimePoint{}) doc["PaidMs"] = codec::Ms(plan.paid_at);
  if (const auto& ultraservers = plan.ultraservers) {
    doc["UltraServers"] = {{"Type", ultraservers->type},
                           {"Count", ultraservers->count},
                           {"InstancesPer", ultraservers->instances_per},
                           {"SparesPer", ultraservers->spares_per}};
  }
  return doc;
}

Plan DecodePlan(const store::ResourceRow& row) {
  const json doc = codec::Document(row);
  Plan plan;
  plan.name = row.key.name;
  plan.arn = row.arn;
  plan.pool = {row.key.region, doc.at("AvailabilityZone"), doc.at("InstanceType")};
  plan.instance_count = doc.at("InstanceCount");
  plan.window = {codec::At(doc.at("StartMs")), codec::At(doc.at("EndMs"))};
  plan.target_resources = doc.at("TargetResources").get<std::vector<std::string>>();
  plan.upfront_fee = doc.at("UpfrontFee");
  plan.reserved_capacity_id = doc.at("ReservedCapacityId");
  // Plans stored before payments took time were paid when they were bought.
  if (doc.contains("PaidMs")) plan.paid_at = codec::At(doc.at("PaidMs"));
  if (doc.contains("UltraServers")) {
    const json& ultraservers = doc.at("UltraServers");
    plan.ultraservers =
        domain::UltraServers{ultraservers.at("Type"), ultraservers.at("Count"),
                             ultraservers.at("InstancesPer"), ultraservers.at("SparesPer")};
  }
  for (const json& e : doc.value("Extensions", json::array())) {
    plan.extensions.push_back({e.at("OfferingId"),
                               codec::At(e.at("ExtendedAtMs")),
                               {codec::At(e.at("StartMs")), codec::At(e.at("EndMs"))},
                               e.at("UpfrontFee"),
                               e.contains("PaidMs") ? codec::At(e.at("PaidMs")) : TimePoint{}});
  }
  return plan;
}

}  // namespace

namespace {

std::string PlanNameOfCapacity(const store::ResourceRow& row) {
  return codec::Document(row).at("TrainingPlanName");
}

}  // namespace

Plan PlanFromRow(const store::ResourceRow& row) { return codec::Decoding(row, &DecodePlan); }

store::ResourceRow EncodePlan(const store::ResourceKey& key, const Plan& plan, TimePoint created,
                              TimePoint modified) {
  return {key,     plan.arn, domain::PlanStatusAt(plan, created),
          created, modified, PlanDoc(plan).dump()};
}

store::ResourceRow EncodeReservedCapacity(const store::ResourceKey& plan_key, const Plan& plan,
                                          TimePoint created) {
  const Caller owner{plan_key.account, plan_key.region, ""};
  return {{plan_key.account, plan_key.region, domain::kCapacityKind, plan.reserved_capacity_id},
          ReservedCapacityArn(owner, plan.reserved_capacity_id),
          domain::PlanStatusAt(plan, created),
          created,
          created,
          json{{"TrainingPlanName", plan.name}}.dump()};
}

namespace {

store::PlanCapacity CapacityOf(const Plan& plan) {
  return {plan.arn,
          plan.pool.region,
          plan.pool.availability_zone,
          plan.pool.instance_type,
          plan.instance_count,
          plan.window.start,
          plan.window.end,
          plan.paid_at};
}

}  // namespace

bool InsertPlan(store::StateStore& store, const store::ResourceKey& key, const Plan& plan,
                const store::Tags& tags, TimePoint now) {
  if (!store.InsertAll({{EncodePlan(key, plan, now, now), tags},
                        {EncodeReservedCapacity(key, plan, now), {}}})) {
    return false;
  }
  store.PutPlanCapacity(key, CapacityOf(plan));
  return true;
}

void SavePlan(store::StateStore& store, const store::ResourceKey& key, const Plan& plan,
              TimePoint created, TimePoint now) {
  store.Update(EncodePlan(key, plan, created, now));
  store.PutPlanCapacity(key, CapacityOf(plan));
}

std::string ReservedCapacityArn(const Caller& caller, const std::string& id) {
  return SageMakerArn(caller, domain::kCapacityKind, id);
}

domain::Owner OwnerOf(const Caller& caller) { return {caller.account, caller.region}; }

std::optional<Plan> LoadPlan(const store::StateStore& store, const store::ResourceKey& key) {
  return store.GetDecoded<Plan>(key, &PlanFromRow);
}

std::optional<Plan> PlanByArn(const store::StateStore& store, const domain::Owner& owner,
                              const std::string& arn) {
  const Caller as_owner{owner.account, owner.region, ""};
  const std::string prefix = SageMakerArn(as_owner, domain::kPlanKind, "");
  if (arn.rfind(prefix, 0) != 0) return std::nullopt;
  return LoadPlan(store,
                  {owner.account, owner.region, domain::kPlanKind, arn.substr(prefix.size())});
}

std::optional<Plan> PlanByArn(const Context& ctx, const std::string& arn) {
  return PlanByArn(ctx.store, OwnerOf(ctx.caller), arn);
}

std::optional<Plan> PlanByReservationArn(const store::StateStore& store, const domain::Owner& owner,
                                         const std::string& arn) {
  if (auto plan = PlanByArn(store, owner, arn)) return plan;
  const Caller as_owner{owner.account, owner.region, ""};
  const std::string prefix = ReservedCapacityArn(as_owner, "");
  if (arn.rfind(prefix, 0) != 0) return std::nullopt;
  struct PlanName {
    std::string name;
  };
  const auto plan_name = store.GetDecoded<PlanName>(
      {owner.account, owner.region, domain::kCapacityKind, arn.substr(prefix.size())},
      [](const store::ResourceRow& row) {
        return PlanName{codec::Decoding(row, &PlanNameOfCapacity)};
      });
  if (!plan_name) return std::nullopt;
  return LoadPlan(store, {owner.account, owner.region, domain::kPlanKind, plan_name->name});
}

std::optional<Plan> PlanByReservationArn(const Context& ctx, const std::string& arn) {
  return PlanByReservationArn(ctx.store, OwnerOf(ctx.caller), arn);
}

domain::PlanFacts FactsOf(const Plan& plan) {
  return {plan.window,           domain::UsableInstances(plan), plan.pool.instance_type,
          plan.target_resources, plan.pool.availability_zone,   plan.arn};
}

}  // namespace smemu::ops
