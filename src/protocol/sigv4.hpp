// Reading who calls from a SigV4 Authorization header. Signatures are not checked: like other local
// emulators, any credentials are accepted, but the credential scope still names the region, and an
// access key id of 12 digits names the account, so tests can keep accounts and regions apart.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace smemu::protocol {

struct CredentialScope {
  std::string access_key_id;
  std::string date;  // yyyymmdd
  std::string region;
  std::string service;
};

// Parses `AWS4-HMAC-SHA256 Credential=AKID/20260101/us-east-1/sagemaker/aws4_request, ...`.
// nullopt when the header is not a SigV4 header or its credential is malformed.
std::optional<CredentialScope> ParseAuthorization(std::string_view header);

// True for a plausible AWS region name (lower-case letters, digits and dashes, 1..32 characters).
bool IsRegionName(std::string_view region);
// True for a 12-digit account id.
bool IsAccountId(std::string_view account);

}  // namespace smemu::protocol
