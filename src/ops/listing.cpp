#include "ops/listing.hpp"

#include "ops/context.hpp"
#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

constexpr int kDefaultMaxResults = 10;  // SageMaker's List* default page size

const char* SortName(store::SortField sort) {
  switch (sort) {
    case store::SortField::kName:
      return "Name";
    case store::SortField::kStatus:
      return "Status";
    case store::SortField::kCreationTime:
      break;
  }
  return "CreationTime";
}

domain::AwsError InvalidToken() {
  return domain::ValidationException("Invalid pagination token because of a malformed NextToken.");
}

}  // namespace

domain::Result<store::ListQuery> ReadListRequest(const json& input, const std::string& kind,
                                                 const Context& ctx) {
  store::ListQuery query;
  query.account = ctx.caller.account;
  query.region = ctx.caller.region;
  query.kind = kind;
  const std::string sort_by = input.value("SortBy", "CreationTime");
  query.sort = sort_by == "Name"     ? store::SortField::kName
               : sort_by == "Status" ? store::SortField::kStatus
                                     : store::SortField::kCreationTime;
  query.descending = input.value("SortOrder", "Descending") == "Descending";
  query.limit = input.value("MaxResults", kDefaultMaxResults);
  if (auto it = input.find("NameContains"); it != input.end() && it->is_string()) {
    query.name_contains = it->get<std::string>();
  }
  query.created_after = OptionalTimestamp(input, "CreationTimeAfter");
  query.created_before = OptionalTimestamp(input, "CreationTimeBefore");
  query.modified_after = OptionalTimestamp(input, "LastModifiedTimeAfter");
  query.modified_before = OptionalTimestamp(input, "LastModifiedTimeBefore");
  if (auto it = input.find("StatusEquals"); it != input.end() && it->is_string()) {
    query.status = it->get<std::string>();
  }

  const std::string token = input.value("NextToken", "");
  if (token.empty()) return query;
  const auto decoded = Base64Decode(token);
  if (!decoded) return InvalidToken();
  const json cursor = json::parse(*decoded, nullptr, /*allow_exceptions=*/false);
  if (!cursor.is_object() || cursor.value("kind", "") != kind ||
      cursor.value("sort", "") != SortName(query.sort) ||
      cursor.value("descending", !query.descending) != query.descending ||
      !cursor.contains("created_ms") || !cursor["created_ms"].is_number_integer() ||
      !cursor.contains("name") || !cursor["name"].is_string()) {
    return InvalidToken();
  }
  query.after =
      store::ListQuery::Cursor{cursor["created_ms"].get<int64_t>(),
                               cursor["name"].get<std::string>(), cursor.value("status", "")};
  return query;
}

void WriteNextToken(const store::ListQuery& query, const store::ListPage& page, json& out) {
  if (!page.has_more || page.rows.empty()) return;
  const store::ResourceRow& last = page.rows.back();
  const json cursor = {{"kind", query.kind},
                       {"sort", SortName(query.sort)},
                       {"descending", query.descending},
                       {"created_ms", last.created.time_since_epoch().count()},
                       {"name", store::NameKey(last.key.name)},
                       {"status", last.status}};
  out["NextToken"] = Base64Encode(cursor.dump());
}

domain::Result<json> ListSimple(const json& input, const Context& ctx,
                                const SimpleListing& listing) {
  auto query = ReadListRequest(input, listing.kind, ctx);
  if (!query) return query.error();
  const store::ListPage page = ctx.store.List(*query);
  json items = json::array();
  for (const store::ResourceRow& row : page.rows) {
    items.push_back({{listing.name_member, row.key.name},
                     {listing.arn_member, row.arn},
                     {"CreationTime", WriteTimestamp(row.created)}});
  }
  json out = {{listing.list_member, std::move(items)}};
  WriteNextToken(*query, page, out);
  return out;
}

store::Tags ReadTags(const json& input) {
  store::Tags tags;
  for (const json& tag : input.value("Tags", json::array())) {
    tags.emplace_back(tag.at("Key").get<std::string>(), tag.value("Value", ""));
  }
  return tags;
}

}  // namespace smemu::ops
