#include "http/container_client.hpp"

#include <memory>
#include <optional>

namespace smemu::http {
namespace {

// One call: resolve, connect, write, read, all bounded by one deadline. Owns itself while any
// of its operations is pending; every handler runs on the call's strand.
class ContainerCall : public std::enable_shared_from_this<ContainerCall> {
 public:
  ContainerCall(net::io_context& ioc, std::string host, std::string port,
                protocol::HttpRequest request, ContainerCallLimits limits,
                std::function<void(ContainerReply)> done)
      : strand_(net::make_strand(ioc)),
        resolver_(strand_),
        stream_(strand_),
        deadline_(strand_),
        host_(std::move(host)),
        port_(std::move(port)),
        limits_(limits),
        done_(std::move(done)) {
    request_.method_string(request.method);
    request_.target(request.target);
    request_.version(11);
    for (auto& [name, value] : request.headers) request_.set(name, value);
    request_.set(bhttp::field::host, host_ + ":" + port_);
    request_.set(bhttp::field::user_agent, "sagemaker-emulator");
    request_.keep_alive(false);
    request_.body() = std::move(request.body);
    request_.prepare_payload();
    parser_.body_limit(limits_.max_response_bytes);
  }

  void Start() {
    net::dispatch(strand_, [self = shared_from_this()] {
      self->deadline_.expires_after(self->limits_.timeout);
      self->deadline_.async_wait([self](beast::error_code ec) {
        if (!ec) self->TimeOut();
      });
      self->resolver_.async_resolve(
          self->host_, self->port_,
          beast::bind_front_handler(&ContainerCall::OnResolve, self->shared_from_this()));
    });
  }

 private:
  void OnResolve(beast::error_code ec, tcp::resolver::results_type results) {
    if (ec) return Fail(ec, "cannot resolve " + host_);
    stream_.async_connect(results,
                          beast::bind_front_handler(&ContainerCall::OnConnect, shared_from_this()));
  }

  void OnConnect(beast::error_code ec, const tcp::endpoint&) {
    if (ec) return Fail(ec, "cannot connect");
    bhttp::async_write(stream_, request_,
                       beast::bind_front_handler(&ContainerCall::OnWrite, shared_from_this()));
  }

  void OnWrite(beast::error_code ec, std::size_t) {
    if (ec) return Fail(ec, "cannot send the request");
    bhttp::async_read(stream_, buffer_, parser_,
                      beast::bind_front_handler(&ContainerCall::OnRead, shared_from_this()));
  }

  void OnRead(beast::error_code ec, std::size_t) {
    if (ec == bhttp::error::body_limit) {
      return Fail(
          ec, "the answer is larger than " + std::to_string(limits_.max_response_bytes) + " bytes");
    }
    if (ec) return Fail(ec, "cannot read the answer");
    ContainerReply reply;
    reply.reached = true;
    auto message = parser_.release();
    reply.status = static_cast<int>(message.result_int());
    for (const auto& field : message) {
      reply.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    reply.body = std::move(message.body());
    Finish(std::move(reply));
  }

  void TimeOut() {
    timed_out_ = true;
    resolver_.cancel();
    beast::error_code ignored;
    stream_.socket().close(ignored);  // the pending operation completes with operation_aborted
  }

  void Fail(beast::error_code ec, const std::string& what) {
    ContainerReply reply;
    reply.timed_out = timed_out_;
    reply.failure = timed_out_
                        ? "no answer within " + std::to_string(limits_.timeout.count()) + " ms"
                        : what + ": " + ec.message();
    Finish(std::move(reply));
  }

  void Finish(ContainerReply reply) {
    deadline_.cancel();
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.socket().close(ignored);
    if (auto done = std::exchange(done_, nullptr)) done(std::move(reply));
  }

  net::strand<net::io_context::executor_type> strand_;
  tcp::resolver resolver_;
  beast::tcp_stream stream_;
  net::steady_timer deadline_;
  std::string host_;
  std::string port_;
  ContainerCallLimits limits_;
  std::function<void(ContainerReply)> done_;
  bhttp::request<bhttp::string_body> request_;
  beast::flat_buffer buffer_;
  bhttp::response_parser<bhttp::string_body> parser_;
  bool timed_out_ = false;
};

}  // namespace

void SendToContainer(net::io_context& ioc, const std::string& host, const std::string& port,
                     protocol::HttpRequest request, ContainerCallLimits limits,
                     std::function<void(ContainerReply)> done) {
  std::make_shared<ContainerCall>(ioc, host, port, std::move(request), limits, std::move(done))
      ->Start();
}

bool PingContainer(const std::string& host, const std::string& port,
                   std::chrono::milliseconds timeout) {
  net::io_context ioc;
  std::optional<ContainerReply> reply;
  protocol::HttpRequest ping{"GET", "/ping", {}, ""};
  SendToContainer(ioc, host, port, std::move(ping), {timeout, 64 * 1024},
                  [&reply](ContainerReply answer) { reply = std::move(answer); });
  ioc.run();
  return reply && reply->reached && reply->status == 200;
}

}  // namespace smemu::http
