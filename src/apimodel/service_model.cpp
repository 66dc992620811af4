#include "apimodel/service_model.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace smemu::apimodel {
namespace {

using json = nlohmann::ordered_json;  // keeps members in model order, as AWS lists them

Shape::Type ParseType(const std::string& type, const std::string& shape_name) {
  static const std::map<std::string, Shape::Type> kTypes = {
      {"structure", Shape::Type::kStructure},
      {"list", Shape::Type::kList},
      {"map", Shape::Type::kMap},
      {"string", Shape::Type::kString},
      {"integer", Shape::Type::kInteger},
      {"long", Shape::Type::kLong},
      {"float", Shape::Type::kFloat},
      {"double", Shape::Type::kDouble},
      {"boolean", Shape::Type::kBoolean},
      {"timestamp", Shape::Type::kTimestamp},
      {"blob", Shape::Type::kBlob},
  };
  auto it = kTypes.find(type);
  if (it == kTypes.end()) {
    throw std::runtime_error("shape " + shape_name + " has unsupported type " + type);
  }
  return it->second;
}

std::optional<double> OptionalNumber(const json& spec, const char* key) {
  if (!spec.contains(key)) return std::nullopt;
  return spec.at(key).get<double>();
}

}  // namespace

const Member* Shape::FindMember(std::string_view member_name) const {
  for (const Member& m : members) {
    if (m.name == member_name) return &m;
  }
  return nullptr;
}

std::unique_ptr<ServiceModel> ServiceModel::Load(std::string_view model_json) {
  auto model = std::make_unique<ServiceModel>();
  const json doc = json::parse(model_json);
  const json& metadata = doc.at("metadata");
  model->protocol_ = metadata.at("protocol").get<std::string>();
  model->target_prefix_ = metadata.value("targetPrefix", "");

  // First create every shape so references can be linked regardless of order.
  for (const auto& [name, spec] : doc.at("shapes").items()) {
    auto shape = std::make_unique<Shape>();
    shape->name = name;
    shape->type = ParseType(spec.at("type").get<std::string>(), name);
    model->shapes_.emplace(name, std::move(shape));
  }
  auto resolve = [&](const json& ref) -> const Shape* {
    const std::string target = ref.at("shape").get<std::string>();
    const Shape* shape = model->FindShape(target);
    if (shape == nullptr) throw std::runtime_error("unknown shape reference " + target);
    return shape;
  };
  for (const auto& [name, spec] : doc.at("shapes").items()) {
    Shape& shape = *model->shapes_.at(name);
    shape.min = OptionalNumber(spec, "min");
    shape.max = OptionalNumber(spec, "max");
    shape.is_union = spec.value("union", false);
    shape.is_exception = spec.value("exception", false);
    shape.payload = spec.value("payload", "");
    if (spec.contains("pattern")) {
      shape.pattern = std::make_unique<Pattern>(spec.at("pattern").get<std::string>());
    }
    if (spec.contains("enum")) shape.enum_values = spec.at("enum").get<std::vector<std::string>>();
    if (spec.contains("member")) shape.member = resolve(spec.at("member"));
    if (spec.contains("key")) shape.key = resolve(spec.at("key"));
    if (spec.contains("value")) shape.value = resolve(spec.at("value"));
    const auto required = spec.value("required", std::vector<std::string>{});
    const json members = spec.value("members", json::object());  // outlives the loop below
    for (const auto& [member_name, member_spec] : members.items()) {
      Member member;
      member.name = member_name;
      member.shape = resolve(member_spec);
      member.required = std::find(required.begin(), required.end(), member_name) != required.end();
      member.location = member_spec.value("location", "");
      member.location_name = member_spec.value("locationName", "");
      shape.members.push_back(std::move(member));
    }
  }
  for (const auto& [name, spec] : doc.at("operations").items()) {
    Operation operation;
    operation.name = name;
    if (spec.contains("input")) operation.input = resolve(spec.at("input"));
    if (spec.contains("output")) operation.output = resolve(spec.at("output"));
    const json& http = spec.at("http");
    operation.http_method = http.value("method", "POST");
    operation.request_uri = http.value("requestUri", "/");
    operation.success_code = http.value("responseCode", 200);
    model->operations_.emplace(name, std::move(operation));
  }
  return model;
}

const Operation* ServiceModel::FindOperation(std::string_view name) const {
  auto it = operations_.find(name);
  return it == operations_.end() ? nullptr : &it->second;
}

const Shape* ServiceModel::FindShape(std::string_view name) const {
  auto it = shapes_.find(name);
  return it == shapes_.end() ? nullptr : it->second.get();
}

}  // namespace smemu::apimodel
