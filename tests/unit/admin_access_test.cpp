// Who may use the admin API (/_emulator/): without a token, the callers --admin-from names, judged
// by their address (loopback; also this machine's networks; or anyone), and in-process callers;
// with a token only its holders, from anywhere. Health is always open (readiness probes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;

constexpr const char* kLoopbackPeer = "127.0.0.1";
constexpr const char* kContainerHostPeer = "172.17.0.1";  // the host, through a published port
constexpr const char* kOutsidePeer = "203.0.113.7";

class AdminAccessTest : public EmulatorFixture {
 protected:
  void Reopen(std::string token, AdminPeers peers = AdminPeers::kLoopback) {
    router_.reset();
    emulator_.reset();
    router_config_.admin_token = std::move(token);
    router_config_.admin_peers = peers;
    // The addresses above, placed as a container's network would place them.
    router_config_.peer_scope = [](const std::string& peer) {
      if (peer == kLoopbackPeer) return protocol::PeerScope::kLoopback;
      if (peer == kContainerHostPeer) return protocol::PeerScope::kLocalNetwork;
      return protocol::PeerScope::kElsewhere;
    };
    Open();
  }

  protocol::HttpResponse From(const std::string& peer, const std::string& method,
                              const std::string& target, protocol::Headers headers = {},
                              const std::string& body = "") {
    return router_->Handle({method, target, std::move(headers), body, peer});
  }

  int Status(const std::string& method, const std::string& target, protocol::Headers headers = {},
             const std::string& body = "") {
    return router_->Handle({method, target, std::move(headers), body}).status;
  }
};

TEST_F(AdminAccessTest, ByDefaultOnlyLoopbackCallersGetIn) {
  Reopen("");
  EXPECT_EQ(From(kLoopbackPeer, "GET", "/_emulator/clock").status, 200);
  EXPECT_EQ(From("::1", "GET", "/_emulator/clock").status, 403) << "the fake knows one address";
  EXPECT_EQ(From(kOutsidePeer, "GET", "/_emulator/health").status, 200) << "probes always";
  const auto refused = From(kContainerHostPeer, "POST", "/_emulator/reset");
  EXPECT_EQ(refused.status, 403);
  const json body = json::parse(refused.body);
  EXPECT_EQ(body["__type"], "AccessDeniedException");
  EXPECT_EQ(body["message"],
            "The admin API answers callers on loopback (--admin-from loopback) only, and this "
            "request came from 172.17.0.1. Start the server with --admin-from local or "
            "--admin-from any, or give it an --admin-token.");
  EXPECT_EQ(From(kOutsidePeer, "GET", "/_emulator/capacity").status, 403);
  EXPECT_EQ(From(kOutsidePeer, "GET", "/_emulator/no-such-path").status, 403)
      << "a refused caller does not learn which paths exist";
  EXPECT_EQ(Status("POST", "/_emulator/clock", {}, R"({"advance_seconds": 60})"), 200)
      << "an in-process caller (a scenario) is trusted";
  EXPECT_EQ(
      json::parse(From(kOutsidePeer, "POST", "/", {{"X-Amz-Target", "SageMaker.ListModels"}}, "{}")
                      .body)["Models"],
      json::array())
      << "the AWS APIs still serve everyone";
}

TEST_F(AdminAccessTest, LocalLetsInTheContainersHostButNotTheWorld) {
  Reopen("", AdminPeers::kLocalNetworks);
  EXPECT_EQ(From(kLoopbackPeer, "GET", "/_emulator/clock").status, 200);
  EXPECT_EQ(From(kContainerHostPeer, "POST", "/_emulator/reset").status, 200);
  const auto refused = From(kOutsidePeer, "GET", "/_emulator/ui");
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(json::parse(refused.body)["message"],
            "The admin API answers callers on loopback and this machine's own networks "
            "(--admin-from local) only, and this request came from 203.0.113.7. Start the server "
            "with --admin-from any, or give it an --admin-token.");
}

TEST_F(AdminAccessTest, AnyLetsEveryoneIn) {
  Reopen("", AdminPeers::kAnywhere);
  EXPECT_EQ(From(kOutsidePeer, "POST", "/_emulator/clock", {}, R"({"advance_seconds": 60})").status,
            200);
}

TEST_F(AdminAccessTest, WithATokenOnlyItsHoldersGetIn) {
  Reopen("s3cret-token", AdminPeers::kAnywhere);
  EXPECT_EQ(Status("GET", "/_emulator/health"), 200);
  EXPECT_EQ(From(kLoopbackPeer, "GET", "/_emulator/clock").status, 403)
      << "with a token, loopback callers need it too";
  EXPECT_EQ(
      From(kOutsidePeer, "GET", "/_emulator/clock", {{"X-Emulator-Admin-Token", "s3cret-token"}})
          .status,
      200)
      << "and its holders get in from anywhere";
  EXPECT_EQ(Status("GET", "/_emulator/clock"), 403);
  EXPECT_EQ(Status("GET", "/_emulator/clock", {{"X-Emulator-Admin-Token", "wrong-token!"}}), 403);
  EXPECT_EQ(Status("GET", "/_emulator/clock", {{"X-Emulator-Admin-Token", "s3cret-tok"}}), 403);
  EXPECT_EQ(Status("GET", "/_emulator/clock", {{"Authorization", kAuth}}), 403)
      << "AWS credentials are not the admin token";
  EXPECT_EQ(Status("GET", "/_emulator/clock", {{"X-Emulator-Admin-Token", "s3cret-token"}}), 200);
  EXPECT_EQ(Status("POST", "/_emulator/clock", {{"Authorization", "Bearer s3cret-token"}},
                   R"({"advance_seconds": 60})"),
            200);
  const json refused = json::parse(router_->Handle({"GET", "/_emulator/capacity", {}, ""}).body);
  EXPECT_EQ(refused["message"],
            "The admin API requires the token given with --admin-token, in the "
            "X-Emulator-Admin-Token header or as Authorization: Bearer <token>.");
}

}  // namespace
}  // namespace smemu
