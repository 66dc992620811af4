#include "http/transport.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "http/memory_trim.hpp"
#include "http/session_registry.hpp"

namespace smemu::http {
namespace {

constexpr std::size_t kFirstReadBytes = 4096;
// Keep-alive requests reuse their connection's read buffer; one left bigger than this by a large
// request is freed while the connection waits for the next.
constexpr std::size_t kKeptReadBufferBytes = kFirstReadBytes;

// After refusing a request it did not read whole (a body over its limit, headers too large), the
// connection reads and drops what the client still sends before closing, as nginx's lingering
// close does: closing a socket with unread data sends a reset, which can destroy the refusal
// before the client reads it, so a client sending a large body would see a dropped connection
// (and retry it) instead of the 413. Bounded in time between reads and in bytes.
constexpr std::chrono::milliseconds kLingerTimeout{2000};
constexpr std::chrono::milliseconds kLingerTime{5000};
constexpr std::size_t kLingerBytes = 64 * 1024 * 1024;
constexpr std::size_t kLingerReadBytes = 64 * 1024;
constexpr std::size_t kReservedDescriptors = 64;
constexpr std::size_t kReservedDescriptorsPerThread = 4;  // epoll, eventfd, timerfd, a spare

// Accept errors: the first retry after kFirstAcceptRetry, each next one twice as late, up to
// kLastAcceptRetry.
constexpr std::chrono::milliseconds kFirstAcceptRetry{5};
constexpr std::chrono::milliseconds kLastAcceptRetry{1000};
// At most one line about the connection cap this often.
constexpr std::chrono::seconds kCapReportInterval{10};

long long AsNumber(std::size_t value) { return static_cast<long long>(value); }

protocol::HttpRequest ToProtocolRequest(bhttp::request<bhttp::string_body>&& message,
                                        const std::string& peer) {
  protocol::HttpRequest request;
  request.peer = peer;
  request.method = std::string(message.method_string());
  request.target = std::string(message.target());
  for (const auto& field : message) {
    request.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  request.body = std::move(message.body());
  return request;
}

bhttp::response<bhttp::string_body> ToBeastResponse(protocol::HttpResponse&& response,
                                                    unsigned version, bool keep_alive) {
  bhttp::response<bhttp::string_body> message{static_cast<bhttp::status>(response.status), version};
  message.set(bhttp::field::server, "sagemaker-emulator");
  for (auto& [name, value] : response.headers) message.insert(name, value);
  message.body() = std::move(response.body);
  message.keep_alive(keep_alive);
  message.prepare_payload();
  return message;
}

// The remote address as text; "unknown" (never empty, which would mean an in-process caller) when
// the connection was reset before it could be read.
std::string PeerOf(const tcp::socket& socket) {
  boost::system::error_code ec;
  const tcp::endpoint remote = socket.remote_endpoint(ec);
  return ec ? std::string("unknown") : remote.address().to_string();
}

}  // namespace

// One connection. Lives as long as one of its asynchronous operations is pending.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Transport& transport, std::size_t context_index)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        buffer_(transport.limits_.read_buffer_limit),
        transport_(transport),
        registry_(transport.registry_),
        idle_entry_(*this, registry_->idle_list(context_index)),
        peer_(PeerOf(socket_)) {
    registry_->Opened();
    // For the read after a wait for readability (WaitForFirstBytes); asynchronous operations
    // work the same either way.
    beast::error_code ignored;
    socket_.non_blocking(true, ignored);
  }

  ~Session() {
    const std::optional<std::size_t> left = registry_->Remove(this, idle_entry_);
    if (!left) return;  // made room at the cap: no longer counted
    // Not at shutdown (BurstWatch::Stop), when the Transport may be gone.
    if (const std::optional<std::size_t> peak = registry_->bursts().Closed(*left)) {
      transport_.ScheduleTrim(*peak);
    }
  }

  void Run() {
    if (registry_->Add(this, weak_from_this())) closing_ = true;
    // Idle from the start: a flood of new connections must find room among its own oldest, even
    // before their threads have run them.
    registry_->EnterIdle(idle_entry_,
                         std::chrono::steady_clock::now() + transport_.limits_.idle_timeout);
    net::dispatch(socket_.get_executor(),
                  beast::bind_front_handler(&Session::ReadHeader, shared_from_this()));
  }

