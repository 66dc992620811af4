// CreateModel, DescribeModel, DeleteModel, ListModels.
#include "domain/resource_kinds.hpp"
#include "ops/arn.hpp"
#include "ops/containers.hpp"
#include "ops/edit.hpp"
#include "ops/kinds.hpp"
#include "ops/listing.hpp"
#include "ops/model_record.hpp"
#include "ops/tag_input.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

constexpr domain::ResourceKind kModel = domain::ResourceKind::kModel;

// Members of CreateModelInput that DescribeModel echoes back.
constexpr const char* kDescribedModelMembers[] = {
    "PrimaryContainer", "Containers", "InferenceExecutionConfig",
    "ExecutionRoleArn", "VpcConfig",  "EnableNetworkIsolation"};

// The service fills in defaults for a container it describes.
json DescribedContainer(json container) {
  if (!container.contains("Mode")) container["Mode"] = "SingleModel";
  if (!container.contains("Environment")) container["Environment"] = json::object();
  return container;
}

Result<json> CreateModel(const json& in, Context& ctx) {
  const std::string name = in.at("ModelName").get<std::string>();
  json doc = json::object();
  for (const char* member : kDescribedModelMembers) {
    if (auto it = in.find(member); it != in.end() && !it->is_null()) doc[member] = *it;
  }
  if (doc.contains("PrimaryContainer")) {
    if (auto ok = CheckEmulatorVariables(doc["PrimaryContainer"]); !ok) return ok.error();
    doc["PrimaryContainer"] = DescribedContainer(doc["PrimaryContainer"]);
  }
  if (doc.contains("Containers")) {
    for (json& container : doc["Containers"]) {
      if (auto ok = CheckEmulatorVariables(container); !ok) return ok.error();
      container = DescribedContainer(container);
    }
  }
  if (!doc.contains("EnableNetworkIsolation")) doc["EnableNetworkIsolation"] = false;

  const store::Tags tags = ReadTags(in);
  const std::string arn = SageMakerArn(ctx.caller, domain::kModelKind, name);
  if (ctx.store.Get(KeyOf(ctx.caller, kModel, name))) {
    return domain::ValidationException("Cannot create already existing model \"" +
                                       domain::Excerpt(arn) + "\".");
  }
  ctx.edit.Add(
      Edit::InsertModel{{KeyOf(ctx.caller, kModel, name), arn, ctx.now, std::move(doc)}, tags});
  return json{{"ModelArn", arn}};
}

Result<json> DescribeModel(const json& in, Context& ctx) {
  const std::string name = in.at("ModelName").get<std::string>();
  auto model = LoadModel(ctx.store, KeyOf(ctx.caller, kModel, name));
  if (!model) return NotFound(ctx.caller, kModel, name);
  json out = std::move(model->described);
  out["ModelName"] = model->key.name;
  out["ModelArn"] = model->arn;
  out["CreationTime"] = WriteTimestamp(model->created);
  return out;
}

Result<json> DeleteModel(const json& in, Context& ctx) {
  const std::string name = in.at("ModelName").get<std::string>();
  if (!ctx.store.Get(KeyOf(ctx.caller, kModel, name))) return NotFound(ctx.caller, kModel, name);
  ctx.edit.Add(Edit::EraseModel{KeyOf(ctx.caller, kModel, name)});
  return json::object();
}

Result<Answer> ListModels(const json& in, Context& ctx) {
  static const ListSpec kSpec{
      "ListModels",
      {{"CreationTime", store::SortField::kCreationTime}, {"Name", store::SortField::kName}},
      /*descending_by_default=*/true};
  return ListSimple(in, ctx, kSpec, {domain::kModelKind, "Models", "ModelName", "ModelArn"});
}

void AddModelHandlers(HandlerTable& table) {
  table.emplace("CreateModel", &CreateModel);
  table.emplace("DescribeModel", &DescribeModel);
  table.emplace("DeleteModel", &DeleteModel);
  table.emplace("ListModels", &ListModels);
}

}  // namespace

const KindDescriptor kModelDescriptor{
    .kind = domain::ResourceKind::kModel, .add_handlers = &AddModelHandlers, .taggable = true};

}  // namespace smemu::ops
