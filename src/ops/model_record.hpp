// A model as the store keeps it, and its codec: the members DescribeModel shows back (with the
// defaults the service fills in) and the environment its invocations run with.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>

#include "store/state_store.hpp"

namespace smemu::ops {

struct ModelRecord {
  store::ResourceKey key;
  std::string arn;
  TimePoint created{};
  nlohmann::json described = nlohmann::json::object();  // CreateModel's members, as described
};

store::ResourceRow EncodeModel(const ModelRecord& record);
// StoreFailure naming the row when it cannot be read (ops/record_codec.hpp).
ModelRecord DecodeModel(const store::ResourceRow& row);

// The model stored under `key`. DescribeModel answers with a copy of its document anyway: decoding
// it again costs less than keeping it and copying it.
std::optional<ModelRecord> LoadModel(const store::Tables& store, const store::ResourceKey& key);

// The Environment of the primary container (or of the first container) of the model stored under
// `key`, decoded once per stored version (every invocation reads it); nullopt when there is no
// such model.
std::optional<nlohmann::json> LoadModelEnvironment(const store::Tables& store,
                                                   const store::ResourceKey& key);

}  // namespace smemu::ops
