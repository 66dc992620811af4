#include "http/transport.hpp"

#include <optional>
#include <vector>

namespace smemu::http {
namespace {

protocol::HttpRequest ToProtocolRequest(bhttp::request<bhttp::string_body>&& message) {
  protocol::HttpRequest request;
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
  bhttp::response<bhttp::string_body> message{static_cast<bhttp::status>(response.status),
                                              version};
  message.set(bhttp::field::server, "sagemaker-emulator");
  for (auto& [name, value] : response.headers) message.insert(name, value);
  message.body() = std::move(response.body);
  message.keep_alive(keep_alive);
  message.prepare_payload();
  return message;
}

}  // namespace

// One connection. Lives as long as one of its asynchronous operations is pending.
class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket&& socket, Transport& transport)
      : stream_(std::move(socket)),
        buffer_(transport.limits_.read_buffer_limit),
        transport_(transport),
        registry_(transport.registry_) {}

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
    net::dispatch(stream_.get_executor(),
                  beast::bind_front_handler(&Session::ReadHeader, shared_from_this()));
  }

  // Called at shutdown from any thread.
  void Shutdown() {
    net::post(stream_.get_executor(), [self = shared_from_this()] {
      self->closing_ = true;
      if (self->idle_) self->Close();
    });
  }

 private:
  void ReadHeader() {
    if (closing_) return Close();
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(transport_.limits_.header_limit));
    idle_ = buffer_.size() == 0;
    stream_.expires_after(idle_ ? transport_.limits_.idle_timeout
                                : transport_.limits_.read_timeout);
    bhttp::async_read_header(stream_, buffer_, *parser_,
                             beast::bind_front_handler(&Session::OnHeader, shared_from_this()));
  }

  void OnHeader(beast::error_code ec, std::size_t) {
    const bool was_idle = idle_;
    idle_ = false;
    if (ec) return OnReadError(ec, was_idle && buffer_.size() == 0);
    const auto& header = parser_->get();
    const std::size_t limit = transport_.callbacks_.body_limit(header.target());
    if (auto length = parser_->content_length(); length && *length > limit) {
      return Refuse(413, "The request body of " + std::to_string(*length) +
                             " bytes exceeds the limit of " + std::to_string(limit) + " bytes.");
    }
    parser_->body_limit(limit);
    stream_.expires_after(transport_.limits_.read_timeout);
    if (beast::iequals(header[bhttp::field::expect], "100-continue")) {
      continue_ = std::make_unique<bhttp::response<bhttp::empty_body>>(bhttp::status::continue_,
                                                                      header.version());
      return bhttp::async_write(stream_, *continue_,
                                beast::bind_front_handler(&Session::OnContinueSent,
                                                          shared_from_this()));
    }
    ReadBody();
  }

  void OnContinueSent(beast::error_code ec, std::size_t) {
    continue_.reset();
    if (ec) return Close();
    ReadBody();
  }

  void ReadBody() {
    bhttp::async_read(stream_, buffer_, *parser_,
                      beast::bind_front_handler(&Session::OnBody, shared_from_this()));
  }

  void OnBody(beast::error_code ec, std::size_t) {
    if (ec) return OnReadError(ec, false);
    stream_.expires_never();
    const unsigned version = parser_->get().version();
    const bool keep_alive = parser_->get().keep_alive();
    protocol::HttpResponse response =
        transport_.callbacks_.handle(ToProtocolRequest(parser_->release()));
    Write(std::move(response), version, keep_alive);
  }

  void OnReadError(beast::error_code ec, bool nothing_received) {
    if (ec == bhttp::error::end_of_stream || ec == net::error::eof ||
        ec == net::error::operation_aborted || ec == net::error::connection_reset) {
      return Close();
    }
    if (ec == beast::error::timeout) {
      if (nothing_received) return Close();  // an idle keep-alive connection: close quietly
      return Refuse(408, "The request was not received within the read timeout.");
    }
    if (ec == bhttp::error::body_limit) {
      return Refuse(413, "The request body exceeds the limit of " +
                             std::to_string(transport_.callbacks_.body_limit(
                                 parser_->get().target())) +
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
    stream_.expires_after(transport_.limits_.read_timeout);
    bhttp::async_write(stream_, *response_,
                       beast::bind_front_handler(&Session::OnWrite, shared_from_this(), keep));
  }

  void OnWrite(bool keep_alive, beast::error_code ec, std::size_t) {
    response_.reset();
    if (ec || !keep_alive) return Close();
    ReadHeader();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  Transport& transport_;  // valid while any handler of this session can still run
  std::shared_ptr<SessionRegistry> registry_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  std::unique_ptr<bhttp::response<bhttp::string_body>> response_;
  std::unique_ptr<bhttp::response<bhttp::empty_body>> continue_;
  bool idle_ = false;     // waiting for the first byte of a request
  bool closing_ = false;  // shutdown asked: close after the current response
};

Transport::Transport(net::io_context& ioc, const std::string& host, unsigned short port,
                     TransportLimits limits, TransportCallbacks callbacks)
    : ioc_(ioc), acceptor_(ioc), limits_(limits), callbacks_(std::move(callbacks)) {
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
  acceptor_.async_accept(net::make_strand(ioc_), [this](beast::error_code ec, tcp::socket socket) {
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
