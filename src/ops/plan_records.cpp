#include "ops/plan_records.hpp"

#include "ops/arn.hpp"
#include "ops/record_codec.hpp"
#include "ops/record_reader.hpp"

namespace smemu::ops {

using nlohmann::json;

namespace {

json PlanDoc(const Plan& plan) {
  // A plan of one reserved capacity keeps the layout plans had before they could have more, so
  // that rows stored before read back byte for byte.
  auto put_block = [](json& out, const domain::CapacityBlock& block) {
    out["AvailabilityZone"] = block.pool.availability_zone;
    out["StartMs"] = codec::Ms(block.window.start);
    out["EndMs"] = codec::Ms(block.window.end);
    out["ReservedCapacityId"] = block.id;
  };
  json blocks = json::object();
  if (plan.blocks.size() == 1) {
    put_block(blocks, plan.blocks.front());
  } else {
    json list = json::array();
    for (const domain::CapacityBlock& block : plan.blocks) {
      list.push_back(json::object());
      put_block(list.back(), block);
    }
    blocks["Blocks"] = std::move(list);
  }
  json doc = {{"TargetResources", plan.target_resources},
              {"InstanceType", plan.InstanceType()},
              {"InstanceCount", plan.instance_count},
              {"UpfrontFee", plan.upfront_fee},
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
                   if (!e.payment_failure.empty()) {
                     list.back()["PaymentFailure"] = e.payment_failure;
                   }
                 }
                 return list;
               }()}};
  doc.update(blocks);
  // Plans stored before payments took time have none: paid when bought.
  if (plan.paid_at != TimePoint{}) doc["PaidMs"] = codec::Ms(plan.paid_at);
  if (plan.PaymentFails()) doc["PaymentFailure"] = plan.payment_failure;
  if (const auto& ultraservers = plan.ultraservers) {
    doc["UltraServers"] = {{"Type", ultraservers->type},
                           {"Count", ultraservers->count},
                           {"InstancesPer", ultraservers->instances_per},
                           {"SparesPer", ultraservers->spares_per}};
  }
  return doc;
}

