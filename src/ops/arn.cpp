#include "ops/arn.hpp"

#include "store/state_store.hpp"

namespace smemu::ops {

std::string PartitionOf(std::string_view region) {
  if (region.rfind("cn-", 0) == 0) return "aws-cn";
  if (region.rfind("us-gov-", 0) == 0) return "aws-us-gov";
  return "aws";
}

std::string SageMakerArn(const Caller& caller, std::string_view resource_type,
                         std::string_view name) {
  return "arn:" + PartitionOf(caller.region) + ":sagemaker:" + caller.region + ":" +
         caller.account + ":" + std::string(resource_type) + "/" + store::NameKey(name);
}

store::ResourceKey KeyOf(const Caller& caller, domain::ResourceKind kind, std::string name) {
  return {caller.account, caller.region, domain::WireName(kind), std::move(name)};
}

domain::AwsError NotFound(const Caller& caller, domain::ResourceKind kind, std::string_view given) {
  const bool names_arn = domain::kResourceKinds[static_cast<std::size_t>(kind)].missing.quote_arn;
  const std::string arn = names_arn ? SageMakerArn(caller, domain::WireName(kind), given) : "";
  return domain::MissingResourceError(kind, given, arn);
}

std::string ArnAccount(std::string_view arn) {
  for (int field = 0; field < 4; ++field) {
    const size_t colon = arn.find(':');
    if (colon == std::string_view::npos) return "";
    arn.remove_prefix(colon + 1);
  }
  return std::string(arn.substr(0, arn.find(':')));
}

}  // namespace smemu::ops