  // Closes the connection if it waits for a request, else after the response to the one it is
  // reading or answering. Called at shutdown, and to make room at the connection cap. From any
  // thread.
  void CloseWhenIdle() {
    net::post(socket_.get_executor(), [self = shared_from_this()] {
      self->closing_ = true;
      if (self->idle_ || self->lingering_) self->Close();
    });
  }

 private:
  // Waits for the next request. An idle keep-alive connection may wait idle_timeout for its first
  // byte; from then on the whole request must arrive within read_timeout (no slow-drip headers).
  void ReadHeader() {
    if (closing_) return Close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(transport_.limits_.header_limit));
    // The body limit depends on the route, known once the header is read (OnHeader). Until then
    // the parser must not apply its own default of 1 MiB: it checks a Content-Length against it
    // as the header ends, which refused every larger invocation sent with one. (boost::none would
    // not do: Beast 1.74 compares a Content-Length with an unset limit as exceeding it.)
    parser_->body_limit(std::numeric_limits<std::uint64_t>::max());
    if (buffer_.size() > 0) return ReadRestOfHeader();  // a pipelined request is already here
    if (buffer_.capacity() > kKeptReadBufferBytes) buffer_.shrink_to_fit();  // frees it: empty
    idle_ = true;
    Arm(transport_.limits_.idle_timeout);
    registry_->EnterIdle(idle_entry_, deadline_);
    // A connection with no read buffer (a new one, or one whose last request was large) waits for
    // its first byte without one, so that idle connections cost little memory. The keep-alive
    // path keeps its buffer and reads at once.
    if (buffer_.capacity() == 0) return WaitForFirstBytes();
    socket_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            beast::bind_front_handler(&Session::OnFirstBytes, shared_from_this()));
  }

  void WaitForFirstBytes() {
    socket_.async_wait(tcp::socket::wait_read,
                       beast::bind_front_handler(&Session::OnReadable, shared_from_this()));
  }

  void OnReadable(beast::error_code ec) {
    std::size_t bytes = 0;
    if (!ec) {
      bytes = socket_.read_some(buffer_.prepare(kFirstReadBytes), ec);
      if (ec == net::error::would_block || ec == net::error::try_again) {
        return WaitForFirstBytes();
      }
    }
    OnFirstBytes(ec, bytes);
  }

  void OnFirstBytes(beast::error_code ec, std::size_t bytes) {
    idle_ = false;
    registry_->LeaveIdle(idle_entry_);
    if (ec) return OnReadError(ec, /*nothing_received=*/true);
    buffer_.commit(bytes);
    if (closing_) return Close();  // shutdown began while idle: the request was never started
    ReadRestOfHeader();
  }

  void ReadRestOfHeader() {
    idle_ = false;
    Arm(transport_.limits_.read_timeout);
    bhttp::async_read_header(socket_, buffer_, *parser_,
                             beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec, /*nothing_received=*/false);
    const auto& header = parser_->get();
    const std::size_t limit = transport_.callbacks_.body_limit(header.target());
    if (auto length = parser_->content_length(); length && *length > limit) {
      return Refuse(413, "The request body of " + std::to_string(*length) +
                             " bytes exceeds the limit of " + std::to_string(limit) + " bytes.");
    }
    parser_->body_limit(limit);
    if (beast::iequals(header[bhttp::field::expect], "100-continue")) {
      continue_ = std::make_unique<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_,
                                                                       header.version());
      return bhttp::async_write(
          socket_, *continue_,
          beast::bind_front_handler(&Session::OnContinueSent, shared_from_this()));
    }
    ReadBody();
  }

  void OnContinueSent(beast::error_code ec, std::size_t) {
    continue_.reset();
    if (ec) return Close();
    ReadBody();
  }

  void ReadBody() {
    bhttp::async_read(socket_, buffer_, *parser_,
                      beast::bind_front_handler(&Session::OnBody, shared_from_this()));
  }

  void OnBody(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec, false);
    Disarm();
    const unsigned version = parser_->get().version();
    const bool keep_alive = parser_->get().keep_alive();
    transport_.callbacks_.handle(
        ToProtocolRequest(parser_->release(), peer_),
        [self = shared_from_this(), version, keep_alive](protocol::HttpResponse response) {
          // Inline when answered at once (already on this connection's thread), posted when
          // answered later.
          net::dispatch(self->socket_.get_executor(),
                        [self, version, keep_alive, response = std::move(response)]() mutable {
                          self->Write(std::move(response), version, keep_alive);
                        });
        });
  }

  void OnReadError(beast::error_code ec, bool nothing_received) {
    if (ec == net::error::operation_aborted && timed_out_) {
      if (nothing_received) return Close();  // an idle keep-alive connection: close quietly
      return Refuse(408, "The request was not received within the read timeout.");
    }
    if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset) {
      return Close();
    }
    if (ec == bhttp::error::body_limit) {
      return Refuse(413,
                    "The request body exceeds the limit of " +
                        std::to_string(transport_.callbacks_.body_limit(parser_->get().target())) +
                        " bytes.");
    }
    if (ec == bhttp::error::header_limit) {
      return Refuse(431, "The request line and headers exceed " +
                             std::to_string(transport_.limits_.header_limit) + " bytes.");
    }
    if (ec == bhttp::error::buffer_overflow) {
      return Refuse(400, "Too much data was sent ahead of the responses.");
    }
    return Refuse(400, "The request is not valid HTTP/1.1: " + ec.message() + ".");
  }

  // Answers a request that cannot be read and closes the connection afterwards.
  void Refuse(int status, const std::string& message) {
    linger_ = true;
    Write(transport_.callbacks_.refuse(status, message), 11, false);
  }

  void Write(protocol::HttpResponse&& response, unsigned version, bool keep_alive) {
    const bool keep = keep_alive && !response.close_connection && !closing_;
    response_ = std::make_unique<bhttp::response<bhttp::string_body>>(
        ToBeastResponse(std::move(response), version, keep));
    Arm(transport_.limits_.read_timeout);
    bhttp::async_write(socket_, *response_,
                       beast::bind_front_handler(&Session::OnWrite, shared_from_this(), keep));
  }

  void OnWrite(bool keep_alive, beast::error_code ec, std::size_t) {
    response_.reset();
    if (!ec && linger_) return Linger();
    if (ec || !keep_alive) return Close();
    ReadHeader();
  }

  // The refusal is sent: stop sending, and drop what the client still sends until it stops, pauses
  // for kLingerTimeout, has sent kLingerBytes or kLingerTime has passed (see kLingerTimeout).
  void Linger() {
    if (closing_) return Close();
    lingering_ = true;
    linger_ends_ = std::chrono::steady_clock::now() + kLingerTime;
    beast::error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    buffer_.clear();
    DropInput();
  }

  void DropInput() {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        linger_ends_ - std::chrono::steady_clock::now());
    if (left.count() <= 0) return Close();
    Arm(std::min(left, kLingerTimeout));
    socket_.async_read_some(buffer_.prepare(kLingerReadBytes),
                            [self = shared_from_this()](beast::error_code ec, std::size_t bytes) {
                              self->lingered_ += bytes;
                              if (ec || self->lingered_ >= kLingerBytes) return self->Close();
                              self->buffer_.clear();
                              self->DropInput();
                            });
  }

  // Starts the deadline for the next socket operation. Unlike beast::tcp_stream's timeout, which
  // closes the socket, expiry only cancels the operation, so a slow client can still get its 408.
  // Called three times a request, so moving the deadline must cost nothing: one timer wait stays
  // pending, only a deadline earlier than its expiry restarts it, and a wait that ends before the
  // deadline (moved later meanwhile) simply waits again.
  // The deadlines stay on std::chrono::steady_clock, not an injected MonotonicClock: they are
  // compared with the asio steady_timer's expiry, which runs on that clock.
  void Arm(std::chrono::milliseconds timeout) {
    timed_out_ = false;
    deadline_ = std::chrono::steady_clock::now() + timeout;
    if (!waiting_ || deadline_ < timer_.expiry()) WaitForDeadline();
  }

  // No deadline while the request is being answered; the next Arm() sets one.
  void Disarm() { deadline_ = kNoDeadline; }

  void WaitForDeadline() {
    waiting_ = true;
    const std::uint64_t generation = ++timer_generation_;
    timer_.expires_at(deadline_);
    timer_.async_wait([self = shared_from_this(), generation](beast::error_code ec) {
      // A later wait replaced this one, or the connection closed.
      if (generation != self->timer_generation_) return;
      self->waiting_ = false;
      if (ec || self->deadline_ == kNoDeadline) return;
      if (std::chrono::steady_clock::now() < self->deadline_) return self->WaitForDeadline();
      self->timed_out_ = true;
      beast::error_code ignored;
      self->socket_.cancel(ignored);
    });
  }

  void Close() {
    beast::error_code ignored;
    ++timer_generation_;
    waiting_ = false;
    timer_.cancel();
    socket_.shutdown(tcp::socket::shutdown_send, ignored);
    socket_.close(ignored);
  }

  tcp::socket socket_;
  static constexpr net::steady_timer::time_point kNoDeadline = net::steady_timer::time_point::max();
  net::steady_timer timer_;  // bounds each read and write; see Arm()
  net::steady_timer::time_point deadline_ = kNoDeadline;
  bool waiting_ = false;  // a wait on timer_ is pending
  bool timed_out_ = false;
  std::uint64_t timer_generation_ = 0;  // tells the pending wait from those it replaced
  beast::flat_buffer buffer_;
  Transport& transport_;  // valid while any handler of this session can still run
  std::shared_ptr<SessionRegistry> registry_;
  IdleEntry idle_entry_;    // in its io_context's idle list, which lives in *registry_
  const std::string peer_;  // the caller's address, for the admin API's access rule
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::unique_ptr<bhttp::response<bhttp::string_body>> response_;
  std::unique_ptr<bhttp::response<bhttp::empty_body>> continue_;
  bool idle_ = false;       // waiting for the first byte of a request
  bool closing_ = false;    // shutdown asked: close after the current response
  bool linger_ = false;     // refused a request not read whole: drop the rest before closing
  bool lingering_ = false;  // dropping it (Linger)
  std::chrono::steady_clock::time_point linger_ends_;
  std::size_t lingered_ = 0;  // bytes dropped so far
};