// Read member by member with the strict accessors of ops/record_reader.hpp.
Plan DecodePlan(const store::ResourceRow& row) {
  const codec::StoredDocument stored(row);
  const codec::ReadValue& doc = stored.Root();
  Plan plan;
  plan.name = row.key.name;
  plan.arn = row.arn;
  const std::string instance_type = codec::TextMember(doc, "InstanceType");
  auto block_of = [&](const codec::ReadValue& block) {
    return domain::CapacityBlock{
        {row.key.region, codec::TextMember(block, "AvailabilityZone"), instance_type},
        {codec::TimeMember(block, "StartMs"), codec::TimeMember(block, "EndMs")},
        codec::TextMember(block, "ReservedCapacityId")};
  };
  if (const codec::ReadValue* blocks = codec::OptionalMemberOf(doc, "Blocks")) {
    for (const codec::ReadValue& block : codec::ArrayOf(*blocks, "Blocks")) {
      plan.blocks.push_back(block_of(block));
    }
  } else {  // stored before plans had several reserved capacities: its one block at the top
    plan.blocks.push_back(block_of(doc));
  }
  if (plan.blocks.empty()) throw std::runtime_error("a training plan without reserved capacity");
  plan.instance_count = static_cast<int>(codec::IntegerMember(doc, "InstanceCount"));
  for (const codec::ReadValue& target : codec::ArrayMember(doc, "TargetResources")) {
    plan.target_resources.push_back(codec::TextOf(target, "TargetResources"));
  }
  plan.upfront_fee = codec::TextMember(doc, "UpfrontFee");
  // Plans stored before payments took time were paid when they were bought.
  if (const codec::ReadValue* paid = codec::OptionalMemberOf(doc, "PaidMs")) {
    plan.paid_at = codec::TimeOf(*paid, "PaidMs");
  }
  if (const codec::ReadValue* failure = codec::OptionalMemberOf(doc, "PaymentFailure")) {
    plan.payment_failure = codec::TextOf(*failure, "PaymentFailure");
  }
  if (const codec::ReadValue* ultraservers = codec::OptionalMemberOf(doc, "UltraServers")) {
    plan.ultraservers =
        domain::UltraServers{codec::TextMember(*ultraservers, "Type"),
                             static_cast<int>(codec::IntegerMember(*ultraservers, "Count")),
                             static_cast<int>(codec::IntegerMember(*ultraservers, "InstancesPer")),
                             static_cast<int>(codec::IntegerMember(*ultraservers, "SparesPer"))};
  }
  if (const codec::ReadValue* extensions = codec::OptionalMemberOf(doc, "Extensions")) {
    for (const codec::ReadValue& e : codec::ArrayOf(*extensions, "Extensions")) {
      const codec::ReadValue* paid = codec::OptionalMemberOf(e, "PaidMs");
      const codec::ReadValue* failure = codec::OptionalMemberOf(e, "PaymentFailure");
      plan.extensions.push_back(
          {codec::TextMember(e, "OfferingId"),
           codec::TimeMember(e, "ExtendedAtMs"),
           {codec::TimeMember(e, "StartMs"), codec::TimeMember(e, "EndMs")},
           codec::TextMember(e, "UpfrontFee"),
           paid != nullptr ? codec::TimeOf(*paid, "PaidMs") : TimePoint{},
           failure != nullptr ? codec::TextOf(*failure, "PaymentFailure") : std::string()});
    }
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
                                          const domain::CapacityBlock& block, TimePoint created) {
  const Caller owner{plan_key.account, plan_key.region, ""};
  return {{plan_key.account, plan_key.region, domain::kCapacityKind, block.id},
          ReservedCapacityArn(owner, block.id),
          domain::PurchaseStatusAt(block.window, plan.paid_at, created, plan.PaymentFails()),
          created,
          created,
          json{{"TrainingPlanName", plan.name}}.dump()};
}

// The store keeps a plan's span and, for a plan of two blocks, the gap between them and the
// second block's zone: what the ledger's rebuild and ListTrainingPlans' statuses need.
store::PlanCapacity CapacityOf(const Plan& plan) {
  if (plan.blocks.size() > 2) {
    throw std::logic_error("the store keeps plans of one or two reserved capacities");
  }
  const domain::Window span = plan.Span();
  store::PlanCapacity capacity{plan.arn,
                               plan.Region(),
                               plan.blocks.front().pool.availability_zone,
                               plan.InstanceType(),
                               plan.instance_count,
                               span.start,
                               span.end,
                               plan.paid_at,
                               plan.PaymentFails(),
                               std::nullopt};
  if (plan.blocks.size() == 2) {
    capacity.second =
        store::PlanCapacity::SecondBlock{plan.blocks[0].window.end, plan.blocks[1].window.start,
                                         plan.blocks[1].pool.availability_zone};
  }
  return capacity;
}

std::string ReservedCapacityArn(const Caller& caller, const std::string& id) {
  return SageMakerArn(caller, domain::kCapacityKind, id);
}

domain::Owner OwnerOf(const Caller& caller) { return {caller.account, caller.region}; }

std::optional<Plan> LoadPlan(const store::Tables& store, const store::ResourceKey& key) {
  return store.GetDecoded<Plan>(key, &PlanFromRow);
}

std::optional<Plan> PlanByArn(const store::Tables& store, const domain::Owner& owner,
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

std::optional<Plan> PlanByReservationArn(const store::Tables& store, const domain::Owner& owner,
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

std::vector<domain::CapacityBlock> StoredBlocks(const store::PlanCapacity& plan) {
  const domain::PoolKey first{plan.region, plan.availability_zone, plan.instance_type};
  if (!plan.second) return {{first, {plan.start, plan.end}, ""}};
  return {
      {first, {plan.start, plan.second->gap_start}, ""},
      {{plan.region, plan.second->zone, plan.instance_type}, {plan.second->gap_end, plan.end}, ""}};
}

domain::PlanFacts FactsOf(const Plan& plan) {
  return {domain::WindowsForUsers(plan),
          domain::UsableInstances(plan),
          plan.InstanceType(),
          plan.target_resources,
          plan.blocks.front().pool.availability_zone,
          plan.arn,
          plan.paid_at,
          plan.PaymentFails()};
}

}  // namespace smemu::ops
