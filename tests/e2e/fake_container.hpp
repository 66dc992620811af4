// A stand-in for a real inference container: a small blocking HTTP server on 127.0.0.1 that
// follows the SageMaker container contract (GET /ping, POST /invocations) with answers a test
// chooses, and records what it was sent. One request per connection, served on its own thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/http_client.hpp"

namespace smemu::testing {

struct ContainerAnswer {
  int status = 200;
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  std::chrono::milliseconds delay{0};  // before answering
};

class FakeContainer {
 public:
  using Handler = std::function<ContainerAnswer(const bhttp::request<bhttp::string_body>&)>;

  explicit FakeContainer(Handler invocations, int ping_status = 200)
      : invocations_(std::move(invocations)), ping_status_(ping_status), acceptor_(ioc_) {
    const tcp::endpoint endpoint(net::ip::make_address("127.0.0.1"), 0);
    acceptor_.open(endpoint.protocol());
    acceptor_.bind(endpoint);
    acceptor_.listen();
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { Serve(); });
  }

  ~FakeContainer() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    pings_released_.notify_all();
    // Wake the blocking accept with a connection of our own.
    beast::error_code ignored;
    tcp::socket waker(ioc_);
    waker.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port_), ignored);
    thread_.join();
    for (std::thread& worker : workers_) worker.join();
  }

  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int pings() const { return pings_; }

  // From now on a ping is received (counted) but not answered until ReleasePings(): a container
  // that accepts connections and then says nothing.
  void HoldPings() {
    std::lock_guard lock(mutex_);
    holding_pings_ = true;
  }
  void ReleasePings() {
    {
      std::lock_guard lock(mutex_);
      holding_pings_ = false;
    }
    pings_released_.notify_all();
  }

  // Copies of the /invocations requests received so far.
  std::vector<bhttp::request<bhttp::string_body>> Invocations() {
    std::lock_guard lock(mutex_);
    return received_;
  }

 private:
  void Serve() {
    while (!stopping_) {
      tcp::socket socket(ioc_);
      beast::error_code ec;
      acceptor_.accept(socket, ec);
      if (ec || stopping_) return;
      workers_.emplace_back([this, s = std::move(socket)]() mutable { Answer(std::move(s)); });
    }
  }

  void Answer(tcp::socket socket) {
    beast::error_code ec;
    beast::flat_buffer buffer;
    bhttp::request<bhttp::string_body> request;
    bhttp::read(socket, buffer, request, ec);
    if (ec) return;
    ContainerAnswer answer;
    if (request.target() == "/ping") {
      ++pings_;
      answer.status = ping_status_;
      std::unique_lock lock(mutex_);
      pings_released_.wait(lock, [this] { return !holding_pings_ || stopping_; });
    } else {
      {
        std::lock_guard lock(mutex_);
        received_.push_back(request);
      }
      answer = invocations_(request);
    }
    std::this_thread::sleep_for(answer.delay);
    bhttp::response<bhttp::string_body> response{static_cast<bhttp::status>(answer.status), 11};
    for (const auto& [name, value] : answer.headers) response.set(name, value);
    response.body() = answer.body;
    response.keep_alive(false);
    response.prepare_payload();
    bhttp::write(socket, response, ec);
    socket.shutdown(tcp::socket::shutdown_both, ec);
  }

  Handler invocations_;
  const int ping_status_;
  net::io_context ioc_;
  tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> pings_{0};
  std::mutex mutex_;
  std::condition_variable pings_released_;
  bool holding_pings_ = false;  // guarded by mutex_
  std::vector<bhttp::request<bhttp::string_body>> received_;
  std::thread thread_;
  std::vector<std::thread> workers_;  // touched only by the serving thread, then the destructor
};

}  // namespace smemu::testing