std::size_t DefaultMaxConnections(std::size_t threads) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) {
    return kDefaultMaxConnections;
  }
  const std::size_t descriptors = static_cast<std::size_t>(limit.rlim_cur);
  const std::size_t reserve =
      std::min(descriptors / 2,
               kReservedDescriptors + kReservedDescriptorsPerThread * threads + descriptors / 8);
  return std::clamp<std::size_t>(descriptors - reserve, 1, kDefaultMaxConnections);
}

namespace {

TransportLimits WithConnectionCap(TransportLimits limits, std::size_t threads) {
  if (limits.max_connections == 0) limits.max_connections = DefaultMaxConnections(threads);
  return limits;
}

}  // namespace

Transport::Transport(std::vector<net::io_context*> contexts, const std::string& host,
                     unsigned short port, TransportLimits limits, TransportCallbacks callbacks)
    : contexts_(std::move(contexts)),
      acceptor_(*contexts_.at(0)),
      limits_(WithConnectionCap(limits, contexts_.size())),
      callbacks_(std::move(callbacks)),
      registry_(std::make_shared<SessionRegistry>(contexts_.size())),
      accept_retry_(*contexts_.at(0)),
      trim_timer_(*contexts_.at(0)) {
  const tcp::endpoint endpoint{net::ip::make_address(host), port};
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
}

