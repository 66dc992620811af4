#include "apimodel/service_model.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <tuple>

namespace smemu::apimodel {
namespace {

using json = nlohmann::json;

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

}  // namespace

// Builds the model from the parser's events, in document order, with no JSON tree in between:
// building a tree of the control-plane model (an ordered_json, whose objects insert each key after
// a linear search) and copying parts of it took most of an empty start. What the model does not
// use (documentation, ...) goes by unread. Shape references stay names until Finish(),
// since a shape may be used before it is defined.
class ServiceModel::Builder : public nlohmann::json_sax<json> {
 public:
  explicit Builder(ServiceModel& model) : model_(model) {}

  // Resolves the references and checks what the events could not. Throws std::runtime_error.
  void Finish() {
    if (model_.protocol_.empty()) throw std::runtime_error("the model names no protocol");
    for (const auto& [name, shape] : model_.shapes_) {
      if (!typed_.count(shape.get())) throw std::runtime_error("shape " + name + " has no type");
    }
    for (const auto& [slot, target] : references_) *slot = Resolve(target);
    for (const auto& [shape, index, target] : member_references_) {
      shape->members[index].shape = Resolve(target);
    }
    for (const auto& [operation, index, target] : error_references_) {
      operation->errors[index] = Resolve(target);
    }
    for (const auto& [shape, names] : required_) {
      for (Member& member : shape->members) {
        member.required = std::find(names.begin(), names.end(), member.name) != names.end();
      }
    }
  }

