// Endpoints through the router: lifecycle on the clock, reserved and on-demand capacity.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mutex>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
using ::testing::HasSubstr;

class EndpointsTest : public EmulatorFixture {
 protected:
  EndpointsTest() { Call("CreateModel", {{"ModelName", "model-v1"}}); }

  std::string BuyPlan(const std::string& name, int count,
                      long long start_seconds = kPlanStartSeconds) {
    const json offering = Call("SearchTrainingPlanOfferings",
                               {{"InstanceType", "ml.p5.48xlarge"},
                                {"InstanceCount", count},
                                {"DurationHours", 168},
                                {"StartTimeAfter", start_seconds},
                                {"TargetResources", {"endpoint"}}})["TrainingPlanOfferings"][0];
    return BuyThenStartTheDay(name, offering);
  }

  void Config(const std::string& name, const std::string& type, int count,
              const std::string& plan_arn = "") {
    json variant = {{"VariantName", "AllTraffic"},
                    {"ModelName", "model-v1"},
                    {"InstanceType", type},
                    {"InitialInstanceCount", count}};
    if (!plan_arn.empty()) {
      variant["CapacityReservationConfig"] = {
          {"CapacityReservationPreference", "capacity-reservations-only"},
          {"MlReservationArn", plan_arn}};
    }
    Call("CreateEndpointConfig", {{"EndpointConfigName", name}, {"ProductionVariants", {variant}}});
  }

  json Scale(const std::string& endpoint, int count, int status = 200) {
    return Call("UpdateEndpointWeightsAndCapacities",
                {{"EndpointName", endpoint},
                 {"DesiredWeightsAndCapacities",
                  {{{"VariantName", "AllTraffic"}, {"DesiredInstanceCount", count}}}}},
                status);
  }

  json Endpoint(const std::string& name) {
    return Call("DescribeEndpoint", {{"EndpointName", name}});
  }
};

TEST_F(EndpointsTest, OnDemandLifecycleWithTheRealTexts) {
  Config("cpu", "ml.g5.xlarge", 2);  // not in the capacity configuration: unlimited
  const json created =
      Call("CreateEndpoint", {{"EndpointName", "My-Endpoint"}, {"EndpointConfigName", "cpu"}});
  EXPECT_EQ(created["EndpointArn"],
            "arn:aws:sagemaker:us-west-2:123456789012:endpoint/my-endpoint");
  const json endpoint = Endpoint("my-endpoint");
  EXPECT_EQ(endpoint["EndpointName"], "My-Endpoint");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["EndpointConfigName"], "cpu");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 2);
  EXPECT_EQ(endpoint["ProductionVariants"][0]["DesiredInstanceCount"], 2);
  EXPECT_EQ(endpoint["CreationTime"], kStartSeconds);
  EXPECT_FALSE(endpoint["ProductionVariants"][0].contains("CapacityReservationConfig"));

  EXPECT_EQ(Call("CreateEndpoint", {{"EndpointName", "MY-ENDPOINT"}, {"EndpointConfigName", "cpu"}},
                 400)["message"],
            "Cannot create already existing endpoint "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint/my-endpoint\".");
  EXPECT_EQ(Call("CreateEndpoint", {{"EndpointName", "other"}, {"EndpointConfigName", "nope"}},
                 400)["message"],
            "Could not find endpoint configuration "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/nope\".");
  const json listed = Call("ListEndpoints", {{"StatusEquals", "InService"}});
  ASSERT_EQ(listed["Endpoints"].size(), 1u);
  EXPECT_EQ(listed["Endpoints"][0]["EndpointStatus"], "InService");

  Call("DeleteEndpoint", {{"EndpointName", "My-Endpoint"}});
  const json missing = Call("DescribeEndpoint", {{"EndpointName", "My-Endpoint"}}, 400);
  EXPECT_EQ(missing["__type"], "ValidationException");  // what the EndpointDeleted waiter needs
  EXPECT_EQ(
      missing["message"],
      "Could not find endpoint \"arn:aws:sagemaker:us-west-2:123456789012:endpoint/my-endpoint\".");
  EXPECT_EQ(Call("DeleteEndpoint", {{"EndpointName", "My-Endpoint"}}, 400)["__type"],
            "ValidationException");
}

