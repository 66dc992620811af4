#include "ops/tag_input.hpp"

#include <string>
#include <vector>

#include "domain/tags.hpp"

namespace smemu::ops {

using nlohmann::json;

store::Tags ReadTags(const json& input) {
  store::Tags tags;
  for (const json& tag : input.value("Tags", json::array())) {
    tags.emplace_back(tag.at("Key").get<std::string>(), tag.value("Value", ""));
  }
  return tags;
}

domain::Status CheckRequestTags(const json& input) {
  // Runs before the handler, also for operations whose model has no Tags member (the validator
  // ignores members a model does not know): anything that is not a list of tags is left alone.
  const auto tags = input.find("Tags");
  if (tags == input.end() || !tags->is_array()) return domain::Ok();
  std::vector<std::string> keys;
  for (const json& tag : *tags) {
    const auto key = tag.is_object() ? tag.find("Key") : tag.end();
    if (tag.is_object() && key != tag.end() && key->is_string()) keys.push_back(*key);
  }
  return domain::CheckNoReservedKeys(keys);
}

}  // namespace smemu::ops
