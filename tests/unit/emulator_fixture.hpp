// A Router over an Emulator with a small capacity configuration, a frozen clock at kStart and an
// in-memory (or file) store: the operation layer end to end without sockets. The router checks
// every answer against the service model (RouterConfig::check_responses), so a departure from it
// fails the test as a 500 InternalFailure naming it.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "apimodel/embedded_models.hpp"
#include "apimodel/validator.hpp"
#include "config/capacity_config.hpp"
#include "ops/emulator.hpp"
#include "protocol/router.hpp"
#include "store/state_store.hpp"
#include "unit/test_values.hpp"

namespace smemu::testing {

using nlohmann::json;

inline const TimePoint kStart{Millis{1800835200000}};  // 2027-01-25T00:00:00Z
inline constexpr long long kStartSeconds = 1800835200;
inline constexpr long long kDay = 86400;
// "Training Plans always end at 11:30 AM UTC on the final day of the reservation": plans of whole
// days start at 11:30 UTC too. The first plan day after kStart starts here.
inline constexpr long long kPlanDayOffset = 11 * 3600 + 1800;
inline constexpr long long kPlanStartSeconds = kStartSeconds + kPlanDayOffset;

inline const char* kCapacity = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 2, "on_demand": 1}},
    "us-west-2b": {"ml.p5.48xlarge": {"reservable": 1, "on_demand": 0}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}})";

inline constexpr const char* kRole = "arn:aws:iam::123456789012:role/r";

// The account and region kAuth signs for.
inline constexpr const char* kAccount = "123456789012";
inline constexpr const char* kRegion = "us-west-2";
inline const std::string kAuth =
    "AWS4-HMAC-SHA256 Credential=123456789012/20270125/us-west-2/sagemaker/aws4_request, "
    "SignedHeaders=host, Signature=0";
// Another account's signature, for the tests that one account cannot see another's resources.
inline const std::string kOtherAuth =
    "AWS4-HMAC-SHA256 Credential=210987654321/20270125/us-west-2/sagemaker/aws4_request, "
    "SignedHeaders=host, Signature=0";

class EmulatorFixture : public ::testing::Test {
 protected:
  explicit EmulatorFixture(const std::string& db = ":memory:") : store_(db) { Open(); }
  // Opens nothing yet: for a test that opens a stored database with its own clock.
  struct Unopened {};
  EmulatorFixture(const std::string& db, Unopened) : store_(db) {}

  void Open() {
    emulator_ = std::make_unique<ops::Emulator>(
        store_, base_clock_, ops::ClockStart{kStart, true},
        config::ParseCapacityConfig(capacity_, "test capacity"), hosting_);
    router_ = std::make_unique<protocol::Router>(*emulator_, apimodel::ControlPlaneModel(),
                                                 apimodel::RuntimeModel(), router_config_);
  }

  json Call(const std::string& operation, const json& input, int expected_status = 200) {
    const protocol::HttpResponse response =
        router_->Handle({"POST",
                         "/",
                         {{"X-Amz-Target", "SageMaker." + operation}, {"Authorization", kAuth}},
                         input.dump()});
    const json body = json::parse(response.body);
    EXPECT_EQ(response.status, expected_status) << operation << " " << response.body;
    if (response.status == 200) {  // Delete* operations have no output shape
      const auto* spec = apimodel::ControlPlaneModel().FindOperation(operation);
      if (spec->output == nullptr) return body;
      EXPECT_THAT(apimodel::CheckResponse(*spec->output, body), ::testing::IsEmpty())
          << operation << " answered " << response.body;
    }
    return body;
  }

  json Admin(const std::string& method, const std::string& target, const std::string& body = "",
             protocol::Headers headers = {}) {
    return json::parse(router_->Handle({method, target, std::move(headers), body}).body);
  }

  void Advance(long long seconds) {
    ASSERT_TRUE(emulator_->ChangeClock({std::nullopt, Millis{seconds * 1000}, std::nullopt}).ok());
  }

  // Buys `offering` (an element of TrainingPlanOfferings) as plan `name`, then moves the clock on
  // to kPlanStartSeconds, 11:30 UTC, when plans of the first day start: what a test does next
  // happens from their first minute. Returns the plan's ARN.
  std::string BuyThenStartTheDay(const std::string& name, const json& offering) {
    const std::string arn =
        Call("CreateTrainingPlan",
             {{"TrainingPlanName", name},
              {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
    AdvanceTo(kPlanStartSeconds);
    return arn;
  }

  // Moves the clock on to `seconds` since the epoch, unless it is there or later already.
  void AdvanceTo(long long seconds) {
    const auto state = emulator_->ChangeClock({});
    ASSERT_TRUE(state.ok());
    const TimePoint to{Millis{seconds * 1000}};
    if (state->now < to) {
      ASSERT_TRUE(emulator_->ChangeClock({to, std::nullopt, std::nullopt}).ok());
    }
  }

  // A production variant of `count` instances on the training plan `arn`, reserved capacity only.
  static json ReservedVariant(const std::string& arn, int count,
                              const std::string& type = "ml.p5.48xlarge",
                              const std::string& model = "model-v1") {
    return {{"VariantName", "AllTraffic"},
            {"ModelName", model},
            {"InstanceType", type},
            {"InitialInstanceCount", count},
            {"CapacityReservationConfig",
             {{"CapacityReservationPreference", "capacity-reservations-only"},
              {"MlReservationArn", arn}}}};
  }

  // Offerings of whole plan days from `after`: by default from the first plan day, 11:30 UTC.
  json Search(long long days, int count = 1, long long after = kPlanStartSeconds,
              long long before = kPlanStartSeconds + 28 * kDay) {
    return Call("SearchTrainingPlanOfferings", {{"InstanceType", "ml.p5.48xlarge"},
                                                {"InstanceCount", count},
                                                {"DurationHours", days * 24},
                                                {"StartTimeAfter", after},
                                                {"EndTimeBefore", before},
                                                {"TargetResources", {"endpoint"}}});
  }

  ManualClock base_clock_{TimePoint{Millis{0}}};
  // Set before Open(): provisioning delay, container probe. Purchases are paid at once here, so
  // that a rule's test reads its own instants; the tests of the payment set a delay, and every
  // suite through the server (e2e, CLI, SDKs) runs with the default one (kDefaultPlanPaymentDelay).
  ops::HostingOptions hosting_ = [] {
    ops::HostingOptions hosting;
    hosting.plan_payment_delay = Millis{0};
    return hosting;
  }();
  std::string capacity_ = kCapacity;  // set before Open() for other pools
  protocol::RouterConfig router_config_ = [] {
    protocol::RouterConfig config;
    config.check_responses = true;
    return config;
  }();
  store::StateStore store_;
  std::unique_ptr<ops::Emulator> emulator_;
  std::unique_ptr<protocol::Router> router_;
};

}  // namespace smemu::testing