TEST_F(EndpointsTest, OnDemandShortageFailsWithTheRealReason) {
  Config("p5-on-demand", "ml.p5.48xlarge", 2);  // the region has 1 on-demand p5
  Call("CreateEndpoint", {{"EndpointName", "big"}, {"EndpointConfigName", "p5-on-demand"}});
  const json endpoint = Endpoint("big");
  EXPECT_EQ(endpoint["EndpointStatus"], "Failed");
  EXPECT_EQ(endpoint["FailureReason"],
            "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
            "error. Please retry using a different ML instance type or after some time.");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 0);
}

TEST_F(EndpointsTest, ReservedVariantsShareTheirPlan) {
  const std::string plan = BuyPlan("endpoint-plan", 2);
  Config("one", "ml.p5.48xlarge", 1, plan);
  Call("CreateEndpoint", {{"EndpointName", "first"}, {"EndpointConfigName", "one"}});
  Call("CreateEndpoint", {{"EndpointName", "second"}, {"EndpointConfigName", "one"}});
  Call("CreateEndpoint", {{"EndpointName", "third"}, {"EndpointConfigName", "one"}});
  const json first = Endpoint("first");
  EXPECT_EQ(first["EndpointStatus"], "InService");
  const json& reservation = first["ProductionVariants"][0]["CapacityReservationConfig"];
  EXPECT_EQ(reservation["MlReservationArn"], plan);
  EXPECT_EQ(reservation["TotalInstanceCount"], 2);
  EXPECT_EQ(reservation["AvailableInstanceCount"], 0);
  EXPECT_EQ(reservation["UsedByCurrentEndpoint"], 1);
  EXPECT_EQ(Endpoint("second")["EndpointStatus"], "InService");
  const json third = Endpoint("third");
  EXPECT_EQ(third["EndpointStatus"], "Failed");
  EXPECT_THAT(third["FailureReason"].get<std::string>(),
              HasSubstr("exceeds available capacity (0)"));

  json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "endpoint-plan"}});
  EXPECT_EQ(described["InUseInstanceCount"], 2);
  EXPECT_EQ(described["AvailableInstanceCount"], 0);
  Call("DeleteEndpoint", {{"EndpointName", "first"}});
  described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "endpoint-plan"}});
  EXPECT_EQ(described["InUseInstanceCount"], 1);
  EXPECT_EQ(described["AvailableInstanceCount"], 1);
  EXPECT_EQ(described["UpfrontFee"], "18480.00");  // deleting an endpoint refunds nothing
}

TEST_F(EndpointsTest, AnEndpointWaitsForItsPlanToStart) {
  const std::string plan = BuyPlan("later", 1, kStartSeconds + 2 * kDay);
  Config("later", "ml.p5.48xlarge", 1, plan);
  Call("CreateEndpoint", {{"EndpointName", "waiting"}, {"EndpointConfigName", "later"}});
  EXPECT_EQ(Endpoint("waiting")["EndpointStatus"], "Creating");
  Advance(2 * kDay - 1);  // from 11:30 UTC on the first day, when BuyPlan leaves the clock
  EXPECT_EQ(Endpoint("waiting")["EndpointStatus"], "Creating");
  Advance(1);
  const json endpoint = Endpoint("waiting");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["LastModifiedTime"], kPlanStartSeconds + 2 * kDay);
}

protocol::HttpResponse Invoke(protocol::Router& router, const std::string& endpoint,
                              const std::string& body, protocol::Headers headers = {}) {
  headers.emplace_back("Authorization", kAuth);
  return router.Handle({"POST", "/endpoints/" + endpoint + "/invocations", headers, body});
}

