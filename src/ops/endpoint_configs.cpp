// CreateEndpointConfig, DescribeEndpointConfig, ListEndpointConfigs, DeleteEndpointConfig.
// A variant with a CapacityReservationConfig is checked against the training plan it names.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "domain/plan_admission.hpp"
#include "domain/resource_kinds.hpp"
#include "ops/arn.hpp"
#include "ops/edit.hpp"
#include "ops/endpoint_config_record.hpp"
#include "ops/kinds.hpp"
#include "ops/listing.hpp"
#include "ops/plan_records.hpp"
#include "ops/tag_input.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

constexpr domain::ResourceKind kConfigKind = domain::ResourceKind::kEndpointConfig;

// Members of CreateEndpointConfigInput that DescribeEndpointConfig echoes back.
constexpr const char* kDescribedConfigMembers[] = {
    "ProductionVariants",   "DataCaptureConfig", "KmsKeyId",
    "AsyncInferenceConfig", "ExplainerConfig",   "ShadowProductionVariants",
    "ExecutionRoleArn",     "VpcConfig",         "EnableNetworkIsolation",
    "MetricsConfig"};

domain::Status RequireModel(const Context& ctx, const json& variant, const char* member) {
  if (!variant.contains(member)) return domain::Ok();
  const std::string model = variant[member];
  if (ctx.store.Get(KeyOf(ctx.caller, domain::ResourceKind::kModel, model))) return domain::Ok();
  return NotFound(ctx.caller, domain::ResourceKind::kModel, model);
}

// A variant that reserves capacity must name a live plan bought for endpoints, of its instance
// type, holding at least its initial instance count.
domain::Status CheckReservation(const Context& ctx, const json& variant) {
  const json& reservation = variant["CapacityReservationConfig"];
  const std::string variant_name = variant["VariantName"];
  if (!reservation.contains("MlReservationArn")) {
    return domain::ValidationException(
        "MlReservationArn is required in the "
        "CapacityReservationConfig of variant " +
        domain::Excerpt(variant_name) + ".");
  }
  const std::string arn = reservation["MlReservationArn"];
  const auto plan = PlanByReservationArn(ctx, arn);
  return domain::AdmitOnPlan({domain::PlanTarget::kEndpoint, arn, variant.value("InstanceType", ""),
                              variant.value("InitialInstanceCount", 1), variant_name},
                             plan ? std::optional(FactsOf(*plan)) : std::nullopt, ctx.now);
}

// InstancePools name on-demand instance types to try in Priority order (1 first), instead of one
// InstanceType: each type and each priority at most once.
domain::Status CheckInstancePools(const Context& ctx, const json& variant) {
  const std::string variant_name = variant["VariantName"];
  if (variant.contains("InstanceType")) {
    return domain::ValidationException("Variant " + domain::Excerpt(variant_name) +
                                       " cannot specify both InstanceType and InstancePools.");
  }
  if (variant.contains("CapacityReservationConfig")) {
    return domain::ValidationException(
        "Variant " + domain::Excerpt(variant_name) +
        " cannot combine InstancePools with a CapacityReservationConfig: instance pools use "
        "on-demand capacity.");
  }
  std::set<std::string> types;
  std::set<int> priorities;
  for (const json& pool : variant["InstancePools"]) {
    if (!types.insert(pool["InstanceType"].get<std::string>()).second) {
      return domain::ValidationException(
          "The InstancePools of variant " + domain::Excerpt(variant_name) + " name instance type " +
          domain::Excerpt(pool["InstanceType"].get<std::string>()) + " twice.");
    }
    if (!priorities.insert(pool["Priority"].get<int>()).second) {
      return domain::ValidationException("The InstancePools of variant " +
                                         domain::Excerpt(variant_name) + " use Priority " +
                                         std::to_string(pool["Priority"].get<int>()) + " twice.");
    }
    if (auto ok = RequireModel(ctx, pool, "ModelNameOverride"); !ok) return ok;
  }
  return domain::Ok();
}

// Serverless memory is sold in whole gigabytes: the model's range (1024..6144) says less than the
// service takes.
domain::Status CheckServerlessMemory(const json& variant, const std::string& path) {
  const auto config = variant.find("ServerlessConfig");
  if (config == variant.end() || !config->contains("MemorySizeInMB")) return domain::Ok();
  const int memory = (*config)["MemorySizeInMB"];
  if (memory % 1024 == 0) return domain::Ok();
  return domain::ValidationException(
      "1 validation error detected: Value '" + std::to_string(memory) + "' at '" + path +
      ".serverlessConfig.memorySizeInMB' failed to satisfy constraint: Member must be one of "
      "1024, 2048, 3072, 4096, 5120 or 6144 (1 GB steps)");
}

// `list_path` names the variants in messages: "productionVariants" or "shadowProductionVariants".
domain::Status CheckVariants(const Context& ctx, const json& variants,
                             const std::string& list_path) {
  int position = 0;
  for (const json& variant : variants) {
    const std::string path = list_path + "." + std::to_string(++position) + ".member";
    if (auto ok = CheckServerlessMemory(variant, path); !ok) return ok;
    if (auto ok = RequireModel(ctx, variant, "ModelName"); !ok) return ok;
    if (variant.contains("InstancePools")) {
      if (auto ok = CheckInstancePools(ctx, variant); !ok) return ok;
    }
    if (variant.contains("CapacityReservationConfig")) {
      if (auto ok = CheckReservation(ctx, variant); !ok) return ok;
    }
  }
  return domain::Ok();
}

