#include "protocol/sigv4.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

namespace smemu::protocol {
namespace {

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

}  // namespace

std::optional<CredentialScope> ParseAuthorization(std::string_view header) {
  constexpr std::string_view kAlgorithm = "AWS4-HMAC-SHA256";
  if (header.substr(0, kAlgorithm.size()) != kAlgorithm) return std::nullopt;
  constexpr std::string_view kCredential = "Credential=";
  const size_t at = header.find(kCredential);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view credential = header.substr(at + kCredential.size());
  credential = credential.substr(0, credential.find_first_of(", "));
  const auto parts = Split(credential, '/');
  if (parts.size() != 5 || parts[0].empty() || parts[4] != "aws4_request") return std::nullopt;
  return CredentialScope{std::string(parts[0]), std::string(parts[1]), std::string(parts[2]),
                         std::string(parts[3])};
}

bool IsRegionName(std::string_view region) {
  return !region.empty() && region.size() <= 32 &&
         std::all_of(region.begin(), region.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

bool IsAccountId(std::string_view account) {
  return account.size() == 12 && std::all_of(account.begin(), account.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) != 0;
         });
}

}  // namespace smemu::protocol
