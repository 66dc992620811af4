#include "protocol/error_writer.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
      RenderError({"ModelError", "boom", 424}, WireProtocol::kRestJson1, "req-2");
  EXPECT_EQ(response.status, 424);
  EXPECT_EQ(*FindHeader(response.headers, "Content-Type"), "application/json");
  EXPECT_EQ(*FindHeader(response.headers, "X-Amzn-ErrorType"), "ModelError");
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
