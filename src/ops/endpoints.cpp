// CreateEndpoint, DescribeEndpoint, ListEndpoints, DeleteEndpoint, and the clock-driven settling
// of endpoint statuses. A variant's instances come from the training plan its config reserves, or
// from the region's on-demand pools.
#include <algorithm>
#include <limits>
#include <set>

#include "ops/arn.hpp"
#include "ops/capacity_use.hpp"
#include "ops/containers.hpp"
#include "ops/handlers.hpp"
#include "ops/listing.hpp"
#include "ops/overview.hpp"
#include "ops/plan_records.hpp"
#include "ops/resource_kinds.hpp"
#include "ops/tag_input.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

constexpr const char* kKind = kEndpointKind;
constexpr const char* kConfigKind = kEndpointConfigKind;
constexpr const char* kNoOnDemandCapacity =
    "Unable to provision requested ML compute capacity. Please retry using a different ML "
    "instance type.";

store::ResourceKey KeyOf(const Caller& caller, const std::string& name) {
  return {caller.account, caller.region, kKind, name};
}

Caller CallerOf(const store::ResourceRow& row) { return {row.key.account, row.key.region, ""}; }

domain::AwsError EndpointNotFound(const Caller& caller, const std::string& name) {
  return domain::ValidationException("Could not find endpoint \"" +
                                     SageMakerArn(caller, kKind, name) + "\".");
}

// The endpoint's variants as kept in its document: what the config asked for and what it holds.
json VariantsFromConfig(const json& config) {
  json variants = json::array();
  for (const json& variant : config.at("ProductionVariants")) {
    json kept = {{"VariantName", variant.at("VariantName")},
                 {"InstanceType", variant.value("InstanceType", "")},
                 {"DesiredInstanceCount", variant.value("InitialInstanceCount", 1)},
                 {"CurrentInstanceCount", 0},
                 {"Weight", variant.value("InitialVariantWeight", 1.0)}};
    if (variant.contains("ModelName")) kept["ModelName"] = variant["ModelName"];
    if (variant.contains("CapacityReservationConfig")) {
      kept["CapacityReservationConfig"] = variant["CapacityReservationConfig"];
    }
    if (variant.contains("InstancePools")) {
      json pools = variant["InstancePools"];
      std::sort(pools.begin(), pools.end(),
                [](const json& a, const json& b) { return a["Priority"] < b["Priority"]; });
      kept["InstancePools"] = std::move(pools);
    }
    variants.push_back(std::move(kept));
  }
  return variants;
}

std::string PlanArnOf(const json& variant) {
  if (!variant.contains("CapacityReservationConfig")) return "";
  return variant["CapacityReservationConfig"].value("MlReservationArn", "");
}

// Gives a variant with InstancePools the first pool, by Priority, that has all its instances
// free: the variant takes that pool's instance type (and model override). False when none has.
bool SelectInstancePool(const Context& ctx, const store::ResourceRow& row, json& variant,
                        Holdings& holdings) {
  const int wanted = variant.value("DesiredInstanceCount", 1);
  for (const json& pool : variant["InstancePools"]) {  // sorted by Priority
    const std::string type = pool["InstanceType"];
    if (OnDemandFree(ctx, row.key.region, type, holdings) < wanted) continue;
    variant["InstanceType"] = type;
    if (pool.contains("ModelNameOverride")) variant["ModelName"] = pool["ModelNameOverride"];
    return true;
  }
  return false;
}

// The first variant whose model is a real container that fails its health check, if any.
std::optional<std::string> FirstUnhealthyVariant(const Context& ctx, const json& variants) {
  if (!ctx.hosting.probe) return std::nullopt;
  for (const json& variant : variants) {
    const auto upstream = UpstreamOf(ctx, variant.value("ModelName", ""));
    if (upstream && !ctx.hosting.probe(*upstream)) return variant["VariantName"];
  }
  return std::nullopt;
}