  bool null() override { return true; }
  bool boolean(bool value) override {
    if (Shape* shape = InShape()) {
      if (key_ == "union") shape->is_union = value;
      if (key_ == "exception") shape->is_exception = value;
      if (key_ == "eventstream") shape->is_event_stream = value;
    }
    return true;
  }
  bool number_integer(number_integer_t value) override {
    return Number(static_cast<double>(value));
  }
  bool number_unsigned(number_unsigned_t value) override {
    return Number(static_cast<double>(value));
  }
  bool number_float(number_float_t value, const string_t&) override { return Number(value); }
  bool string(string_t& value) override {
    const size_t depth = path_.size();
    if (in_array_) {
      if (shape_ != nullptr && depth == 4 && path_[3] == "enum") {
        shape_->enum_values.push_back(std::move(value));
      } else if (shape_ != nullptr && depth == 4 && path_[3] == "required") {
        required_[shape_].push_back(std::move(value));
      }
    } else if (depth == 2 && path_[1] == "metadata") {
      if (key_ == "protocol") model_.protocol_ = std::move(value);
      if (key_ == "targetPrefix") model_.target_prefix_ = std::move(value);
    } else if (operation_ != nullptr && depth == 4) {
      if (key_ == "shape" && path_[3] == "input") {
        references_.emplace_back(&operation_->input, std::move(value));
      } else if (key_ == "shape" && path_[3] == "output") {
        references_.emplace_back(&operation_->output, std::move(value));
      } else if (path_[3] == "http" && key_ == "method") {
        operation_->http_method = std::move(value);
      } else if (path_[3] == "http" && key_ == "requestUri") {
        operation_->request_uri = std::move(value);
      }
    } else if (operation_ != nullptr && depth == 5 && path_[3] == "errors" && key_ == "shape") {
      error_references_.emplace_back(operation_, operation_->errors.size(), std::move(value));
      operation_->errors.push_back(nullptr);
    } else if (Shape* shape = InShape()) {
      if (key_ == "type") {
        shape->type = ParseType(value, shape->name);
        typed_.insert(shape);
      } else if (key_ == "pattern") {
        shape->pattern = std::make_unique<Pattern>(std::move(value));
      } else if (key_ == "payload") {
        shape->payload = std::move(value);
      }
    } else if (shape_ != nullptr && depth == 4 && key_ == "shape") {
      if (path_[3] == "member") references_.emplace_back(&shape_->member, std::move(value));
      if (path_[3] == "key") references_.emplace_back(&shape_->key, std::move(value));
      if (path_[3] == "value") references_.emplace_back(&shape_->value, std::move(value));
    } else if (shape_ != nullptr && depth == 5 && path_[3] == "members") {
      Member& member = shape_->members.back();
      if (key_ == "shape") {
        member_references_.emplace_back(shape_, shape_->members.size() - 1, std::move(value));
      } else if (key_ == "location") {
        member.location = std::move(value);
      } else if (key_ == "locationName") {
        member.location_name = std::move(value);
      }
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    const size_t depth = path_.size();  // of the object this one is in
    if (!in_array_ && depth == 2 && path_[1] == "shapes") {
      auto shape = std::make_unique<Shape>();
      shape->name = key_;
      shape_ = shape.get();
      if (!model_.shapes_.emplace(key_, std::move(shape)).second) {
        throw std::runtime_error("shape " + key_ + " is defined twice");
      }
    } else if (!in_array_ && depth == 2 && path_[1] == "operations") {
      operation_ = &model_.operations_[key_];
      operation_->name = key_;
      operation_->http_method = "POST";
      operation_->request_uri = "/";
    } else if (!in_array_ && shape_ != nullptr && depth == 4 && path_[3] == "members") {
      shape_->members.push_back(Member{key_, nullptr, false, "", ""});
    }
    Enter(false);
    return true;
  }
  bool key(string_t& value) override {
    key_ = std::move(value);
    return true;
  }
  bool end_object() override {
    Leave();
    return true;
  }
  bool start_array(std::size_t) override {
    Enter(true);
    return true;
  }
  bool end_array() override {
    Leave();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    throw std::runtime_error(std::string("the model is not valid JSON: ") + e.what());
  }

 private:
  // path_ names the open containers: "" for the root and for elements of arrays, else the key the
  // container is under. shapes.<name>.members.<member> is ["", "shapes", name, "members", member].
  void Enter(bool array) {
    path_.push_back(in_array_ ? std::string() : std::move(key_));
    arrays_.push_back(array);
    in_array_ = array;
  }
  void Leave() {
    path_.pop_back();
    arrays_.pop_back();
    in_array_ = !arrays_.empty() && arrays_.back();
    if (path_.size() <= 2) {  // left a shape or an operation
      shape_ = nullptr;
      operation_ = nullptr;
    }
  }
  // The shape whose own members (type, min, ...) are being read, if any.
  Shape* InShape() const { return !in_array_ && path_.size() == 3 ? shape_ : nullptr; }
  bool Number(double value) {
    if (Shape* shape = InShape()) {
      if (key_ == "min") shape->min = value;
      if (key_ == "max") shape->max = value;
    } else if (shape_ != nullptr && !in_array_ && path_.size() == 4 && path_[3] == "error" &&
               key_ == "httpStatusCode") {
      shape_->error_status = static_cast<int>(value);
    } else if (operation_ != nullptr && !in_array_ && path_.size() == 4 && path_[3] == "http" &&
               key_ == "responseCode") {
      operation_->success_code = static_cast<int>(value);
    }
    return true;
  }
  const Shape* Resolve(const std::string& target) const {
    const Shape* shape = model_.FindShape(target);
    if (shape == nullptr) throw std::runtime_error("unknown shape reference " + target);
    return shape;
  }

  ServiceModel& model_;
  std::vector<std::string> path_;
  std::vector<bool> arrays_;        // whether each open container is an array
  bool in_array_ = false;           // arrays_.back()
  std::string key_;                 // the last key read
  Shape* shape_ = nullptr;          // the shape being read (inside shapes.<name>)
  Operation* operation_ = nullptr;  // the operation being read (inside operations.<name>)
  std::set<const Shape*> typed_;
  std::vector<std::pair<const Shape**, std::string>> references_;
  std::vector<std::tuple<Shape*, size_t, std::string>> member_references_;
  std::vector<std::tuple<Operation*, size_t, std::string>> error_references_;
  std::map<Shape*, std::vector<std::string>> required_;
};

const Member* Shape::FindMember(std::string_view member_name) const {
  for (const Member& m : members) {
    if (m.name == member_name) return &m;
  }
  return nullptr;
}

std::unique_ptr<ServiceModel> ServiceModel::Load(std::string_view model_json) {
  auto model = std::make_unique<ServiceModel>();
  Builder builder(*model);
  json::sax_parse(model_json, &builder);
  builder.Finish();
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