Transport::~Transport() { registry_->bursts().Stop(); }

void Transport::StartAccepting() { Accept(); }

void Transport::Accept() {
  const std::size_t index = next_context_;
  next_context_ = (next_context_ + 1) % contexts_.size();
  acceptor_.async_accept(
      *contexts_[index], [this, index](beast::error_code ec, tcp::socket socket) {
        if (ec == net::error::operation_aborted || shutting_down_) return;
        if (ec) return OnAcceptError(ec);
        if (accept_backoff_.count() > 0) {
          const auto paused = std::chrono::duration_cast<std::chrono::milliseconds>(
              std::chrono::steady_clock::now() - accept_failing_since_);
          Report({TransportReport::Level::kWarning,
                  "accepting connections again",
                  {},
                  {{"failed_accepts", AsNumber(accept_failures_)},
                   {"paused_ms", static_cast<long long>(paused.count())},
                   {"open_connections", AsNumber(registry_->Open())}}});
          accept_backoff_ = std::chrono::milliseconds(0);
          accept_failures_ = 0;
        }
        Admit(std::move(socket), index);
        Accept();
      });
}

// Every accept error is retried after a pause: those asio does not retry itself are about
// resources (descriptors, kernel memory), which an immediate retry would not find freed, only
// turning the loop into a spin. New connections wait in the listen backlog meanwhile.
void Transport::OnAcceptError(const beast::error_code& ec) {
  ++accept_failures_;
  if (accept_backoff_.count() == 0) {
    accept_backoff_ = kFirstAcceptRetry;
    accept_failing_since_ = std::chrono::steady_clock::now();
    Report({TransportReport::Level::kWarning,
            "cannot accept connections: retrying with a growing delay until it works",
            {{"error", ec.message()}},
            {{"errno", ec.value()},
             {"open_connections", AsNumber(registry_->Open())},
             {"max_connections", AsNumber(limits_.max_connections)}}});
  } else {
    accept_backoff_ = std::min(accept_backoff_ * 2, kLastAcceptRetry);
  }
  accept_retry_.expires_after(accept_backoff_);
  accept_retry_.async_wait([this](beast::error_code wait_ec) {
    if (wait_ec || shutting_down_) return;
    Accept();
  });
}