// Tries to give every variant of a Creating endpoint its instances, all or none, as of `at` (the
// moment the attempt fell due). Returns the new status; sets FailureReason or the next attempt
// time in `doc`.
std::string Provision(Context& ctx, const store::ResourceRow& row, json& doc, TimePoint at,
                      bool replacing_own = false) {
  Context owner = ctx;
  owner.caller = CallerOf(row);
  Holdings holdings = HoldingsIn(ctx.store, row.key.region, replacing_own ? row.arn : "");
  for (json& variant : doc["Variants"]) {
    const int wanted = variant.value("DesiredInstanceCount", 1);
    const std::string plan_arn = PlanArnOf(variant);
    if (plan_arn.empty()) {
      if (variant.contains("InstancePools") && !SelectInstancePool(ctx, row, variant, holdings)) {
        doc["FailureReason"] = kNoOnDemandCapacity;
        return "Failed";
      }
      const std::string type = variant.value("InstanceType", "");
      if (OnDemandFree(ctx, row.key.region, type, holdings) < wanted) {
        doc["FailureReason"] = kNoOnDemandCapacity;
        return "Failed";
      }
      holdings.on_demand_by_type[type] += wanted;
      continue;
    }
    const auto plan = PlanByReservationArn(owner, plan_arn);
    const std::string status = plan ? domain::PlanStatusAt(plan->window, at) : "Expired";
    if (status == "Expired") {
      doc["FailureReason"] = "The capacity reservation " + plan_arn + " has expired.";
      return "Failed";
    }
    if (status == "Scheduled") {
      // The endpoint waits for the reservation's window to open.
      doc["DueMs"] = plan->window.start.time_since_epoch().count();
      return "Creating";
    }
    const int available = plan->instance_count - holdings.by_plan[plan_arn];
    if (available < wanted) {
      doc["FailureReason"] = "Requested instance count (" + std::to_string(wanted) +
                             ") exceeds available capacity (" + std::to_string(available) +
                             ") in training plan " + plan_arn + ".";
      return "Failed";
    }
    holdings.by_plan[plan_arn] += wanted;
  }
  if (auto unhealthy = FirstUnhealthyVariant(owner, doc["Variants"])) {
    doc["FailureReason"] = "The primary container for production variant " + *unhealthy +
                           " did not pass the ping health check. Please check CloudWatch logs "
                           "for this endpoint.";
    return "Failed";
  }
  for (json& variant : doc["Variants"]) {
    variant["CurrentInstanceCount"] = variant.value("DesiredInstanceCount", 1);
  }
  doc.erase("DueMs");
  return "InService";
}

json VariantSummary(const Context& ctx, const store::ResourceRow& row, const json& variant,
                    const Holdings& holdings) {
  json summary = {{"VariantName", variant["VariantName"]},
                  {"CurrentWeight", variant["Weight"]},
                  {"DesiredWeight", variant.value("DesiredWeight", variant["Weight"])},
                  {"CurrentInstanceCount", variant["CurrentInstanceCount"]},
                  {"DesiredInstanceCount", variant["DesiredInstanceCount"]}};
  if (variant.contains("InstancePools")) {
    // Which pool holds the instances: the selected type has them all, the others none.
    json pools = json::array();
    for (const json& pool : variant["InstancePools"]) {
      const bool selected = pool["InstanceType"] == variant.value("InstanceType", "");
      pools.push_back(
          {{"InstanceType", pool["InstanceType"]},
           {"CurrentInstanceCount", selected ? variant["CurrentInstanceCount"] : json(0)}});
    }
    summary["InstancePools"] = std::move(pools);
  }
  const std::string plan_arn = PlanArnOf(variant);
  if (plan_arn.empty()) return summary;
  Context owner = ctx;
  owner.caller = CallerOf(row);
  const auto plan = PlanByReservationArn(owner, plan_arn);
  const int total = plan ? plan->instance_count : 0;
  auto held = holdings.by_plan.find(plan_arn);
  const int used = held == holdings.by_plan.end() ? 0 : held->second;
  summary["CapacityReservationConfig"] = {
      {"MlReservationArn", plan_arn},
      {"CapacityReservationPreference", "capacity-reservations-only"},
      {"TotalInstanceCount", total},
      {"AvailableInstanceCount", std::max(0, total - used)},
      {"UsedByCurrentEndpoint", variant["CurrentInstanceCount"]}};
  return summary;
}

Result<json> CreateEndpoint(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointName");
  const std::string config_name = in.at("EndpointConfigName");
  const auto config =
      ctx.store.Get({ctx.caller.account, ctx.caller.region, kConfigKind, config_name});
  if (!config) {
    return domain::ValidationException("Could not find endpoint configuration \"" +
                                       SageMakerArn(ctx.caller, kConfigKind, config_name) + "\".");
  }
  const json doc = {
      {"EndpointConfigName", config->key.name},
      {"Variants", VariantsFromConfig(json::parse(config->doc))},
      {"DueMs", (ctx.now + ctx.hosting.provisioning_delay).time_since_epoch().count()}};
  const std::string arn = SageMakerArn(ctx.caller, kKind, name);
  if (!ctx.store.Insert({KeyOf(ctx.caller, name), arn, "Creating", ctx.now, ctx.now, doc.dump()},
                        ReadTags(in))) {
    return domain::ValidationException("Cannot create already existing endpoint \"" + arn + "\".");
  }
  SettleEndpoints(ctx);  // with no provisioning delay the endpoint is in service at once
  return json{{"EndpointArn", arn}};
}

