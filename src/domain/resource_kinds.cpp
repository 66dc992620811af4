#include "domain/resource_kinds.hpp"

namespace smemu::domain {

AwsError MissingResourceError(ResourceKind kind, std::string_view given, std::string_view arn) {
  const MissingResource& rule = kResourceKinds[static_cast<std::size_t>(kind)].missing;
  std::string message = rule.prefix;
  if (rule.suffix) {  // a message that names the resource
    message += rule.quote_arn ? "\"" + Excerpt(arn) + "\"" : Excerpt(given);
    message += rule.suffix;
  }
  return {rule.code, std::move(message)};
}

}  // namespace smemu::domain