TEST_F(EndpointsTest, InvokeEchoesOrAnswersTheModelsFixedResponse) {
  Config("cpu", "ml.g5.xlarge", 1);
  Call("CreateEndpoint", {{"EndpointName", "echo"}, {"EndpointConfigName", "cpu"}});
  const auto echoed = Invoke(*router_, "echo", "1,2,3", {{"Content-Type", "text/csv"}});
  EXPECT_EQ(echoed.status, 200);
  EXPECT_EQ(echoed.body, "1,2,3");
  EXPECT_EQ(*protocol::FindHeader(echoed.headers, "Content-Type"), "text/csv");
  EXPECT_EQ(*protocol::FindHeader(echoed.headers, "x-Amzn-Invoked-Production-Variant"),
            "AllTraffic");

  Call("CreateModel",
       {{"ModelName", "fixed"},
        {"PrimaryContainer",
         {{"Image", "img"},
          {"Environment", {{"SAGEMAKER_EMULATOR_RESPONSE", R"({"label":"cat"})"}}}}}});
  json variant = {{"VariantName", "v2"},
                  {"ModelName", "fixed"},
                  {"InstanceType", "ml.g5.xlarge"},
                  {"InitialInstanceCount", 1}};
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "fixed"}, {"ProductionVariants", {variant}}});
  Call("CreateEndpoint", {{"EndpointName", "fixed"}, {"EndpointConfigName", "fixed"}});
  const auto fixed = Invoke(*router_, "fixed", "anything", {{"Accept", "application/json"}});
  EXPECT_EQ(fixed.body, R"({"label":"cat"})");
  EXPECT_EQ(*protocol::FindHeader(fixed.headers, "x-Amzn-Invoked-Production-Variant"), "v2");
  const auto wrong_variant =
      Invoke(*router_, "fixed", "x", {{"X-Amzn-SageMaker-Target-Variant", "nope"}});
  EXPECT_EQ(wrong_variant.status, 400);
  EXPECT_EQ(json::parse(wrong_variant.body)["__type"], "ValidationError");
}

TEST_F(EndpointsTest, InvokeAfterTheReservationExpiredIsAModelError) {
  const std::string plan = BuyPlan("week", 1);
  Config("reserved", "ml.p5.48xlarge", 1, plan);
  Call("CreateEndpoint", {{"EndpointName", "reserved"}, {"EndpointConfigName", "reserved"}});
  EXPECT_EQ(Invoke(*router_, "reserved", "x").status, 200);
  Advance(7 * kDay);
  const auto expired = Invoke(*router_, "reserved", "x");
  EXPECT_EQ(expired.status, 424);
  const json body = json::parse(expired.body);
  EXPECT_EQ(body["__type"], "ModelError");
  EXPECT_EQ(body["message"],
            "Endpoint capacity reservation has expired. Please update endpoint configuration.");
  EXPECT_EQ(*protocol::FindHeader(expired.headers, "X-Amzn-ErrorType"), "ModelError");
}

TEST_F(EndpointsTest, ScalingStaysWithinTheReservation) {
  const std::string plan = BuyPlan("two", 2);
  Config("reserved", "ml.p5.48xlarge", 1, plan);
  Call("CreateEndpoint", {{"EndpointName", "scaled"}, {"EndpointConfigName", "reserved"}});
  EXPECT_EQ(Scale("scaled", 2)["EndpointArn"],
            "arn:aws:sagemaker:us-west-2:123456789012:endpoint/scaled");
  json endpoint = Endpoint("scaled");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 2);
  EXPECT_EQ(
      endpoint["ProductionVariants"][0]["CapacityReservationConfig"]["AvailableInstanceCount"], 0);
  const json refused = Scale("scaled", 3, 400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_EQ(refused["message"],
            "Requested instance count (3) exceeds reserved capacity (2) for training plan.");
  // Back down to one frees an instance of the plan for another endpoint.
  Scale("scaled", 1);
  Call("CreateEndpoint", {{"EndpointName", "neighbour"}, {"EndpointConfigName", "reserved"}});
  EXPECT_EQ(Endpoint("neighbour")["EndpointStatus"], "InService");
  const json no_room = Scale("scaled", 2, 400);
  EXPECT_EQ(no_room["__type"], "ResourceLimitExceeded");
  EXPECT_THAT(no_room["message"].get<std::string>(), HasSubstr("exceeds available capacity (1)"));
  EXPECT_EQ(
      Call("UpdateEndpointWeightsAndCapacities",
           {{"EndpointName", "scaled"},
            {"DesiredWeightsAndCapacities", {{{"VariantName", "nope"}, {"DesiredWeight", 1}}}}},
           400)["__type"],
      "ValidationException");
  EXPECT_EQ(Scale("ghost", 1, 400)["message"],
            "Could not find endpoint \"arn:aws:sagemaker:us-west-2:123456789012:endpoint/ghost\".");
}

