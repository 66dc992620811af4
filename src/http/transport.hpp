// Transport: accepts TCP connections and runs the HTTP/1.1 read -> handle -> write loop on each,
// defending itself against oversized, slow and malformed requests before anything reaches the
// protocol layer. Knows nothing of AWS or JSON: it hands HttpRequests to a callback.
//
// Connections are dealt round-robin to the io_contexts given, each run by one thread, so a
// connection's handlers never run concurrently and need no strand, and a request is read, handled
// and answered on one thread without hand-offs. Each connection owns itself (shared_from_this); the
// transport keeps only weak references, used at shutdown to close idle connections and let busy
// ones finish.
//
// Under descriptor exhaustion: at most TransportLimits::max_connections connections are open. At
// the cap a new connection closes the oldest idle one (waiting for its next request), or is itself
// closed at once when none is idle. Should accept() fail all the same (EMFILE with a cap above the
// descriptor limit, ENFILE, ENOBUFS, ...), accepting pauses and retries with a growing delay
// instead of spinning; new connections wait in the listen backlog meanwhile. When the number of
// open connections falls back after a burst, freed memory is given back to the system.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "http/net.hpp"
#include "protocol/http_types.hpp"

namespace smemu::http {

struct TransportLimits {
  std::size_t header_limit = 16 * 1024;             // request line + headers, bytes
  std::chrono::milliseconds read_timeout{30'000};   // per request: header, then body
  std::chrono::milliseconds idle_timeout{120'000};  // keep-alive wait for the next request
  std::size_t read_buffer_limit = 1024 * 1024;      // bytes buffered ahead (pipelining)
  std::size_t max_connections = 0;  // open connections at most; 0: DefaultMaxConnections()
};

// A line for the log about the transport itself (accept failing and resuming, the connection cap
// reached, memory given back), already rate-limited by the transport.
struct TransportReport {
  enum class Level { kInfo, kWarning };
  Level level = Level::kWarning;
  std::string message;
  std::vector<std::pair<std::string, std::string>> texts;  // fields with text values
  std::vector<std::pair<std::string, long long>> numbers;  // fields with number values
};

struct TransportCallbacks {
  // Answers through the Reply, at once or later and from any thread; the connection reads no
  // further request until it is answered.
  std::function<void(protocol::HttpRequest&&, protocol::Reply)> handle;
  std::function<std::size_t(std::string_view target)> body_limit;
  std::function<protocol::HttpResponse(int status, const std::string& message)> refuse;
  // Called on the accepting thread (the first io_context's); may be empty.
  std::function<void(const TransportReport&)> report;
};

constexpr std::size_t kDefaultMaxConnections = 10'000;

// The connection cap when none is given: kDefaultMaxConnections, or fewer when the descriptor limit
// (RLIMIT_NOFILE soft limit) is lower: the limit minus a reserve for what else the process opens
// (the database and its journal, the connections to model containers, the event loops of `threads`
// threads, log files): 64 + 4 per thread + an eighth of the limit, at most half of it.
std::size_t DefaultMaxConnections(std::size_t threads);

class Session;
class SessionRegistry;  // the live connections (session_registry.hpp)

class Transport {
 public:
  // Binds and listens on host:port (port 0 picks one). Throws boost::system::system_error when the
  // address cannot be bound: a start-up error.
  // `contexts`: at least one; each must be run by exactly one thread. The first also accepts.
  Transport(std::vector<net::io_context*> contexts, const std::string& host, unsigned short port,
            TransportLimits limits, TransportCallbacks callbacks);
  ~Transport();

  unsigned short port() const { return port_; }
  std::size_t max_connections() const { return limits_.max_connections; }
  void StartAccepting();
  // Stops accepting, closes idle connections and asks busy ones to close after their response.
  // Safe from any thread.
  void BeginShutdown();
  std::size_t OpenConnections() const;

 private:
  friend class Session;
  void Accept();
  void OnAcceptError(const beast::error_code& ec);
  // Opens a Session on an accepted socket, first making room at the cap. On the accepting thread.
  void Admit(tcp::socket socket, std::size_t context_index);
  void NoteCapReached(bool evicted);
  // Gives freed memory back to the system a moment after the connections of a burst closed (the
  // moment lets the rest of them close first). From any thread.
  void ScheduleTrim(std::size_t peak);
  void Report(TransportReport report) const;

  const std::vector<net::io_context*> contexts_;
  std::size_t next_context_ = 0;  // where the next connection goes; touched only by Accept()
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  const TransportLimits limits_;
  const TransportCallbacks callbacks_;
  std::atomic<bool> shutting_down_{false};
  std::shared_ptr<SessionRegistry> registry_;

  // The rest is touched only on the accepting thread.
  // Accept errors: the delay before the next try (zero while accepting works), the failures in
  // this episode and when it began.
  net::steady_timer accept_retry_;
  std::chrono::milliseconds accept_backoff_{0};
  std::size_t accept_failures_ = 0;
  std::chrono::steady_clock::time_point accept_failing_since_;
  // The cap: what happened there since the last line about it, and when the next line may come.
  std::size_t cap_evicted_ = 0;
  std::size_t cap_refused_ = 0;
  std::chrono::steady_clock::time_point next_cap_report_;
  net::steady_timer trim_timer_;
};

}  // namespace smemu::http
