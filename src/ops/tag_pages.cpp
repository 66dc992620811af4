#include "ops/tag_pages.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

domain::AwsError InvalidToken() {
  return domain::ValidationException("Invalid pagination token because of a malformed NextToken.");
}

}  // namespace

std::string TagPageToken(const store::PositionedTag& last) {
  return Base64Encode(json{{"tag_position", last.position}, {"tag_key", last.key}}.dump());
}

domain::Result<TagPage> PageOfTags(const std::vector<store::PositionedTag>& ordered,
                                   int max_results, const std::string& token) {
  auto first = ordered.begin();
  if (!token.empty()) {
    const auto decoded = Base64Decode(token);
    if (!decoded) return InvalidToken();
    const json cursor = json::parse(*decoded, nullptr, /*allow_exceptions=*/false);
    if (!cursor.is_object() || !cursor.contains("tag_position") ||
        !cursor["tag_position"].is_number_integer() || !cursor.contains("tag_key") ||
        !cursor["tag_key"].is_string()) {
      return InvalidToken();
    }
    const auto after = std::make_tuple(cursor["tag_position"].get<int64_t>(),
                                       cursor["tag_key"].get<std::string>());
    first = std::find_if(ordered.begin(), ordered.end(), [&after](const store::PositionedTag& t) {
      return std::tie(t.position, t.key) > std::tie(std::get<0>(after), std::get<1>(after));
    });
  }
  TagPage page;
  const auto available = static_cast<std::size_t>(ordered.end() - first);
  const std::size_t take = std::min(available, static_cast<std::size_t>(std::max(max_results, 1)));
  page.tags.assign(first, first + static_cast<std::ptrdiff_t>(take));
  if (take < available) page.next_token = TagPageToken(page.tags.back());
  return page;
}

}  // namespace smemu::ops