// The same variant twice in one request is ambiguous (which one wins?): refused, and nothing
// changes.
TEST_F(EndpointsTest, UpdateWeightsAndCapacitiesRefusesAVariantNamedTwice) {
  Config("cpu", "ml.g5.xlarge", 1);
  Call("CreateEndpoint", {{"EndpointName", "twice"}, {"EndpointConfigName", "cpu"}});
  const json refused = Call("UpdateEndpointWeightsAndCapacities",
                            {{"EndpointName", "twice"},
                             {"DesiredWeightsAndCapacities",
                              {{{"VariantName", "AllTraffic"}, {"DesiredInstanceCount", 2}},
                               {{"VariantName", "AllTraffic"}, {"DesiredInstanceCount", 3}}}}},
                            400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_EQ(refused["message"],
            "The variant AllTraffic appears more than once in DesiredWeightsAndCapacities.");
  const json endpoint = Endpoint("twice");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["CurrentInstanceCount"], 1);
}

TEST_F(EndpointsTest, UpdateToNewModelsAndToOnDemandCapacity) {
  Call("CreateModel", {{"ModelName", "model-v2"}});
  const std::string plan = BuyPlan("two", 2);
  Config("v1", "ml.p5.48xlarge", 2, plan);
  Call("CreateEndpoint", {{"EndpointName", "live"}, {"EndpointConfigName", "v1"}});
  json v2_variant = {{"VariantName", "AllTraffic"},
                     {"ModelName", "model-v2"},
                     {"InstanceType", "ml.p5.48xlarge"},
                     {"InitialInstanceCount", 2},
                     {"CapacityReservationConfig",
                      {{"CapacityReservationPreference", "capacity-reservations-only"},
                       {"MlReservationArn", plan}}}};
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "v2"}, {"ProductionVariants", {v2_variant}}});
  // The plan is fully used by the old config: the swap gives the old instances back.
  Call("UpdateEndpoint", {{"EndpointName", "live"}, {"EndpointConfigName", "v2"}});
  json endpoint = Endpoint("live");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["EndpointConfigName"], "v2");
  EXPECT_FALSE(endpoint.contains("FailureReason"));
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "two"}})["InUseInstanceCount"], 2);

  Config("on-demand", "ml.g5.xlarge", 2);
  Call("UpdateEndpoint", {{"EndpointName", "live"}, {"EndpointConfigName", "on-demand"}});
  endpoint = Endpoint("live");
  EXPECT_EQ(endpoint["EndpointConfigName"], "on-demand");
  EXPECT_FALSE(endpoint["ProductionVariants"][0].contains("CapacityReservationConfig"));
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "two"}})["InUseInstanceCount"], 0);

  // An update that cannot get its capacity leaves the endpoint serving on the old config.
  Config("too-big", "ml.p5.48xlarge", 2);  // the region has 1 on-demand p5
  Call("UpdateEndpoint", {{"EndpointName", "live"}, {"EndpointConfigName", "too-big"}});
  endpoint = Endpoint("live");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["EndpointConfigName"], "on-demand");
  EXPECT_EQ(endpoint["FailureReason"],
            "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
            "error. Please retry using a different ML instance type or after some time.");
  EXPECT_EQ(Call("UpdateEndpoint", {{"EndpointName", "live"}, {"EndpointConfigName", "nope"}},
                 400)["message"],
            "Could not find endpoint configuration "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/nope\".");
}

