// Decoding %XX escapes (RFC 3986), the one home for the three places that read them: REST path
// labels (strict: a bad escape is an error), SigV4's canonical query (lenient: AWS re-encodes what
// it finds) and admin query strings (lenient, and form encoding's '+' for a space).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace smemu::protocol {

// Decodes every %XX escape; nullopt when one is malformed ('%' not followed by two hex digits).
std::optional<std::string> PercentDecode(std::string_view text);

// Decodes the valid %XX escapes and keeps anything else as it is.
std::string PercentDecodeLenient(std::string_view text);

// A query string value as HTML forms encode it: PercentDecodeLenient, and '+' is a space.
std::string FormDecode(std::string_view text);

}  // namespace smemu::protocol