Result<json> DescribeEndpoint(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointName");
  const auto row = ctx.store.Get(KeyOf(ctx.caller, name));
  if (!row) return EndpointNotFound(ctx.caller, name);
  const json doc = json::parse(row->doc);
  // Only reserved variants show what their plan has left, and counting that reads every endpoint
  // of the region: skip it for an endpoint on on-demand instances.
  const bool reserved =
      std::any_of(doc["Variants"].begin(), doc["Variants"].end(),
                  [](const json& variant) { return !PlanArnOf(variant).empty(); });
  const Holdings holdings = reserved ? HoldingsIn(ctx.store, row->key.region) : Holdings{};
  json variants = json::array();
  for (const json& variant : doc["Variants"]) {
    variants.push_back(VariantSummary(ctx, *row, variant, holdings));
  }
  json out = {{"EndpointName", row->key.name},
              {"EndpointArn", row->arn},
              {"EndpointConfigName", doc["EndpointConfigName"]},
              {"ProductionVariants", std::move(variants)},
              {"EndpointStatus", row->status},
              {"CreationTime", WriteTimestamp(row->created)},
              {"LastModifiedTime", WriteTimestamp(row->modified)}};
  if (doc.contains("FailureReason")) out["FailureReason"] = doc["FailureReason"];
  return out;
}

domain::AwsError InProgress(const store::ResourceRow& row) {
  return domain::ValidationException("Cannot update in-progress endpoint \"" + row.arn + "\".");
}

Result<json> DeleteEndpoint(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointName");
  auto row = ctx.store.Get(KeyOf(ctx.caller, name));
  if (!row || row->status == "Deleting") return EndpointNotFound(ctx.caller, name);
  if (row->status == "Creating" || row->status == "Updating") {
    // As on SageMaker, an endpoint being provisioned cannot be deleted until it settles.
    return InProgress(*row);
  }
  json doc = json::parse(row->doc);
  for (json& variant : doc["Variants"]) variant["CurrentInstanceCount"] = 0;  // released now
  doc["DueMs"] = (ctx.now + ctx.hosting.provisioning_delay).time_since_epoch().count();
  row->status = "Deleting";
  row->modified = ctx.now;
  row->doc = doc.dump();
  ctx.store.Update(*row);
  SettleEndpoints(ctx);
  return json::object();
}

// The endpoint an update applies to: it must exist and be InService.
Result<store::ResourceRow> EndpointToUpdate(const Context& ctx, const std::string& name) {
  auto row = ctx.store.Get(KeyOf(ctx.caller, name));
  if (!row || row->status == "Deleting") return EndpointNotFound(ctx.caller, name);
  if (row->status != "InService") return InProgress(*row);
  return *row;
}

// Checks that `wanted` instances of a variant fit its plan or on-demand pool, counting what every
// endpoint of the region holds except this variant's own current instances.
domain::Status CheckScale(Context& ctx, const store::ResourceRow& row, const json& variant,
                          int wanted) {
  const Holdings holdings = HoldingsIn(ctx.store, row.key.region);
  const int own = variant.value("CurrentInstanceCount", 0);
  const std::string plan_arn = PlanArnOf(variant);
  if (plan_arn.empty()) {
    const std::string type = variant.value("InstanceType", "");
    const int total = OnDemandTotal(ctx, row.key.region, type);
    auto held = holdings.on_demand_by_type.find(type);
    const int others = (held == holdings.on_demand_by_type.end() ? 0 : held->second) - own;
    if (total != std::numeric_limits<int>::max() && total - others < wanted) {
      return domain::ResourceLimitExceeded(kNoOnDemandCapacity);
    }
    return domain::Ok();
  }
  const auto plan = PlanByReservationArn(ctx, plan_arn);
  if (!plan || domain::PlanStatusAt(plan->window, ctx.now) == "Expired") {
    return domain::ValidationException("The capacity reservation " + plan_arn + " has expired.");
  }
  if (wanted > plan->instance_count) {
    return domain::ValidationException(
        "Requested instance count (" + std::to_string(wanted) + ") exceeds reserved capacity (" +
        std::to_string(plan->instance_count) + ") for training plan.");
  }
  auto held = holdings.by_plan.find(plan_arn);
  const int others = (held == holdings.by_plan.end() ? 0 : held->second) - own;
  if (plan->instance_count - others < wanted) {
    return domain::ResourceLimitExceeded(
        "Requested instance count (" + std::to_string(wanted) + ") exceeds available capacity (" +
        std::to_string(plan->instance_count - others) + ") in training plan " + plan_arn + ".");
  }
  return domain::Ok();
}

