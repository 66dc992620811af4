// HttpRequest / HttpResponse: the HTTP messages the protocol layer works on, free of Beast types so
// the dispatcher can be tested without sockets. Plain values.
#pragma once

#include <functional>
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
  // The caller's IP address as text (the transport fills it in); empty for a caller in the same
  // process (a scenario step, a test), which the admin API always trusts.
  std::string peer = {};

  const std::string* Header(std::string_view name) const { return FindHeader(headers, name); }
  std::string_view Path() const;  // target without the query
};

// Where a peer address is, as the admin API's access rule (--admin-from) sees it.
enum class PeerScope {
  kLoopback,      // this machine: 127.0.0.0/8, ::1
  kLocalNetwork,  // on a network of one of this machine's interfaces (in a container: the host
                  // through a published port, and the containers beside it)
  kElsewhere,
};

struct HttpResponse {
  int status = 200;
  Headers headers;
  std::string body;
  bool close_connection = false;  // the transport closes after writing (e.g. after a framing error)
};

// Delivers a response; may be called from any thread, exactly once.
using Reply = std::function<void(HttpResponse)>;

// What a model container answered to a forwarded request. `reached` is false when no complete
// HTTP answer arrived; `failure` then says why.
struct UpstreamReply {
  bool reached = false;
  bool timed_out = false;
  std::string failure;
  int status = 0;
  Headers headers;
  std::string body;
};

// Sends a request to the container at host:port; calls the callback exactly once, on any thread.
using UpstreamSender =
    std::function<void(const std::string& host, const std::string& port, HttpRequest request,
                       std::function<void(UpstreamReply)> done)>;

}  // namespace smemu::protocol
