// InvokeEndpointWithResponseStream through the router: the answer as PayloadPart events, the
// model's headers, and the errors that come before the first part as ordinary HTTP errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "protocol/event_stream.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants

class StreamedInvocations : public EmulatorFixture {
 protected:
  StreamedInvocations() { Call("CreateModel", {{"ModelName", "model-v1"}}); }

  void Endpoint(const std::string& name, const std::string& type, const std::string& plan_arn) {
    json variant = {{"VariantName", "AllTraffic"},
                    {"ModelName", "model-v1"},
                    {"InstanceType", type},
                    {"InitialInstanceCount", 1}};
    if (!plan_arn.empty()) {
      variant["CapacityReservationConfig"] = {
          {"CapacityReservationPreference", "capacity-reservations-only"},
          {"MlReservationArn", plan_arn}};
    }
    Call("CreateEndpointConfig", {{"EndpointConfigName", name}, {"ProductionVariants", {variant}}});
    Call("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
  }

  protocol::HttpResponse Stream(const std::string& endpoint, const std::string& body,
                                protocol::Headers headers = {}) {
    headers.emplace_back("Authorization", kAuth);
    return router_->Handle(
        {"POST", "/endpoints/" + endpoint + "/invocations-response-stream", headers, body});
  }

  static std::string Header(const protocol::HttpResponse& response, const char* name) {
    const std::string* value = protocol::FindHeader(response.headers, name);
    return value == nullptr ? "<none>" : *value;
  }
};

TEST_F(StreamedInvocations, TheEchoModelAnswersAPayloadPartPerLine) {
  Endpoint("echo", "ml.g5.xlarge", "");
  const auto streamed = Stream("echo", "first\nsecond\nlast",
                               {{"Content-Type", "text/plain"},
                                {"X-Amzn-SageMaker-Accept", "text/plain"},
                                {"X-Amzn-SageMaker-Custom-Attributes", "trace=1"}});
  ASSERT_EQ(streamed.status, 200) << streamed.body;
  EXPECT_EQ(streamed.body,
            protocol::EventOf("PayloadPart", "application/octet-stream", "first\n") +
                protocol::EventOf("PayloadPart", "application/octet-stream", "second\n") +
                protocol::EventOf("PayloadPart", "application/octet-stream", "last"));
  EXPECT_EQ(Header(streamed, "Content-Type"), "application/vnd.amazon.eventstream");
  // The model's own content type travels in the runtime model's output header.
  EXPECT_EQ(Header(streamed, "X-Amzn-SageMaker-Content-Type"), "text/plain");
  EXPECT_EQ(Header(streamed, "x-Amzn-Invoked-Production-Variant"), "AllTraffic");
  EXPECT_EQ(Header(streamed, "X-Amzn-SageMaker-Custom-Attributes"), "trace=1");
  EXPECT_TRUE(Stream("echo", "").body.empty()) << "an empty answer has no parts";
}

TEST_F(StreamedInvocations, ErrorsBeforeTheFirstPartAreHttpErrors) {
  const auto missing = Stream("nowhere", "x");
  EXPECT_EQ(missing.status, 400);
  const json body = json::parse(missing.body);
  EXPECT_EQ(body["__type"], "ValidationError");
  EXPECT_EQ(body["message"], "Endpoint nowhere of account 123456789012 not found.");
  EXPECT_EQ(Header(missing, "Content-Type"), "application/json");
  EXPECT_EQ(router_->Handle({"GET", "/endpoints/e/invocations-response-stream", {}, ""}).status,
            405);
}

TEST_F(StreamedInvocations, AnExpiredPlanIsTheModelErrorInvokeEndpointGives) {
  const json offering = Call("SearchTrainingPlanOfferings",
                             {{"InstanceType", "ml.p5.48xlarge"},
                              {"InstanceCount", 1},
                              {"DurationHours", 168},
                              {"StartTimeAfter", kPlanStartSeconds},
                              {"TargetResources", {"endpoint"}}})["TrainingPlanOfferings"][0];
  Endpoint("reserved", "ml.p5.48xlarge", BuyThenStartTheDay("week", offering));
  EXPECT_EQ(Stream("reserved", "x").status, 200);
  Advance(7 * kDay);
  const auto expired = Stream("reserved", "x");
  EXPECT_EQ(expired.status, 424);
  const json body = json::parse(expired.body);
  EXPECT_EQ(body["__type"], "ModelError");
  EXPECT_EQ(body["message"],
            "Endpoint capacity reservation has expired. Please update endpoint configuration.");
}

TEST_F(StreamedInvocations, AModelErrorFaultRuleForTheStreamedOperationAppliesToItAlone) {
  Endpoint("e", "ml.g5.xlarge", "");
  const auto added =
      router_->Handle({"POST",
                       "/_emulator/faults",
                       {},
                       json{{"operation", "InvokeEndpointWithResponseStream"},
                            {"resource", "e"},
                            {"model_error", {{"status", 503}, {"body", "overloaded"}}}}
                           .dump()});
  ASSERT_EQ(added.status, 200) << added.body;
  const auto failed = Stream("e", "x");
  EXPECT_EQ(failed.status, 424);
  EXPECT_EQ(json::parse(failed.body)["__type"], "ModelError");
  const auto plain =
      router_->Handle({"POST", "/endpoints/e/invocations", {{"Authorization", kAuth}}, "x"});
  EXPECT_EQ(plain.status, 200) << "InvokeEndpoint is another operation";
}

}  // namespace
}  // namespace smemu
