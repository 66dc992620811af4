// An endpoint config as the store keeps it, and its codec: the members DescribeEndpointConfig
// shows back, and its production variants decoded into the domain's variants, once per stored
// version (CreateEndpoint and UpdateEndpoint take them from here).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "domain/endpoint.hpp"
#include "store/state_store.hpp"

namespace smemu::ops {

struct EndpointConfigRecord {
  store::ResourceKey key;
  std::string arn;
  TimePoint created{};
  nlohmann::json described = nlohmann::json::object();  // CreateEndpointConfig's members
  // ProductionVariants as an endpoint's variants: InstancePools by Priority, default weights.
  std::vector<domain::Variant> variants;
};

// `described` is what the record keeps; the variants are decoded from it.
EndpointConfigRecord NewEndpointConfig(store::ResourceKey key, std::string arn, TimePoint created,
                                       nlohmann::json described);
store::ResourceRow EncodeEndpointConfig(const EndpointConfigRecord& record);
// StoreFailure naming the row when it cannot be read (ops/record_codec.hpp).
EndpointConfigRecord DecodeEndpointConfig(const store::ResourceRow& row);

// The config stored under `key`, decoded once per stored version.
std::optional<EndpointConfigRecord> LoadEndpointConfig(const store::Tables& store,
                                                       const store::ResourceKey& key);

// A variant's members that an endpoint keeps as its config gave them, in the endpoint's record
// and in a ProductionVariant alike: its CapacityReservationConfig and its InstancePools.
void ReadPlacement(const nlohmann::json& given, domain::Variant& variant);

}  // namespace smemu::ops
