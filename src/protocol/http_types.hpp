// HttpRequest / HttpResponse: the HTTP messages the protocol layer works on, free of Beast types so
// the dispatcher can be tested without sockets. Plain values.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace smemu::protocol {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive header lookup; nullptr when absent.
const std::string* FindHeader(const Headers& headers, std::string_view name);

struct HttpRequest {
  std::string method;
  std::string target;  // path and query, as sent
  Headers headers;
  std::string body;

  const std::string* Header(std::string_view name) const { return FindHeader(headers, name); }
  std::string_view Path() const;  // target without the query
};

struct HttpResponse {
  int status = 200;
  Headers headers;
  std::string body;
  bool close_connection = false;  // the transport closes after writing (e.g. after a framing error)
};

}  // namespace smemu::protocol
