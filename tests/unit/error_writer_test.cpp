#include "protocol/error_writer.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string_view>

namespace smemu::protocol {
namespace {

TEST(ErrorWriter, AwsJsonErrorHasTypeBothMessagesAndHeaders) {
  const HttpResponse response =
      RenderError(domain::ValidationException("Could not find model \"arn\"."),
                  WireProtocol::kAwsJson11, "req-1");
  EXPECT_EQ(response.status, 400);
  EXPECT_EQ(*FindHeader(response.headers, "content-type"), "application/x-amz-json-1.1");
  EXPECT_EQ(*FindHeader(response.headers, "X-AMZN-ERRORTYPE"), "ValidationException");
  EXPECT_EQ(*FindHeader(response.headers, "x-amzn-RequestId"), "req-1");
  EXPECT_EQ(nlohmann::json::parse(response.body),
            nlohmann::json({{"__type", "ValidationException"},
                            {"message", "Could not find model \"arn\"."},
                            {"Message", "Could not find model \"arn\"."}}));
}

TEST(ErrorWriter, RestJsonUsesTheModelStatusAndJsonContentType) {
  const HttpResponse response =
      RenderError({domain::ErrorCode::kModelError, "boom", 424}, WireProtocol::kRestJson1, "req-2");
  EXPECT_EQ(response.status, 424);
  EXPECT_EQ(*FindHeader(response.headers, "Content-Type"), "application/json");
  EXPECT_EQ(*FindHeader(response.headers, "X-Amzn-ErrorType"), "ModelError");
}

// The wire names are the codes' own names without the k, each one distinct.
TEST(ErrorWriter, EveryErrorCodeHasItsOwnWireName) {
  using domain::ErrorCode;
  EXPECT_EQ(domain::WireName(ErrorCode::kValidationException), "ValidationException");
  EXPECT_EQ(domain::WireName(ErrorCode::kMissingAuthenticationTokenException),
            "MissingAuthenticationTokenException");
  std::set<std::string_view> names;
  const int count = static_cast<int>(ErrorCode::kRequestTimeoutException) + 1;  // the last code
  for (int i = 0; i < count; ++i) {
    const std::string_view name = domain::WireName(static_cast<ErrorCode>(i));
    EXPECT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(name).second) << name;
  }
}

TEST(ErrorWriter, InvalidUtf8InAMessageIsReplacedNotThrown) {
  const HttpResponse response =
      RenderError(domain::ValidationException("bad \xff name"), WireProtocol::kAwsJson11, "req-3");
  const auto body = nlohmann::json::parse(response.body);
  EXPECT_EQ(body["message"], "bad \xEF\xBF\xBD name");
}

TEST(ErrorWriter, InternalFailureIs500) {
  EXPECT_EQ(RenderError(domain::InternalFailure("x"), WireProtocol::kAwsJson11, "r").status, 500);
}

}  // namespace
}  // namespace smemu::protocol
