// HTTP client side of the SageMaker inference-container contract: POST /invocations to a container
// the user runs on this machine, and its GET /ping health check. One fresh connection per call, so
// a container that misbehaves affects only the request at hand.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "http/net.hpp"
#include "protocol/http_types.hpp"

namespace smemu::http {

struct ContainerCallLimits {
  std::chrono::milliseconds timeout{60'000};         // connect + send + whole answer
  std::size_t max_response_bytes = 6 * 1024 * 1024;  // the InvokeEndpoint response limit
};

using ContainerReply = protocol::UpstreamReply;

// Sends `request` (its method, target, headers and body) to host:port and calls `done` exactly
// once, on a thread of `ioc`. Never blocks the caller.
void SendToContainer(net::io_context& ioc, const std::string& host, const std::string& port,
                     protocol::HttpRequest request, ContainerCallLimits limits,
                     std::function<void(ContainerReply)> done);

// Blocking: true when GET /ping on host:port answers 200 within `timeout`. Runs on its own
// io_context, so it may be called from any thread, including one of the server's.
bool PingContainer(const std::string& host, const std::string& port,
                   std::chrono::milliseconds timeout);

}  // namespace smemu::http
