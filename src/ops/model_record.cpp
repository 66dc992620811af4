#include "ops/model_record.hpp"

#include "ops/record_codec.hpp"

namespace smemu::ops {

using nlohmann::json;

store::ResourceRow EncodeModel(const ModelRecord& record) {
  // Models never change: the status column is empty and the modified time is the creation time.
  return {record.key, record.arn, "", record.created, record.created, record.described.dump()};
}

ModelRecord DecodeModel(const store::ResourceRow& row) {
  return codec::Decoding(row, [](const store::ResourceRow& read) {
    json described = codec::Document(read);
    if (!described.is_object()) throw codec::Unreadable("the document is not an object");
    return ModelRecord{read.key, read.arn, read.created, std::move(described)};
  });
}

std::optional<ModelRecord> LoadModel(const store::Tables& store, const store::ResourceKey& key) {
  const auto row = store.Get(key);
  if (!row) return std::nullopt;
  return DecodeModel(*row);
}

namespace {

json EnvironmentOf(const ModelRecord& model) {
  const json& doc = model.described;
  if (doc.contains("PrimaryContainer")) {
    return doc["PrimaryContainer"].value("Environment", json::object());
  }
  if (doc.contains("Containers") && !doc["Containers"].empty()) {
    return doc["Containers"][0].value("Environment", json::object());
  }
  return json::object();
}

}  // namespace

std::optional<json> LoadModelEnvironment(const store::Tables& store,
                                         const store::ResourceKey& key) {
  // Its own type, so that no other value decoded from a model's row is taken for it.
  struct Environment {
    json variables;
  };
  const auto environment = store.GetDecoded<Environment>(key, [](const store::ResourceRow& row) {
    return Environment{EnvironmentOf(DecodeModel(row))};
  });
  if (!environment) return std::nullopt;
  return environment->variables;
}

}  // namespace smemu::ops
