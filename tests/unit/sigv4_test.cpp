#include "protocol/sigv4.hpp"

#include <gtest/gtest.h>

namespace smemu::protocol {
namespace {

TEST(SigV4, ReadsTheCredentialScope) {
  const auto scope = ParseAuthorization(
      "AWS4-HMAC-SHA256 Credential=123456789012/20270125/us-west-2/sagemaker/aws4_request, "
      "SignedHeaders=host;x-amz-date;x-amz-target, Signature=abcdef");
  ASSERT_TRUE(scope.has_value());
  EXPECT_EQ(scope->access_key_id, "123456789012");
  EXPECT_EQ(scope->date, "20270125");
  EXPECT_EQ(scope->region, "us-west-2");
  EXPECT_EQ(scope->service, "sagemaker");
}

TEST(SigV4, RefusesOtherSchemesAndMalformedCredentials) {
  EXPECT_FALSE(ParseAuthorization("Basic dXNlcjpwYXNz"));
  EXPECT_FALSE(ParseAuthorization("AWS4-HMAC-SHA256 SignedHeaders=host"));
  EXPECT_FALSE(ParseAuthorization("AWS4-HMAC-SHA256 Credential=AKID/20270125/us-west-2"));
  EXPECT_FALSE(ParseAuthorization("AWS4-HMAC-SHA256 Credential=/20270125/r/s/aws4_request"));
}

TEST(SigV4, AccountAndRegionNames) {
  EXPECT_TRUE(IsAccountId("123456789012"));
  EXPECT_FALSE(IsAccountId("AKIAIOSFODNN7EXAMPLE"));
  EXPECT_FALSE(IsAccountId("12345678901"));
  EXPECT_TRUE(IsRegionName("eu-west-1"));
  EXPECT_FALSE(IsRegionName("EU_WEST"));
  EXPECT_FALSE(IsRegionName(""));
  EXPECT_FALSE(IsRegionName("us-east-1/../x"));
}

}  // namespace
}  // namespace smemu::protocol