// At the cap, the new connection takes the place of the oldest idle one. When every connection is
// busy, the new one is closed at once rather than answered 503: answering would first mean reading
// its request (closing on an unread request resets the connection, and the client may lose the
// answer), holding a descriptor and a session past the cap for up to --read-timeout, exactly what
// ran short. A connection closed before any answer is an error every AWS SDK retries, with backoff.
void Transport::Admit(tcp::socket socket, std::size_t context_index) {
  if (registry_->Open() >= limits_.max_connections) {
    std::shared_ptr<Session> evicted;
    if (!registry_->MakeRoom(evicted)) {
      NoteCapReached(/*evicted=*/false);
      return;  // the socket closes here
    }
    if (evicted) evicted->CloseWhenIdle();
    NoteCapReached(/*evicted=*/true);
  }
  beast::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::make_shared<Session>(std::move(socket), *this, context_index)->Run();
  registry_->bursts().Opened(registry_->Open());
}

void Transport::NoteCapReached(bool evicted) {
  ++(evicted ? cap_evicted_ : cap_refused_);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_cap_report_) return;
  next_cap_report_ = now + kCapReportInterval;
  Report({TransportReport::Level::kWarning,
          "connection limit reached: a new connection closes the oldest idle one, or is closed at "
          "once when none is idle (--max-connections)",
          {},
          {{"max_connections", AsNumber(limits_.max_connections)},
           {"idle_closed", AsNumber(cap_evicted_)},
           {"refused", AsNumber(cap_refused_)}}});
  cap_evicted_ = cap_refused_ = 0;
}

void Transport::ScheduleTrim(std::size_t peak) {
  net::post(acceptor_.get_executor(), [this, peak] {
    trim_timer_.expires_after(kTrimDelay);
    trim_timer_.async_wait([this, peak](beast::error_code ec) {
      if (ec || shutting_down_) return;
      GiveMemoryBack(contexts_, [this, peak](long long before_kib, long long after_kib) {
        Report({TransportReport::Level::kInfo,
                "connections closed after a burst: freed memory given back to the system",
                {},
                {{"peak_connections", AsNumber(peak)},
                 {"open_connections", AsNumber(registry_->Open())},
                 {"resident_kib_before", before_kib},
                 {"resident_kib_after", after_kib}}});
      });
    });
  });
}

void Transport::Report(TransportReport report) const {
  if (callbacks_.report) callbacks_.report(report);
}

void Transport::BeginShutdown() {
  shutting_down_ = true;
  registry_->bursts().Stop();
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
    accept_retry_.cancel();
    trim_timer_.cancel();
  });
  for (const std::shared_ptr<Session>& session : registry_->BeginShutdown()) {
    session->CloseWhenIdle();
  }
}

std::size_t Transport::OpenConnections() const { return registry_->size(); }

}  // namespace smemu::http
