#include "domain/aws_names.hpp"

#include <openssl/sha.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <utility>

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

namespace {

// The words of a region's name as its short code spells them.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kDirections{{
    {"north", "n"},
    {"south", "s"},
    {"east", "e"},
    {"west", "w"},
    {"central", "c"},
    {"northeast", "ne"},
    {"northwest", "nw"},
    {"southeast", "se"},
    {"southwest", "sw"},
}};

}  // namespace

std::optional<std::string> AvailabilityZoneId(std::string_view zone) {
  // "<area>-<direction>-<digit><letter>", e.g. us-west-2a.
  const std::size_t first = zone.find('-');
  const std::size_t second = first == std::string_view::npos ? first : zone.find('-', first + 1);
  if (second == std::string_view::npos || zone.find('-', second + 1) != std::string_view::npos ||
      zone.size() != second + 3) {
    return std::nullopt;
  }
  const std::string_view area = zone.substr(0, first);
  const std::string_view direction = zone.substr(first + 1, second - first - 1);
  const char digit = zone[second + 1];
  const char letter = zone[second + 2];
  const auto code = std::find_if(kDirections.begin(), kDirections.end(),
                                 [&](const auto& entry) { return entry.first == direction; });
  if (code == kDirections.end() || area.size() + code->second.size() != 3 || digit < '0' ||
      digit > '9' || letter < 'a' || letter > 'i') {
    return std::nullopt;
  }
  return std::string(area) + std::string(code->second) + digit + "-az" +
         static_cast<char>('1' + (letter - 'a'));
}

bool IsLocalZone(std::string_view zone) { return std::count(zone.begin(), zone.end(), '-') > 2; }

}  // namespace smemu::domain
