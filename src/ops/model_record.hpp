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

// The model repository's writes, in the caller's write scope. False when the key exists already
// (InsertModel) or is missing (EraseModel); nothing is written then.
bool InsertModel(store::StateStore& store, const ModelRecord& record, const store::Tags& tags);
bool EraseModel(store::StateStore& store, const store::ResourceKey& key);

// The model stored under `key`, decoded once per stored version.
std::optional<ModelRecord> LoadModel(const store::StateStore& store, const store::ResourceKey& key);

// The Environment of the model's primary container (or of its first container); empty when it
// has none.
nlohmann::json EnvironmentOf(const ModelRecord& model);

}  // namespace smemu::ops