// "You can use exactly one plan per inference endpoint" (training plans for inference endpoints):
// every variant on a plan, shadow variants too, names the same one.
domain::Status CheckOnePlan(const json& in) {
  std::vector<std::string> plans;
  for (const char* list : {"ProductionVariants", "ShadowProductionVariants"}) {
    for (const json& variant : in.value(list, json::array())) {
      const json reservation = variant.value("CapacityReservationConfig", json::object());
      if (!reservation.contains("MlReservationArn")) continue;
      const std::string arn = reservation["MlReservationArn"];
      if (std::find(plans.begin(), plans.end(), arn) == plans.end()) plans.push_back(arn);
    }
  }
  if (plans.size() <= 1) return domain::Ok();
  return domain::ValidationException(
      "An endpoint can use exactly one training plan, but the variants of this endpoint "
      "configuration name " +
      std::to_string(plans.size()) + ": " + domain::Excerpt(plans[0]) + " and " +
      domain::Excerpt(plans[1]) + ".");
}

// The service fills in a variant's default weight when it describes it.
json DescribedVariants(json variants) {
  for (json& variant : variants) {
    if (!variant.contains("InitialVariantWeight")) variant["InitialVariantWeight"] = 1.0;
  }
  return variants;
}

Result<json> CreateEndpointConfig(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointConfigName");
  if (auto ok = CheckVariants(ctx, in.at("ProductionVariants"), "productionVariants"); !ok) {
    return ok.error();
  }
  if (in.contains("ShadowProductionVariants")) {
    if (auto ok = CheckVariants(ctx, in["ShadowProductionVariants"], "shadowProductionVariants");
        !ok) {
      return ok.error();
    }
  }
  if (auto ok = CheckOnePlan(in); !ok) return ok.error();
  json doc = json::object();
  for (const char* member : kDescribedConfigMembers) {
    if (auto it = in.find(member); it != in.end() && !it->is_null()) doc[member] = *it;
  }
  doc["ProductionVariants"] = DescribedVariants(doc["ProductionVariants"]);
  if (doc.contains("ShadowProductionVariants")) {
    doc["ShadowProductionVariants"] = DescribedVariants(doc["ShadowProductionVariants"]);
  }
  const store::Tags tags = ReadTags(in);
  const std::string arn = SageMakerArn(ctx.caller, domain::kEndpointConfigKind, name);
  if (ctx.store.Get(KeyOf(ctx.caller, kConfigKind, name))) {
    return domain::ValidationException("Cannot create already existing endpoint configuration \"" +
                                       domain::Excerpt(arn) + "\".");
  }
  ctx.edit.Add(Edit::InsertEndpointConfig{
      NewEndpointConfig(KeyOf(ctx.caller, kConfigKind, name), arn, ctx.now, std::move(doc)), tags});
  return json{{"EndpointConfigArn", arn}};
}

Result<json> DescribeEndpointConfig(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointConfigName");
  auto config = LoadEndpointConfig(ctx.store, KeyOf(ctx.caller, kConfigKind, name));
  if (!config) return NotFound(ctx.caller, kConfigKind, name);
  json out = std::move(config->described);
  out["EndpointConfigName"] = config->key.name;
  out["EndpointConfigArn"] = config->arn;
  out["CreationTime"] = WriteTimestamp(config->created);
  return out;
}

Result<json> DeleteEndpointConfig(const json& in, Context& ctx) {
  const std::string name = in.at("EndpointConfigName");
  if (!ctx.store.Get(KeyOf(ctx.caller, kConfigKind, name)))
    return NotFound(ctx.caller, kConfigKind, name);
  ctx.edit.Add(Edit::EraseEndpointConfig{KeyOf(ctx.caller, kConfigKind, name)});
  return json::object();
}

Result<Answer> ListEndpointConfigs(const json& in, Context& ctx) {
  static const ListSpec kSpec{
      "ListEndpointConfigs",
      {{"CreationTime", store::SortField::kCreationTime}, {"Name", store::SortField::kName}},
      /*descending_by_default=*/true};
  return ListSimple(
      in, ctx, kSpec,
      {domain::kEndpointConfigKind, "EndpointConfigs", "EndpointConfigName", "EndpointConfigArn"});
}

void AddEndpointConfigHandlers(HandlerTable& table) {
  table.emplace("CreateEndpointConfig", &CreateEndpointConfig);
  table.emplace("DescribeEndpointConfig", &DescribeEndpointConfig);
  table.emplace("DeleteEndpointConfig", &DeleteEndpointConfig);
  table.emplace("ListEndpointConfigs", &ListEndpointConfigs);
}

}  // namespace

const KindDescriptor kEndpointConfigDescriptor{.kind = domain::ResourceKind::kEndpointConfig,
                                               .add_handlers = &AddEndpointConfigHandlers,
                                               .taggable = true};

}  // namespace smemu::ops