class ProvisionedEndpointsTest : public EndpointsTest {
 protected:
  ProvisionedEndpointsTest() {
    router_.reset();
    emulator_.reset();
    hosting_.provisioning_delay = Millis{600'000};
    Open();
  }
};

TEST_F(ProvisionedEndpointsTest, CreatingAndDeletingTakeTheProvisioningDelay) {
  Config("cpu", "ml.g5.xlarge", 1);
  Call("CreateEndpoint", {{"EndpointName", "slow"}, {"EndpointConfigName", "cpu"}});
  EXPECT_EQ(Endpoint("slow")["EndpointStatus"], "Creating");
  EXPECT_EQ(Call("ListEndpoints", {{"StatusEquals", "Creating"}})["Endpoints"].size(), 1u);
  const auto not_yet = Invoke(*router_, "slow", "x");
  EXPECT_EQ(not_yet.status, 400);
  EXPECT_THAT(json::parse(not_yet.body)["message"].get<std::string>(), HasSubstr("not in service"));
  const std::string in_progress =
      "Cannot update in-progress endpoint "
      "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint/slow\".";
  EXPECT_EQ(Call("DeleteEndpoint", {{"EndpointName", "slow"}}, 400)["message"], in_progress);
  Advance(599);
  EXPECT_EQ(Endpoint("slow")["EndpointStatus"], "Creating");
  Advance(1);
  EXPECT_EQ(Endpoint("slow")["EndpointStatus"], "InService");
  Scale("slow", 3);
  json updating = Endpoint("slow");
  EXPECT_EQ(updating["EndpointStatus"], "Updating");
  EXPECT_EQ(updating["ProductionVariants"][0]["CurrentInstanceCount"], 1);
  EXPECT_EQ(updating["ProductionVariants"][0]["DesiredInstanceCount"], 3);
  EXPECT_EQ(Invoke(*router_, "slow", "x").status, 200);  // it keeps serving while Updating
  EXPECT_EQ(Call("DeleteEndpoint", {{"EndpointName", "slow"}}, 400)["message"], in_progress);
  EXPECT_EQ(Call("UpdateEndpoint", {{"EndpointName", "slow"}, {"EndpointConfigName", "cpu"}},
                 400)["message"],
            "Cannot update in-progress endpoint "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint/slow\".");
  EXPECT_EQ(Scale("slow", 2, 400)["message"],
            "Cannot update in-progress endpoint "
            "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint/slow\".");
  Advance(600);
  EXPECT_EQ(Endpoint("slow")["ProductionVariants"][0]["CurrentInstanceCount"], 3);
  Call("DeleteEndpoint", {{"EndpointName", "slow"}});
  EXPECT_EQ(Endpoint("slow")["EndpointStatus"], "Deleting");
  Advance(600);
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "slow"}}, 400)["__type"],
            "ValidationException");
}

TEST_F(ProvisionedEndpointsTest, AStatusChangeIsStampedWhenItFellDueNotWhenItWasNoticed) {
  Config("cpu", "ml.g5.xlarge", 1);
  Call("CreateEndpoint", {{"EndpointName", "late"}, {"EndpointConfigName", "cpu"}});
  Advance(3600);  // nobody looked while the endpoint became InService at +600 s
  const json endpoint = Endpoint("late");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["LastModifiedTime"], kStartSeconds + 600);
  EXPECT_EQ(Call("ListEndpoints", {{"LastModifiedTimeAfter", kStartSeconds + 600}})["Endpoints"],
            json::array());
}

}  // namespace
}  // namespace smemu