// Puts an endpoint into Updating with its changed document; the update falls due after the
// provisioning delay (at once without one).
Result<json> StartUpdate(Context& ctx, store::ResourceRow& row, json& doc) {
  doc["DueMs"] = (ctx.now + ctx.hosting.provisioning_delay).time_since_epoch().count();
  row.status = "Updating";
  row.modified = ctx.now;
  row.doc = doc.dump();
  ctx.store.Update(row);
  SettleEndpoints(ctx);
  return json{{"EndpointArn", row.arn}};
}

Result<json> UpdateEndpointWeightsAndCapacities(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointName");
  auto row = EndpointToUpdate(ctx, name);
  if (!row) return row.error();
  json doc = json::parse(row->doc);
  std::set<std::string> named;
  for (const json& desired : in.at("DesiredWeightsAndCapacities")) {
    const std::string variant_name = desired.at("VariantName");
    if (!named.insert(variant_name).second) {
      return domain::ValidationException("The variant " + variant_name +
                                         " appears more than once in DesiredWeightsAndCapacities.");
    }
    auto variant = std::find_if(doc["Variants"].begin(), doc["Variants"].end(),
                                [&](const json& v) { return v["VariantName"] == variant_name; });
    if (variant == doc["Variants"].end()) {
      return domain::ValidationException("The variant " + variant_name +
                                         " is not part of endpoint " + row->arn + ".");
    }
    if (desired.contains("DesiredInstanceCount")) {
      const int wanted = desired["DesiredInstanceCount"];
      if (auto ok = CheckScale(ctx, *row, *variant, wanted); !ok) return ok.error();
      (*variant)["DesiredInstanceCount"] = wanted;
    }
    if (desired.contains("DesiredWeight")) (*variant)["DesiredWeight"] = desired["DesiredWeight"];
  }
  return StartUpdate(ctx, *row, doc);
}

// Moves an endpoint to another config. It keeps serving on the old one while Updating; the new
// variants take their capacity when the update falls due (see SettleEndpoints).
Result<json> UpdateEndpoint(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointName");
  const std::string config_name = in.at("EndpointConfigName");
  auto row = EndpointToUpdate(ctx, name);
  if (!row) return row.error();
  const auto config =
      ctx.store.Get({ctx.caller.account, ctx.caller.region, kConfigKind, config_name});
  if (!config) {
    return domain::ValidationException("Could not find endpoint configuration \"" +
                                       SageMakerArn(ctx.caller, kConfigKind, config_name) + "\".");
  }
  json doc = json::parse(row->doc);
  doc["Pending"] = {{"EndpointConfigName", config->key.name},
                    {"Variants", VariantsFromConfig(json::parse(config->doc))}};
  doc.erase("FailureReason");
  return StartUpdate(ctx, *row, doc);
}

Result<json> ListEndpoints(const json& in, Context& ctx) {
  static const ListSpec kSpec{"ListEndpoints",
                              {{"CreationTime", store::SortField::kCreationTime},
                               {"Name", store::SortField::kName},
                               {"Status", store::SortField::kStatus}},
                              /*descending_by_default=*/true};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  const auto page = Paginate<store::ResourceRow>(
      kSpec, *request, StoreSource(ctx, kKind, *request, ReadStoreFilters(in)));
  json endpoints = json::array();
  for (const store::ResourceRow& row : page.items) {
    endpoints.push_back({{"EndpointName", row.key.name},
                         {"EndpointArn", row.arn},
                         {"CreationTime", WriteTimestamp(row.created)},
                         {"LastModifiedTime", WriteTimestamp(row.modified)},
                         {"EndpointStatus", row.status}});
  }
  json out = {{"Endpoints", std::move(endpoints)}};
  if (page.next_token) out["NextToken"] = *page.next_token;
  return out;
}

// When the endpoint's next transition falls due; `otherwise` when nothing is scheduled.
TimePoint DueOf(const json& doc, TimePoint otherwise) {
  return doc.contains("DueMs") ? TimePoint{Millis{doc["DueMs"].get<int64_t>()}} : otherwise;
}

}  // namespace

