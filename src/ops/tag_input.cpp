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
  const auto tags = input.find("Tags");
  if (tags == input.end() || !tags->is_array()) return domain::Ok();
  std::vector<std::string> keys;
  for (const auto& [key, value] : ReadTags(input)) keys.push_back(key);
  return domain::CheckNoReservedKeys(keys);
}

}  // namespace smemu::ops