namespace smemu {
namespace {

using namespace smemu::testing;

// Endpoints with two weighted variants, and real containers seen through a fake health probe.
class RoutingTest : public EndpointsTest {
 protected:
  void TwoVariants(const std::string& name, double weight_a, double weight_b) {
    auto variant = [](const std::string& variant_name, double weight) {
      return json{{"VariantName", variant_name},
                  {"ModelName", "model-v1"},
                  {"InstanceType", "ml.g5.xlarge"},
                  {"InitialInstanceCount", 1},
                  {"InitialVariantWeight", weight}};
    };
    Call("CreateEndpointConfig",
         {{"EndpointConfigName", name},
          {"ProductionVariants", {variant("A", weight_a), variant("B", weight_b)}}});
    Call("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
  }

  // The variants that `count` invocations went to, in order.
  std::string Route(const std::string& endpoint, int count) {
    std::string variants;
    for (int i = 0; i < count; ++i) {
      const auto reply = Invoke(*router_, endpoint, "x");
      EXPECT_EQ(reply.status, 200) << reply.body;
      variants += *protocol::FindHeader(reply.headers, "x-Amzn-Invoked-Production-Variant");
    }
    return variants;
  }

  void Reopen(std::uint64_t seed) {
    router_.reset();
    emulator_.reset();
    hosting_.routing_seed = seed;
    Open();
  }

  void ModelOn(const std::string& model, const std::string& url) {
    Call("CreateModel",
         {{"ModelName", model},
          {"PrimaryContainer",
           {{"Image", "img"}, {"Environment", {{"SAGEMAKER_EMULATOR_UPSTREAM", url}}}}}});
    Call("CreateEndpointConfig", {{"EndpointConfigName", model},
                                  {"ProductionVariants",
                                   {{{"VariantName", "AllTraffic"},
                                     {"ModelName", model},
                                     {"InstanceType", "ml.g5.xlarge"},
                                     {"InitialInstanceCount", 1}}}}});
  }
};

TEST_F(RoutingTest, TrafficFollowsTheWeightsAndIsReproducible) {
  TwoVariants("split", 1, 3);
  const std::string first = Route("split", 400);
  const auto to_a = std::count(first.begin(), first.end(), 'A');
  EXPECT_GT(to_a, 70);  // expected 100 of 400; the draw is pseudo-random, not round-robin
  EXPECT_LT(to_a, 130);
  EXPECT_EQ(std::count(first.begin(), first.end(), 'B'), 400 - to_a);

  Reopen(0);  // same seed, same frozen clock, same invocation numbers: the same route
  EXPECT_EQ(Route("split", 400), first);
  Reopen(42);  // another seed: another route with the same proportions
  const std::string seeded = Route("split", 400);
  EXPECT_NE(seeded, first);
  EXPECT_GT(std::count(seeded.begin(), seeded.end(), 'A'), 70);
}

TEST_F(RoutingTest, AZeroWeightGetsNoTrafficButCanBeTargeted) {
  TwoVariants("canary", 1, 0);
  EXPECT_EQ(Route("canary", 50), std::string(50, 'A'));
  const auto targeted = Invoke(*router_, "canary", "x", {{"X-Amzn-SageMaker-Target-Variant", "B"}});
  EXPECT_EQ(*protocol::FindHeader(targeted.headers, "x-Amzn-Invoked-Production-Variant"), "B");

  // Moving all the weight to B through UpdateEndpointWeightsAndCapacities.
  Call("UpdateEndpointWeightsAndCapacities", {{"EndpointName", "canary"},
                                              {"DesiredWeightsAndCapacities",
                                               {{{"VariantName", "A"}, {"DesiredWeight", 0}},
                                                {{"VariantName", "B"}, {"DesiredWeight", 2}}}}});
  EXPECT_EQ(Route("canary", 20), std::string(20, 'B'));
  const json variants = Endpoint("canary")["ProductionVariants"];
  EXPECT_EQ(variants[0]["CurrentWeight"], 0);
  EXPECT_EQ(variants[1]["CurrentWeight"], 2);
}

TEST_F(RoutingTest, WithEveryWeightAtZeroOnlyTargetedRequestsAreServed) {
  TwoVariants("idle", 0, 0);
  const auto reply = Invoke(*router_, "idle", "x");
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(json::parse(reply.body)["message"],
            "Endpoint idle has no variant with a weight above zero; name one with TargetVariant.");
  EXPECT_EQ(Invoke(*router_, "idle", "x", {{"X-Amzn-SageMaker-Target-Variant", "A"}}).status, 200);
}

TEST_F(RoutingTest, AnInvocationOnARealContainerIsHandedToTheUpstreamLink) {
  ModelOn("real", "http://127.0.0.1:8080");
  Call("CreateEndpoint", {{"EndpointName", "real"}, {"EndpointConfigName", "real"}});
  // The fixture's router has no link to containers: the hand-over fails as a ModelError that
  // names the container, instead of echoing as if the container were not there.
  const auto reply = Invoke(*router_, "real", "x");
  EXPECT_EQ(reply.status, 424);
  EXPECT_EQ(json::parse(reply.body)["message"],
            "The model container for production variant AllTraffic at http://127.0.0.1:8080 did "
            "not answer (no container link).");
}

TEST_F(RoutingTest, TheHealthCheckDecidesCreationAndUpdates) {
  std::vector<ops::ContainerAddress> probed;
  std::mutex probed_mutex;  // the checks run on a thread of their own
  hosting_.probe = [&](const ops::ContainerAddress& container) {
    const std::lock_guard lock(probed_mutex);
    probed.push_back(container);
    return container.port != "9999";
  };
  Reopen(0);
  ModelOn("healthy", "http://model.local:8080/");
  ModelOn("sick", "http://[::1]:9999");
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "healthy"}});
  EXPECT_EQ(Endpoint("e")["EndpointStatus"], "InService");
  ASSERT_EQ(probed.size(), 1u);
  EXPECT_EQ(probed[0], (ops::ContainerAddress{"model.local", "8080"}));

