#include "domain/tags.hpp"

#include <cctype>
#include <set>

namespace smemu::domain {

bool IsReservedTagKey(std::string_view key) {
  constexpr std::string_view kPrefix = "aws:";
  if (key.size() < kPrefix.size()) return false;
  for (std::size_t i = 0; i < kPrefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(key[i])) != kPrefix[i]) return false;
  }
  return true;
}

Status CheckNoReservedKeys(const std::vector<std::string>& keys) {
  for (const std::string& key : keys) {
    if (IsReservedTagKey(key)) {
      // The service's text, as a DeleteTags call answered it (aws/sagemaker-python-sdk#1301).
      return ValidationException("System prefix 'aws:' reserved for AWS usage in tag key: " +
                                 Excerpt(key));
    }
  }
  return Ok();
}

std::size_t CountAfterAdding(const std::vector<std::string>& existing_keys, const TagList& added) {
  std::set<std::string_view> keys(existing_keys.begin(), existing_keys.end());
  for (const auto& [key, value] : added) keys.insert(key);
  return keys.size();
}

Status CheckTagCount(std::size_t count) {
  if (count <= kMaxTagsPerResource) return Ok();
  return ValidationException("A resource can have at most " + std::to_string(kMaxTagsPerResource) +
                             " tags; with these tags it would have " + std::to_string(count) + ".");
}

}  // namespace smemu::domain
