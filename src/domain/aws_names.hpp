// The shapes of AWS identifiers that the emulator checks wherever they come from (a request's
// credential scope, the command line, the capacity file). Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace smemu::domain {

// True for a plausible AWS region name (lower-case letters, digits and dashes, 1..32 characters).
bool IsRegionName(std::string_view region);
// True for a 12-digit account id.
bool IsAccountId(std::string_view account);

// The SHA-256 of `text` in lower-case hex: the root of the identifiers derived from content
// (offering ids, node ids), so that equal inputs name equal things.
std::string Sha256Hex(std::string_view text);

// An ARN as SageMaker compares it: resource names are case-insensitive and the rest of an ARN is
// lower case, so the whole ARN lower-cased (ASCII) names the same resource whatever case a
// caller wrote it in.
std::string ArnKey(std::string_view arn);

// The Availability Zone ID of a zone, as the models' pattern `[a-z]{3}\d-az\d` has it: the
// region's short code (us-west-2 -> usw2, eu-central-1 -> euc1) and the zone's letter as its
// number (a -> az1). AWS maps letters to IDs per account; the emulator's mapping is the same for
// every account. None for zones the pattern cannot name (Local Zones such as us-east-1-dfw-2a,
// regions whose code is longer, such as ap-northeast-1's apne1, and letters past i).
std::optional<std::string> AvailabilityZoneId(std::string_view zone);

// Whether `zone` names a Local Zone (us-east-1-dfw-2a) rather than a zone of a region
// (us-east-1a): its name has a location after the region's.
bool IsLocalZone(std::string_view zone);

}  // namespace smemu::domain
