#include "ops/listing.hpp"

#include <cstring>

#include "ops/wire_values.hpp"

namespace smemu::ops {
namespace {

using nlohmann::json;

domain::AwsError InvalidToken() {
  return domain::ValidationException("Invalid pagination token because of a malformed NextToken.");
}

bool IsNumeric(const SortKey& key) {
  return key.numeric || key.column == store::SortField::kCreationTime;
}

// The token's value, if it has the sort key's type.
std::optional<store::SortValue> ReadSortValue(const json& value, const SortKey& key) {
  if (IsNumeric(key)) {
    if (!value.is_number_integer()) return std::nullopt;
    return store::SortValue{value.get<int64_t>()};
  }
  if (!value.is_string()) return std::nullopt;
  return store::SortValue{value.get<std::string>()};
}

}  // namespace

domain::Result<ListRequest> ReadListRequest(const json& input, const ListSpec& spec) {
  ListRequest request;
  request.sort = &spec.sort_keys.front();
  if (auto it = input.find("SortBy"); it != input.end() && it->is_string()) {
    for (const SortKey& key : spec.sort_keys) {
      if (*it == key.wire_name) request.sort = &key;
    }
  }
  request.descending = spec.descending_by_default;
  if (auto it = input.find("SortOrder"); it != input.end() && it->is_string()) {
    request.descending = *it == "Descending";
  }
  if (auto it = input.find("MaxResults"); it != input.end() && it->is_number_integer()) {
    request.limit = it->get<int>();
    request.limit_given = true;
  } else {
    request.limit = spec.default_limit;
  }

  const std::string token = input.value("NextToken", "");
  if (token.empty()) return request;
  const auto decoded = Base64Decode(token);
  if (!decoded) return InvalidToken();
  const json cursor = json::parse(*decoded, nullptr, /*allow_exceptions=*/false);
  // A token is untrusted input: every member is compared as JSON, which never throws on a type
  // that is not the expected one (json::value() would).
  const auto holds = [&cursor](const char* member, const json& expected) {
    const auto it = cursor.find(member);
    return it != cursor.end() && *it == expected;
  };
  if (!cursor.is_object() || !holds("op", spec.operation) ||
      !holds("sort", request.sort->wire_name) || !holds("descending", request.descending) ||
      !cursor.contains("value") || !cursor.contains("tiebreak") ||
      !cursor["tiebreak"].is_string()) {
    return InvalidToken();
  }
  auto value = ReadSortValue(cursor["value"], *request.sort);
  if (!value) return InvalidToken();
  request.after = SortPosition{std::move(*value), cursor["tiebreak"].get<std::string>()};
  return request;
}

std::string EncodeNextToken(const ListSpec& spec, const ListRequest& request,
                            const SortPosition& last) {
  json cursor = {{"op", spec.operation},
                 {"sort", request.sort->wire_name},
                 {"descending", request.descending},
                 {"tiebreak", last.tiebreak}};
  std::visit([&](const auto& value) { cursor["value"] = value; }, last.value);
  return Base64Encode(cursor.dump());
}

StoreFilters ReadStoreFilters(const json& input) {
  StoreFilters filters;
  if (auto it = input.find("NameContains"); it != input.end() && it->is_string()) {
    filters.name_contains = it->get<std::string>();
  }
  filters.created_after = OptionalTimestamp(input, "CreationTimeAfter");
  filters.created_before = OptionalTimestamp(input, "CreationTimeBefore");
  filters.modified_after = OptionalTimestamp(input, "LastModifiedTimeAfter");
  filters.modified_before = OptionalTimestamp(input, "LastModifiedTimeBefore");
  if (auto it = input.find("StatusEquals"); it != input.end() && it->is_string()) {
    filters.status = it->get<std::string>();
  }
  return filters;
}

namespace {

store::ListQuery QueryOf(const Context& ctx, const std::string& kind, const ListRequest& request,
                         const StoreFilters& filters) {
  store::ListQuery query;
  query.account = ctx.caller.account;
  query.region = ctx.caller.region;
  query.kind = kind;
  query.name_contains = filters.name_contains;
  query.created_after = filters.created_after;
  query.created_before = filters.created_before;
  query.modified_after = filters.modified_after;
  query.modified_before = filters.modified_before;
  query.status = filters.status;
  query.plan = filters.plan;
  query.sort = request.sort->column.value();
  query.descending = request.descending;
  return query;
}

}  // namespace

Source<store::KeptRowPtr> StoreSource(const Context& ctx, const std::string& kind,
                                      const ListRequest& request, const StoreFilters& filters) {
  return [&store = ctx.store, query = QueryOf(ctx, kind, request, filters)](
             const std::optional<SortPosition>& after, int count) mutable {
    query.limit = count;
    query.after.reset();
    if (after) query.after = store::ListQuery::Cursor{after->value, after->tiebreak};
    store::ListPage page = store.List(query);
    std::vector<Positioned<store::KeptRowPtr>> batch;
    batch.reserve(page.kept.size());
    for (size_t i = 0; i < page.kept.size(); ++i) {
      store::ListQuery::Cursor& position = page.positions[i];
      batch.push_back(
          {{std::move(position.value), std::move(position.name_key)}, std::move(page.kept[i])});
    }
    return batch;
  };
}

domain::Result<Answer> ListSimple(const json& input, const Context& ctx, const ListSpec& spec,
                                  const SimpleListing& listing) {
  auto request = ReadListRequest(input, spec);
  if (!request) return request.error();
  auto page = Paginate<store::KeptRowPtr>(
      spec, *request, StoreSource(ctx, listing.kind, *request, ReadStoreFilters(input)));
  return WriteListAnswerLater(listing.list_member, std::move(page),
                              [name_member = listing.name_member, arn_member = listing.arn_member](
                                  JsonWriter& out, const store::KeptRowPtr& kept) {
                                const store::ResourceRow& row = kept->row();
                                out.Member(name_member, row.key.name)
                                    .Member(arn_member, row.arn)
                                    .TimestampMember("CreationTime", row.created);
                              });
}

}  // namespace smemu::ops
