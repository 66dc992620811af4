#include "domain/aws_names.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <cstdio>

namespace smemu::domain {

bool IsRegionName(std::string_view region) {
  return !region.empty() && region.size() <= 32 &&
         std::all_of(region.begin(), region.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

bool IsAccountId(std::string_view account) {
  return account.size() == 12 &&
         std::all_of(account.begin(), account.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string Sha256Hex(std::string_view text) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  std::string hex;
  hex.reserve(2 * SHA256_DIGEST_LENGTH);
  char byte[3];
  for (unsigned char c : digest) {
    std::snprintf(byte, sizeof byte, "%02x", c);
    hex += byte;
  }
  return hex;
}

std::string ArnKey(std::string_view arn) {
  std::string key(arn);
  for (char& c : key) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return key;
}

}  // namespace smemu::domain
