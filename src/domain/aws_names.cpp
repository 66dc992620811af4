#include "domain/aws_names.hpp"

#include <algorithm>

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

}  // namespace smemu::domain
