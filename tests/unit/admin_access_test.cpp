// Who may use the admin API (/_emulator/): everyone on loopback without a token; with a token only
// its holders; nobody off loopback without one. Health is always open (readiness probes).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;

class AdminAccessTest : public EmulatorFixture {
 protected:
  void Reopen(std::string token, bool open) {
    router_.reset();
    emulator_.reset();
    router_config_.admin_token = std::move(token);
    router_config_.admin_open = open;
    Open();
  }

  int Status(const std::string& method, const std::string& target, protocol::Headers headers = {},
             const std::string& body = "") {
    return router_->Handle({method, target, std::move(headers), body}).status;
  }
};

TEST_F(AdminAccessTest, OffLoopbackWithoutATokenTheAdminApiIsClosed) {
  Reopen("", /*open=*/false);
  EXPECT_EQ(Status("GET", "/_emulator/health"), 200);
  const auto refused = router_->Handle({"POST", "/_emulator/reset", {}, ""});
  EXPECT_EQ(refused.status, 403);
  const json body = json::parse(refused.body);
  EXPECT_EQ(body["__type"], "AccessDeniedException");
  EXPECT_EQ(body["message"],
            "The admin API is disabled: the server listens on a non-loopback address and was "
            "started without --admin-token.");
  EXPECT_EQ(Status("GET", "/_emulator/clock"), 403);
  EXPECT_EQ(Status("GET", "/_emulator/capacity"), 403);
  EXPECT_EQ(Call("ListModels", json::object())["Models"], json::array()) << "AWS APIs still serve";
}

TEST_F(AdminAccessTest, WithATokenOnlyItsHoldersGetIn) {
  Reopen("s3cret-token", /*open=*/false);
  EXPECT_EQ(Status("GET", "/_emulator/health"), 200);
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

TEST_F(AdminAccessTest, OnLoopbackWithoutATokenEverythingIsOpen) {
  EXPECT_EQ(Status("GET", "/_emulator/clock"), 200);
  EXPECT_EQ(Status("POST", "/_emulator/clock", {}, R"({"advance_seconds": 60})"), 200);
}

}  // namespace
}  // namespace smemu
