// ARNs of the resources the emulator keeps. AWS puts the lower-cased name in the ARN while the
// resource keeps the case its creator gave.
#pragma once

#include <string>
#include <string_view>

#include "domain/aws_error.hpp"
#include "domain/resource_kinds.hpp"
#include "ops/context.hpp"

namespace smemu::ops {

// "aws", or "aws-cn" / "aws-us-gov" for those regions.
std::string PartitionOf(std::string_view region);

// arn:<partition>:sagemaker:<region>:<account>:<resource_type>/<lower-cased name>
std::string SageMakerArn(const Caller& caller, std::string_view resource_type,
                         std::string_view name);

// The store key of the caller's `kind` resource named `name`.
store::ResourceKey KeyOf(const Caller& caller, domain::ResourceKind kind, std::string name);

// The error for the caller's `kind` resource that the caller named `given` (a name or an ARN)
// and that does not exist, in the words AWS uses for that kind.
domain::AwsError NotFound(const Caller& caller, domain::ResourceKind kind, std::string_view given);

// The account field of an ARN (its fifth, colon-separated part); empty when there is none.
std::string ArnAccount(std::string_view arn);

}  // namespace smemu::ops
