// A small blocking HTTP client for end-to-end tests (Beast, as in Beast's sync client example),
// plus a raw-bytes exchange for requests no well-behaved client would send.
#pragma once

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "http/net.hpp"

namespace smemu::testing {

namespace net = http::net;
namespace beast = http::beast;
namespace bhttp = http::bhttp;
using tcp = http::tcp;

struct HttpReply {
  int status = 0;
  std::string body;
  bhttp::fields headers;
};

// One keep-alive connection to address:port (default 127.0.0.1).
class HttpClient {
 public:
  explicit HttpClient(unsigned short port, const std::string& address = "127.0.0.1")
      : stream_(ioc_) {
    stream_.connect(tcp::endpoint(net::ip::make_address(address), port));
  }

  HttpReply Send(const std::string& method, const std::string& target, const std::string& body,
                 const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    bhttp::request<bhttp::string_body> request{bhttp::string_to_verb(method), target, 11};
    request.set(bhttp::field::host, "127.0.0.1");
    for (const auto& [name, value] : headers) request.set(name, value);
    request.body() = body;
    request.prepare_payload();
    stream_.expires_after(std::chrono::seconds(10));
    bhttp::write(stream_, request);
    beast::flat_buffer buffer;
    bhttp::response<bhttp::string_body> response;
    bhttp::read(stream_, buffer, response);
    return {static_cast<int>(response.result_int()), response.body(), response.base()};
  }

  HttpReply Aws(const std::string& operation, const std::string& json_body) {
    return Send("POST", "/", json_body,
                {{"X-Amz-Target", "SageMaker." + operation},
                 {"Content-Type", "application/x-amz-json-1.1"}});
  }

 private:
  net::io_context ioc_;
  beast::tcp_stream stream_;
};

// Writes `bytes` (optionally in pieces with a pause between them) and returns everything the
// server sends until it closes the connection or `wait` passes.
inline std::string RawExchange(unsigned short port, const std::vector<std::string>& pieces,
                               std::chrono::milliseconds pause = std::chrono::milliseconds(0),
                               std::chrono::milliseconds wait = std::chrono::seconds(5)) {
  net::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
  for (const std::string& piece : pieces) {
    net::write(stream.socket(), net::buffer(piece));
    if (pause.count() > 0) std::this_thread::sleep_for(pause);
  }
  std::string received;
  char chunk[4096];
  stream.expires_after(wait);
  while (true) {
    beast::error_code ec;
    // tcp_stream's timeout only applies to async operations; poll with a deadline instead.
    stream.socket().non_blocking(true);
    const auto deadline = std::chrono::steady_clock::now() + wait;
    size_t n = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      n = stream.socket().read_some(net::buffer(chunk), ec);
      if (ec != net::error::would_block) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (ec || n == 0) break;
    received.append(chunk, n);
  }
  return received;
}

}  // namespace smemu::testing
