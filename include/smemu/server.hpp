// Server: the whole emulator behind one object: state store, virtual clock, operation layer,
// protocol router and HTTP transport on one port. Used by main and by end-to-end tests.
//
// Start() and Stop() are called from one controlling thread; requests are served on the server's
// own threads in between.
#pragma once

#include <memory>

#include "smemu/clock.hpp"
#include "smemu/options.hpp"

namespace smemu {

namespace ops {
class Emulator;
}  // namespace ops

class Server {
 public:
  // `base_clock` drives the virtual clock while it runs (default: the system clock); it must
  // outlive the Server.
  explicit Server(ServerOptions options, const Clock* base_clock = nullptr);
  ~Server();  // calls Stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Opens the database, binds and starts serving. Returns the bound port. Throws std::exception
  // with a readable message when the database cannot be opened or the address cannot be bound.
  unsigned short Start();

  // Stops accepting, lets requests in flight finish (up to a few seconds), closes the database.
  // Idempotent.
  void Stop();

  // The operation layer, for tests that change its handlers. REQUIRES: Start() has returned.
  ops::Emulator& EmulatorForTest();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace smemu
