// Transport: accepts TCP connections and runs the HTTP/1.1 read -> handle -> write loop on each,
// defending itself against oversized, slow and malformed requests before anything reaches the
// protocol layer. Knows nothing of AWS or JSON: it hands HttpRequests to a callback.
//
// Connections are dealt round-robin to the io_contexts given, each run by one thread, so a
// connection's handlers never run concurrently and need no strand, and a request is read, handled
// and answered on one thread without hand-offs. Each connection owns itself (shared_from_this); the
// transport keeps only weak references, used at shutdown to close idle connections and let busy
// ones finish.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "http/net.hpp"
#include "protocol/http_types.hpp"

namespace smemu::http {

struct TransportLimits {
  std::size_t header_limit = 16 * 1024;             // request line + headers, bytes
  std::chrono::milliseconds read_timeout{30'000};   // per request: header, then body
  std::chrono::milliseconds idle_timeout{120'000};  // keep-alive wait for the next request
  std::size_t read_buffer_limit = 1024 * 1024;      // bytes buffered ahead (pipelining)
};

struct TransportCallbacks {
  // Answers through the Reply, at once or later and from any thread; the connection reads no
  // further request until it is answered.
  std::function<void(protocol::HttpRequest&&, protocol::Reply)> handle;
  std::function<std::size_t(std::string_view target)> body_limit;
  std::function<protocol::HttpResponse(int status, const std::string& message)> refuse;
};

class Session;

// The live connections, shared with each Session so a Session can unregister itself even when it
// is destroyed after the Transport (its pending handlers die with the io_context).
struct SessionRegistry {
  std::mutex mutex;
  std::unordered_map<Session*, std::weak_ptr<Session>> sessions;
  bool shutting_down = false;
};

class Transport {
 public:
  // Binds and listens on host:port (port 0 picks one). Throws boost::system::system_error when the
  // address cannot be bound: a start-up error.
  // `contexts`: at least one; each must be run by exactly one thread. The first also accepts.
  Transport(std::vector<net::io_context*> contexts, const std::string& host, unsigned short port,
            TransportLimits limits, TransportCallbacks callbacks);
  ~Transport();

  unsigned short port() const { return port_; }
  void StartAccepting();
  // Stops accepting, closes idle connections and asks busy ones to close after their response.
  // Safe from any thread.
  void BeginShutdown();
  std::size_t OpenConnections() const;

 private:
  friend class Session;
  void Accept();

  const std::vector<net::io_context*> contexts_;
  std::size_t next_context_ = 0;  // where the next connection goes; touched only by Accept()
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  const TransportLimits limits_;
  const TransportCallbacks callbacks_;
  std::atomic<bool> shutting_down_{false};
  std::shared_ptr<SessionRegistry> registry_ = std::make_shared<SessionRegistry>();
};

}  // namespace smemu::http