std::optional<TimePoint> SettleEndpoints(Context& ctx) {
  std::optional<TimePoint> next_due;
  auto later = [&next_due](TimePoint due) {
    if (!next_due || due < *next_due) next_due = due;
  };
  for (store::ResourceRow row : ctx.store.AllOfKind(kKind, std::string("Deleting"))) {
    const TimePoint due = DueOf(json::parse(row.doc), row.modified);
    if (due <= ctx.now) {
      ctx.store.Delete(row.key);
    } else {
      later(due);
    }
  }
  for (store::ResourceRow row : ctx.store.AllOfKind(kKind, std::string("Updating"))) {
    json doc = json::parse(row.doc);
    const TimePoint due = DueOf(doc, row.modified);
    if (due > ctx.now) {
      later(due);
      continue;
    }
    if (doc.contains("Pending")) {
      // Swap to the new config if its variants get their capacity (the old instances are given
      // back in the same step); otherwise stay on the old config and say why.
      json next = {{"Variants", doc["Pending"]["Variants"]}};
      if (Provision(ctx, row, next, due, /*replacing_own=*/true) == "InService") {
        doc["Variants"] = next["Variants"];
        doc["EndpointConfigName"] = doc["Pending"]["EndpointConfigName"];
      } else {
        doc["FailureReason"] = next.value("FailureReason", "The update could not be provisioned.");
      }
      doc.erase("Pending");
    } else {
      for (json& variant : doc["Variants"]) {
        variant["CurrentInstanceCount"] = variant.value("DesiredInstanceCount", 1);
        if (variant.contains("DesiredWeight")) {
          variant["Weight"] = variant["DesiredWeight"];
          variant.erase("DesiredWeight");
        }
      }
    }
    doc.erase("DueMs");
    row.status = "InService";
    row.modified = due;
    row.doc = doc.dump();
    ctx.store.Update(row);
  }
  for (store::ResourceRow row : ctx.store.AllOfKind(kKind, std::string("Creating"))) {
    json doc = json::parse(row.doc);
    // Each attempt happens at the moment it fell due, however late the request that notices it:
    // the status change is stamped with that moment and judged by the plans of that moment.
    TimePoint due = DueOf(doc, row.modified);
    std::string status = row.status;
    while (status == "Creating" && due <= ctx.now) {
      status = Provision(ctx, row, doc, due);
      const TimePoint next = DueOf(doc, due);
      if (status == "Creating" && next <= due) break;  // no later attempt is scheduled
      if (status == "Creating") due = next;
    }
    if (status == "Creating") later(due);
    if (status == row.status && doc.dump() == row.doc) continue;
    if (status != row.status) row.modified = due;
    row.status = status;
    row.doc = doc.dump();
    ctx.store.Update(row);
  }
  return next_due;
}

std::map<std::string, int> PlanInstancesInUse(const Context& ctx) {
  return HoldingsIn(ctx.store, ctx.caller.region).by_plan;
}

std::vector<EndpointOverview> EndpointOverviews(const store::StateStore& store,
                                                const std::optional<std::string>& account) {
  std::vector<EndpointOverview> endpoints;
  for (const store::ResourceRow& row : store.AllOfKind(kKind)) {
    if (account && row.key.account != *account) continue;
    const json doc = json::parse(row.doc);
    EndpointOverview endpoint{row.key.name,
                              row.arn,
                              row.key.account,
                              row.key.region,
                              row.status,
                              doc.value("FailureReason", ""),
                              {}};
    for (const json& variant : doc.at("Variants")) {
      const int current = variant.value("CurrentInstanceCount", 0);
      endpoint.variants.push_back(
          {variant.value("VariantName", ""), variant.value("InstanceType", ""), current,
           variant.value("DesiredInstanceCount", current), PlanArnOf(variant)});
    }
    endpoints.push_back(std::move(endpoint));
  }
  return endpoints;
}

void AddEndpointHandlers(HandlerTable& table) {
  table.emplace("CreateEndpoint", &CreateEndpoint);
  table.emplace("DescribeEndpoint", &DescribeEndpoint);
  table.emplace("DeleteEndpoint", &DeleteEndpoint);
  table.emplace("ListEndpoints", &ListEndpoints);
  table.emplace("UpdateEndpointWeightsAndCapacities", &UpdateEndpointWeightsAndCapacities);
  table.emplace("UpdateEndpoint", &UpdateEndpoint);
}

}  // namespace smemu::ops
