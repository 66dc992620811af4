// AddTags, ListTags, DeleteTags on every resource kind the emulator serves. Tags are kept per ARN
// (store table `tags`); Create* requests store theirs, and deleting a resource deletes them.
#include "domain/tags.hpp"

#include "domain/resource_kinds.hpp"
#include "ops/edit.hpp"
#include "ops/kinds.hpp"
#include "ops/listing.hpp"
#include "ops/plan_records.hpp"
#include "ops/tag_input.hpp"

namespace smemu::ops {
namespace {

using domain::Result;
using nlohmann::json;

// ListTags' page size when MaxResults is not given: the model's minimum, which is also the most
// tags a resource can have, so one page always holds them all.
constexpr int kDefaultTagPage = 50;

// The kinds whose resources take tags, as their descriptors say.
bool Taggable(const std::string& kind) {
  const KindDescriptor* descriptor = DescriptorNamed(kind);
  return descriptor != nullptr && descriptor->taggable;
}

// The caller's resource with this ARN. A resource of another account or region, of a kind the
// emulator does not serve, or none at all, is not found: every operation sees only the caller's
// own account and region.
Result<store::ResourceRow> FindTaggable(const Context& ctx, const std::string& arn) {
  auto row = ctx.store.FindByArn(arn);
  if (!row || row->key.account != ctx.caller.account || row->key.region != ctx.caller.region ||
      !Taggable(row->key.kind)) {
    return domain::ValidationException("Could not find resource \"" + domain::Excerpt(arn) + "\".");
  }
  return std::move(*row);
}

Result<json> AddTags(const json& in, Context& ctx) {
  const std::string arn = in.at("ResourceArn").get<std::string>();
  const store::Tags added = ReadTags(in);  // reserved keys: refused before (CheckRequestTags)
  const auto row = FindTaggable(ctx, arn);
  if (!row) return row.error();
  std::vector<std::string> existing;
  for (const store::PositionedTag& tag : ctx.store.GetPositionedTags(arn)) {
    existing.push_back(tag.key);
  }
  if (auto ok = domain::CheckTagCount(domain::CountAfterAdding(existing, added)); !ok) {
    return ok.error();
  }
  ctx.edit.Add(Edit::PutTags{arn, added});
  json tags = json::array();
  for (const auto& [key, value] : added) tags.push_back({{"Key", key}, {"Value", value}});
  return json{{"Tags", std::move(tags)}};
}

Result<json> ListTags(const json& in, Context& ctx) {
  const std::string arn = in.at("ResourceArn").get<std::string>();
  const auto row = FindTaggable(ctx, arn);
  if (!row) return row.error();
  // In the order the tags were added; a key is unique on its resource, so it breaks ties.
  static const ListSpec kSpec{"ListTags",
                              {{"Position", std::nullopt, /*numeric=*/true}},
                              /*descending_by_default=*/false,
                              kDefaultTagPage};
  auto request = ReadListRequest(in, kSpec);
  if (!request) return request.error();
  std::vector<Positioned<json>> tags;
  for (const store::PositionedTag& tag : ctx.store.GetPositionedTags(arn)) {
    tags.push_back({{tag.position, tag.key}, {{"Key", tag.key}, {"Value", tag.value}}});
  }
  auto page = Paginate<json>(kSpec, *request, InMemorySource(std::move(tags), false));
  json out = {{"Tags", std::move(page.items)}};
  if (page.next_token) out["NextToken"] = *page.next_token;
  return out;
}

Result<json> DeleteTags(const json& in, Context& ctx) {
  const std::string arn = in.at("ResourceArn").get<std::string>();
  auto keys = in.at("TagKeys").get<std::vector<std::string>>();
  if (auto ok = domain::CheckNoReservedKeys(keys); !ok) return ok.error();
  const auto row = FindTaggable(ctx, arn);
  if (!row) return row.error();
  // Keys the resource does not have are no error.
  ctx.edit.Add(Edit::DeleteTags{arn, std::move(keys)});
  return json::object();
}

}  // namespace

void AddTagHandlers(HandlerTable& table) {
  table.emplace("AddTags", &AddTags);
  table.emplace("ListTags", &ListTags);
  table.emplace("DeleteTags", &DeleteTags);
}

}  // namespace smemu::ops
