#include "ops/containers.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace smemu::ops {
namespace {

TEST(ContainerUrl, AcceptsHttpHostAndOptionalPort) {
  EXPECT_EQ(ParseContainerUrl("http://127.0.0.1:8080"), (ContainerAddress{"127.0.0.1", "8080"}));
  EXPECT_EQ(ParseContainerUrl("http://localhost:8080/"), (ContainerAddress{"localhost", "8080"}));
  EXPECT_EQ(ParseContainerUrl("http://model-a.internal"),
            (ContainerAddress{"model-a.internal", "80"}));
  EXPECT_EQ(ParseContainerUrl("http://[::1]:65535"), (ContainerAddress{"::1", "65535"}));
  EXPECT_EQ(ParseContainerUrl("http://[::1]"), (ContainerAddress{"::1", "80"}));
}

TEST(ContainerUrl, RefusesEverythingElse) {
  for (const char* url : {"", "http://", "https://h:1", "HTTP://h:1", "h:1",
                          "http://h:", "http://h:0", "http://h:65536", "http://h:8080/invocations",
                          "http://u:p@h:1", "http://h h:1", "http://[::1", "http://[]:1",
                          "http://[::1]x", "http://[::1]:", "http://h:1:2", "http://h:+1"}) {
    EXPECT_FALSE(ParseContainerUrl(url)) << url;
  }
}

ContainerAnswer Answered(int status, std::string body) {
  ContainerAnswer answer;
  answer.endpoint_name = "ep";
  answer.variant = "AllTraffic";
  answer.account = "123456789012";
  answer.region = "us-west-2";
  answer.address = {"127.0.0.1", "9000"};
  answer.reached = true;
  answer.status = status;
  answer.body = std::move(body);
  return answer;
}

TEST(ContainerError, AClientErrorQuotesTheContainerAndNamesItsLogGroup) {
  const domain::AwsError error = ContainerError(Answered(404, "no such model"));
  EXPECT_EQ(error.code, domain::ErrorCode::kModelError);
  EXPECT_EQ(error.http_status, 424);
  EXPECT_EQ(error.message,
            "Received client error (404) from primary with message \"no such model\". See "
            "https://us-west-2.console.aws.amazon.com/cloudwatch/home?region=us-west-2"
            "#logEventViewer:group=/aws/sagemaker/Endpoints/ep in account 123456789012 for more "
            "information.");
  EXPECT_EQ(error.details,
            (std::vector<domain::ErrorDetail>{
                {"OriginalStatusCode", std::int64_t{404}},
                {"OriginalMessage", "no such model"},
                {"LogStreamArn",
                 "arn:aws:logs:us-west-2:123456789012:log-group:/aws/sagemaker/Endpoints/ep"}}));
}

TEST(ContainerError, ATimeoutIsAServerErrorWithStatusZero) {
  ContainerAnswer answer = Answered(0, "");
  answer.reached = false;
  answer.timed_out = true;
  const domain::AwsError error = ContainerError(answer);
  EXPECT_EQ(error.message.rfind("Received server error (0) from primary with message \"Your "
                                "invocation timed out while waiting for a response from container "
                                "primary.",
                                0),
            0u)
      << error.message;
}

TEST(ContainerError, NoAnswerNamesTheVariantAndAddress) {
  ContainerAnswer answer = Answered(0, "");
  answer.reached = false;
  answer.failure = "Connection refused";
  EXPECT_EQ(ContainerError(answer),
            domain::ModelError("The model container for production variant AllTraffic at "
                               "http://127.0.0.1:9000 did not answer (Connection refused)."));
}

TEST(ContainerError, ALongBodyIsCutToTheModelsMessageLimit) {
  const domain::AwsError error = ContainerError(Answered(500, std::string(5000, 'x')));
  EXPECT_EQ(error.message.size(), 2048u);
  EXPECT_NE(error.message.find("x...\". See"), std::string::npos);
}

}  // namespace
}  // namespace smemu::ops