  // An update to a container that fails its ping stays on the old config and says why.
  Call("UpdateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "sick"}});
  const json kept = Endpoint("e");
  EXPECT_EQ(kept["EndpointStatus"], "InService");
  EXPECT_EQ(kept["EndpointConfigName"], "healthy");
  EXPECT_EQ(kept["FailureReason"],
            "The primary container for production variant AllTraffic did not pass the ping "
            "health check. Please check CloudWatch logs for this endpoint.");
  EXPECT_EQ(probed.back(), (ops::ContainerAddress{"::1", "9999"}));

  Call("CreateEndpoint", {{"EndpointName", "f"}, {"EndpointConfigName", "sick"}});
  EXPECT_EQ(Endpoint("f")["EndpointStatus"], "Failed");
  // Echo models have no container to check.
  const size_t before = probed.size();
  Config("echo", "ml.g5.xlarge", 1);
  Call("CreateEndpoint", {{"EndpointName", "g"}, {"EndpointConfigName", "echo"}});
  EXPECT_EQ(Endpoint("g")["EndpointStatus"], "InService");
  EXPECT_EQ(probed.size(), before);
}

// The test capacity has one on-demand ml.p5.48xlarge in us-west-2; ml.g5.xlarge is unlimited.
TEST_F(RoutingTest, InstancePoolsAreTriedByPriorityAndDescribeShowsWhichOneServes) {
  Call("CreateModel",
       {{"ModelName", "model-v2"},
        {"PrimaryContainer",
         {{"Image", "img"}, {"Environment", {{"SAGEMAKER_EMULATOR_RESPONSE", "from v2"}}}}}});
  const json pools = {
      {{"InstanceType", "ml.g5.xlarge"}, {"Priority", 2}, {"ModelNameOverride", "model-v2"}},
      {{"InstanceType", "ml.p5.48xlarge"}, {"Priority", 1}}};
  Call("CreateEndpointConfig", {{"EndpointConfigName", "pooled"},
                                {"ProductionVariants",
                                 {{{"VariantName", "AllTraffic"},
                                   {"ModelName", "model-v1"},
                                   {"InitialInstanceCount", 1},
                                   {"InstancePools", pools}}}}});
  Call("CreateEndpoint", {{"EndpointName", "first"}, {"EndpointConfigName", "pooled"}});
  const json first = Endpoint("first")["ProductionVariants"][0];
  EXPECT_EQ(first["InstancePools"],
            json::parse(R"([{"InstanceType":"ml.p5.48xlarge","CurrentInstanceCount":1},
                            {"InstanceType":"ml.g5.xlarge","CurrentInstanceCount":0}])"));
  EXPECT_EQ(Invoke(*router_, "first", "echo me").body, "echo me");  // model-v1 on the p5 pool

  // The only on-demand p5 is taken: the second endpoint falls back to priority 2 and its model.
  Call("CreateEndpoint", {{"EndpointName", "second"}, {"EndpointConfigName", "pooled"}});
  const json second = Endpoint("second");
  EXPECT_EQ(second["EndpointStatus"], "InService");
  EXPECT_EQ(second["ProductionVariants"][0]["InstancePools"],
            json::parse(R"([{"InstanceType":"ml.p5.48xlarge","CurrentInstanceCount":0},
                            {"InstanceType":"ml.g5.xlarge","CurrentInstanceCount":1}])"));
  EXPECT_EQ(Invoke(*router_, "second", "echo me").body, "from v2");

  // Deleting the first frees the p5 for the next endpoint.
  Call("DeleteEndpoint", {{"EndpointName", "first"}});
  Call("CreateEndpoint", {{"EndpointName", "third"}, {"EndpointConfigName", "pooled"}});
  EXPECT_EQ(Endpoint("third")["ProductionVariants"][0]["InstancePools"][0]["CurrentInstanceCount"],
            1);
}

TEST_F(RoutingTest, WhenNoPoolHasTheInstancesTheEndpointFails) {
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "short"},
        {"ProductionVariants",
         {{{"VariantName", "AllTraffic"},
           {"ModelName", "model-v1"},
           {"InitialInstanceCount", 2},
           {"InstancePools", {{{"InstanceType", "ml.p5.48xlarge"}, {"Priority", 1}}}}}}}});
  Call("CreateEndpoint", {{"EndpointName", "short"}, {"EndpointConfigName", "short"}});
  const json endpoint = Endpoint("short");
  EXPECT_EQ(endpoint["EndpointStatus"], "Failed");
  EXPECT_EQ(endpoint["FailureReason"],
            "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
            "error. Please retry using a different ML instance type or after some time.");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["InstancePools"][0]["CurrentInstanceCount"], 0);
}

