#include "protocol/http_types.hpp"

#include <strings.h>

namespace smemu::protocol {

const std::string* FindHeader(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (key.size() == name.size() && strncasecmp(key.data(), name.data(), name.size()) == 0) {
      return &value;
    }
  }
  return nullptr;
}

std::string_view HttpRequest::Path() const {
  std::string_view path = target;
  return path.substr(0, path.find('?'));
}

}  // namespace smemu::protocol
