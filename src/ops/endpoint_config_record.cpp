#include "ops/endpoint_config_record.hpp"

#include <algorithm>

#include "ops/record_codec.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

std::vector<domain::Variant> VariantsFromConfig(const json& config) {
  std::vector<domain::Variant> variants;
  for (const json& given : config.at("ProductionVariants")) {
    domain::Variant variant;
    variant.name = given.at("VariantName");
    variant.instance_type = given.value("InstanceType", "");
    variant.desired_count = given.value("InitialInstanceCount", 1);
    variant.weight = given.value("InitialVariantWeight", 1.0);
    variant.model_name = codec::OptionalText(given, "ModelName");
    ReadPlacement(given, variant);
    std::stable_sort(variant.instance_pools.begin(), variant.instance_pools.end(),
                     [](const domain::InstancePool& a, const domain::InstancePool& b) {
                       return a.priority < b.priority;
                     });
    variants.push_back(std::move(variant));
  }
  return variants;
}

}  // namespace

void ReadPlacement(const json& given, domain::Variant& variant) {
  if (given.contains("CapacityReservationConfig")) {
    const json& config = given["CapacityReservationConfig"];
    variant.reservation = domain::ReservationConfig{
        config.value("CapacityReservationPreference", ""), config.value("MlReservationArn", "")};
  }
  for (const json& pool : given.value("InstancePools", json::array())) {
    variant.instance_pools.push_back({pool.at("InstanceType"), pool.value("Priority", 0),
                                      codec::OptionalText(pool, "ModelNameOverride")});
  }
}

EndpointConfigRecord NewEndpointConfig(store::ResourceKey key, std::string arn, TimePoint created,
                                       json described) {
  std::vector<domain::Variant> variants = VariantsFromConfig(described);
  return {std::move(key), std::move(arn), created, std::move(described), std::move(variants)};
}

store::ResourceRow EncodeEndpointConfig(const EndpointConfigRecord& record) {
  // Configs never change: the status column is empty and the modified time is the creation time.
  return {record.key, record.arn, "", record.created, record.created, record.described.dump()};
}

EndpointConfigRecord DecodeEndpointConfig(const store::ResourceRow& row) {
  return codec::Decoding(row, [](const store::ResourceRow& read) {
    return NewEndpointConfig(read.key, read.arn, read.created, codec::Document(read));
  });
}

std::optional<EndpointConfigRecord> LoadEndpointConfig(const store::Tables& store,
                                                       const store::ResourceKey& key) {
  return store.GetDecoded<EndpointConfigRecord>(key, &DecodeEndpointConfig);
}

}  // namespace smemu::ops