TEST_F(RoutingTest, InstancePoolsAreChecked) {
  auto config = [&](json variant) {
    variant["VariantName"] = "v";
    variant["ModelName"] = "model-v1";
    return Call("CreateEndpointConfig",
                {{"EndpointConfigName", "c"}, {"ProductionVariants", {variant}}}, 400)["message"];
  };
  const json g5 = {{"InstanceType", "ml.g5.xlarge"}, {"Priority", 1}};
  EXPECT_EQ(config({{"InstanceType", "ml.g5.xlarge"}, {"InstancePools", {g5}}}),
            "Variant v cannot specify both InstanceType and InstancePools.");
  EXPECT_EQ(
      config(
          {{"InstancePools", {g5}},
           {"CapacityReservationConfig",
            {{"CapacityReservationPreference", "capacity-reservations-only"},
             {"MlReservationArn", "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p"}}}}),
      "Variant v cannot combine InstancePools with a CapacityReservationConfig: instance "
      "pools use on-demand capacity.");
  EXPECT_EQ(config({{"InstancePools", {g5, {{"InstanceType", "ml.g5.xlarge"}, {"Priority", 2}}}}}),
            "The InstancePools of variant v name instance type ml.g5.xlarge twice.");
  EXPECT_EQ(config({{"InstancePools", {g5, {{"InstanceType", "ml.g5.2xlarge"}, {"Priority", 1}}}}}),
            "The InstancePools of variant v use Priority 1 twice.");
  EXPECT_EQ(
      config(
          {{"InstancePools",
            {{{"InstanceType", "ml.g5.xlarge"}, {"Priority", 1}, {"ModelNameOverride", "nope"}}}}}),
      "Could not find model \"arn:aws:sagemaker:us-west-2:123456789012:model/nope\".");
  EXPECT_THAT(config({{"InstancePools", {{{"InstanceType", "ml.g5.xlarge"}, {"Priority", 6}}}}})
                  .get<std::string>(),
              HasSubstr("Member must have value less than or equal to 5"));
}

TEST_F(RoutingTest, CreateModelRefusesAMalformedUpstream) {
  for (const char* url :
       {"https://127.0.0.1:8080", "127.0.0.1:8080", "http://h:0", "http://h:99999",
        "http://h:80/path", "http://user@h:80", "http://", "http://[::1"}) {
    EXPECT_EQ(Call("CreateModel",
                   {{"ModelName", "bad"},
                    {"PrimaryContainer",
                     {{"Image", "img"}, {"Environment", {{"SAGEMAKER_EMULATOR_UPSTREAM", url}}}}}},
                   400)["message"],
              std::string("SAGEMAKER_EMULATOR_UPSTREAM must be the URL of an inference container, "
                          "http://host:port, not '") +
                  url + "'.")
        << url;
  }
  // Inside Containers too.
  EXPECT_EQ(
      Call("CreateModel",
           {{"ModelName", "bad"},
            {"Containers",
             {{{"Image", "img"}, {"Environment", {{"SAGEMAKER_EMULATOR_UPSTREAM", "ftp://h"}}}}}}},
           400)["__type"],
      "ValidationException");
}

}  // namespace
}  // namespace smemu
