// The access keys strict authentication (--credentials FILE) accepts, read once at startup:
//   {"credentials": [{"access_key_id": "...", "secret_access_key": "...", "account_id": "..."}]}
// `account_id` is optional: by default a 12-digit access key id is its own account, and any other
// key belongs to --account-id, as for unauthenticated callers. Immutable once loaded; safe to read
// from any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace smemu::protocol {

struct Credential {
  std::string access_key_id;
  std::string secret_access_key;
  std::string account_id;  // always 12 digits
};

// Keyed by access key id.
using CredentialTable = std::map<std::string, Credential, std::less<>>;

// Parses a credentials file's text. `source` names it in errors, `default_account` is
// --account-id. Throws std::runtime_error naming the source and the field, e.g.
// "creds.json: credentials[1].secret_access_key: is required".
CredentialTable ParseCredentials(std::string_view text, const std::string& source,
                                 const std::string& default_account);

// Reads and parses the file at `path`; throws std::runtime_error as ParseCredentials does, or when
// the file cannot be read.
CredentialTable LoadCredentials(const std::string& path, const std::string& default_account);

}  // namespace smemu::protocol
