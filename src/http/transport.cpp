#include "http/transport.hpp"

#include <optional>
#include <vector>

namespace smemu::http {
namespace {

constexpr std::size_t kFirstReadBytes = 4096;

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
  Session(tcp::socket&& socket, Transport& transport)
      : socket_(std::move(socket)),
        timer_(socket_.get_executor()),
        buffer_(transport.limits_.read_buffer_limit),
        transport_(transport),
        registry_(transport.registry_),
        peer_(PeerOf(socket_)) {}

  ~Session() {
    std::lock_guard lock(registry_->mutex);
    registry_->sessions.erase(this);
  }

  void Run() {
    {
      std::lock_guard lock(registry_->mutex);
      registry_->sessions.emplace(this, weak_from_this());
      if (registry_->shutting_down) closing_ = true;
    }
    net::dispatch(socket_.get_executor(),
                  beast::bind_front_handler(&Session::ReadHeader, shared_from_this()));
  }

  // Called at shutdown from any thread.
  void Shutdown() {
    net::post(socket_.get_executor(), [self = shared_from_this()] {
      self->closing_ = true;
      if (self->idle_) self->Close();
    });
  }

 private:
  // Waits for the next request. An idle keep-alive connection may wait idle_timeout for its first
  // byte; from then on the whole request must arrive within read_timeout (no slow-drip headers).
  void ReadHeader() {
    if (closing_) return Close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(transport_.limits_.header_limit));
    if (buffer_.size() > 0) return ReadRestOfHeader();  // a pipelined request is already here
    idle_ = true;
    Arm(transport_.limits_.idle_timeout);
    socket_.async_read_some(buffer_.prepare(kFirstReadBytes),
                            beast::bind_front_handler(&Session::OnFirstBytes, shared_from_this()));
  }

  void OnFirstBytes(beast::error_code ec, std::size_t bytes) {
    idle_ = false;
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
    if (ec || !keep_alive) return Close();
    ReadHeader();
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
  const std::string peer_;  // the caller's address, for the admin API's access rule
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::unique_ptr<bhttp::response<bhttp::string_body>> response_;
  std::unique_ptr<bhttp::response<bhttp::empty_body>> continue_;
  bool idle_ = false;     // waiting for the first byte of a request
  bool closing_ = false;  // shutdown asked: close after the current response
};

Transport::Transport(std::vector<net::io_context*> contexts, const std::string& host,
                     unsigned short port, TransportLimits limits, TransportCallbacks callbacks)
    : contexts_(std::move(contexts)),
      acceptor_(*contexts_.at(0)),
      limits_(limits),
      callbacks_(std::move(callbacks)) {
  const tcp::endpoint endpoint{net::ip::make_address(host), port};
  acceptor_.open(endpoint.protocol());
  acceptor_.set_option(net::socket_base::reuse_address(true));
  acceptor_.bind(endpoint);
  acceptor_.listen(net::socket_base::max_listen_connections);
  port_ = acceptor_.local_endpoint().port();
}

Transport::~Transport() = default;

void Transport::StartAccepting() { Accept(); }

void Transport::Accept() {
  net::io_context& context = *contexts_[next_context_];
  next_context_ = (next_context_ + 1) % contexts_.size();
  acceptor_.async_accept(context, [this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || shutting_down_) return;
    if (!ec) {
      socket.set_option(tcp::no_delay(true), ec);
      std::make_shared<Session>(std::move(socket), *this)->Run();
    }
    Accept();
  });
}

void Transport::BeginShutdown() {
  shutting_down_ = true;
  net::post(acceptor_.get_executor(), [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
  });
  std::vector<std::shared_ptr<Session>> live;
  {
    std::lock_guard lock(registry_->mutex);
    registry_->shutting_down = true;
    for (auto& [raw, weak] : registry_->sessions) {
      if (auto session = weak.lock()) live.push_back(std::move(session));
    }
  }
  // Outside the lock: dropping the last reference runs ~Session, which takes the lock.
  for (auto& session : live) session->Shutdown();
}

std::size_t Transport::OpenConnections() const {
  std::lock_guard lock(registry_->mutex);
  return registry_->sessions.size();
}

}  // namespace smemu::http
