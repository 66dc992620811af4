// The endpoint lifecycle as pure functions: no store, no router. Provisioning on plans and on
// demand, waiting for a plan, updates that apply or roll back, scaling checks, expiry and deletion.
#include <gtest/gtest.h>

#include "domain/endpoint.hpp"
#include "unit/domain_fakes.hpp"

namespace smemu {
namespace {

using domain::Endpoint;
using domain::EndpointStatus;
using domain::Variant;
using testing::FakeFacts;
using testing::Hour;
using testing::kDelay;
using testing::kOwner;
using testing::kPlan;

constexpr const char* kEndpointArn = "arn:aws:sagemaker:us-west-2:111122223333:endpoint/e";

Variant OnPlan(const std::string& name, int count) {
  Variant variant;
  variant.name = name;
  variant.instance_type = "ml.p5.48xlarge";
  variant.desired_count = count;
  variant.reservation = domain::ReservationConfig{"capacity-reservations-only", kPlan};
  return variant;
}

Variant OnDemand(const std::string& name, const std::string& type, int count) {
  Variant variant;
  variant.name = name;
  variant.instance_type = type;
  variant.desired_count = count;
  return variant;
}

Variant Pools(const std::string& name, std::vector<std::string> types, int count) {
  Variant variant = OnDemand(name, "", count);
  int priority = 1;
  for (const std::string& type : types) {
    variant.instance_pools.push_back({type, priority++, "model-for-" + type});
  }
  return variant;
}

domain::EndpointSettlement SettleAt(const Endpoint& endpoint, int hour, const FakeFacts& facts,
                                    const domain::Holdings& holdings = {},
                                    const domain::HealthCheck& healthy = nullptr) {
  domain::Holdings with_own = holdings;
  with_own.Put(domain::HolderOf(endpoint));
  return domain::Settle(endpoint, Hour(hour), facts, with_own, healthy);
}

struct ProvisionCase {
  std::string name;
  FakeFacts facts;
  std::vector<Variant> variants;
  int created_hour;
  int settle_hour;
  EndpointStatus status;
  std::optional<int> changed_hour;  // when the status changed (modified)
  std::string failure_reason;
};

TEST(DomainEndpoint, ProvisioningTable) {
  const std::vector<ProvisionCase> cases = {
      {"OnAnActivePlan",
       FakeFacts().WithPlan(kPlan, 2, 0, 48),
       {OnPlan("v", 2)},
       1,
       2,
       EndpointStatus::kInService,
       1,
       ""},
      {"NotYetDue",
       FakeFacts().WithPlan(kPlan, 2, 0, 48),
       {OnPlan("v", 2)},
       1,
       1,
       EndpointStatus::kCreating,
       std::nullopt,
       ""},
      {"WaitsForAScheduledPlanAndStartsAtItsWindow",
       FakeFacts().WithPlan(kPlan, 2, 5, 48),
       {OnPlan("v", 2)},
       1,
       6,
       EndpointStatus::kInService,
       5,
       ""},
      {"StillWaitingForThePlan",
       FakeFacts().WithPlan(kPlan, 2, 5, 48),
       {OnPlan("v", 2)},
       1,
       4,
       EndpointStatus::kCreating,
       std::nullopt,
       ""},
      {"AnExpiredPlanFails",
       FakeFacts().WithPlan(kPlan, 2, 0, 1),
       {OnPlan("v", 2)},
       1,
       2,
       EndpointStatus::kFailed,
       1,
       std::string("The capacity reservation ") + kPlan + " has expired."},
      {"MoreThanThePlanHoldsFails",
       FakeFacts().WithPlan(kPlan, 2, 0, 48),
       {OnPlan("a", 1), OnPlan("b", 2)},
       1,
       2,
       EndpointStatus::kFailed,
       1,
       std::string("Requested instance count (2) exceeds available capacity (1) in training "
                   "plan ") +
           kPlan + "."},
      {"OnDemandWithinThePool",
       FakeFacts().WithOnDemand("ml.g5.xlarge", 2),
       {OnDemand("v", "ml.g5.xlarge", 2)},
       0,
       1,
       EndpointStatus::kInService,
       0,
       ""},
      {"OnDemandBeyondThePoolFails",
       FakeFacts().WithOnDemand("ml.g5.xlarge", 1),
       {OnDemand("v", "ml.g5.xlarge", 2)},
       0,
       1,
       EndpointStatus::kFailed,
       0,
       std::string(domain::kInsufficientCapacity)},
      {"AnUnlistedTypeIsUnlimited",
       FakeFacts(),
       {OnDemand("v", "ml.c5.xlarge", 50)},
       0,
       1,
       EndpointStatus::kInService,
       0,
       ""},
  };
  for (const ProvisionCase& c : cases) {
    SCOPED_TRACE(c.name);
    const Endpoint created = domain::NewEndpoint(kEndpointArn, kOwner, "config", c.variants,
                                                 Hour(c.created_hour), kDelay);
    const auto settled = SettleAt(created, c.settle_hour, c.facts);
    ASSERT_TRUE(settled.endpoint);
    EXPECT_EQ(settled.endpoint->status, c.status);
    EXPECT_EQ(settled.endpoint->failure_reason.value_or(""), c.failure_reason);
    if (c.changed_hour) {
      // Stamped with the moment the attempt fell due (the delay after creation, or the window).
      const TimePoint expected =
          c.status == EndpointStatus::kInService && Hour(*c.changed_hour) != Hour(c.created_hour)
              ? Hour(*c.changed_hour)
              : Hour(c.created_hour) + kDelay;
      EXPECT_EQ(settled.endpoint->modified, expected);
      ASSERT_EQ(settled.events.size(), 1u);
      EXPECT_EQ(settled.events[0].to, c.status);
    } else {
      EXPECT_TRUE(settled.events.empty());
      EXPECT_TRUE(settled.next_due);
    }
    if (c.status == EndpointStatus::kInService) {
      for (const Variant& variant : settled.endpoint->variants) {
        EXPECT_EQ(variant.current_count, variant.desired_count);
      }
    }
  }
}

TEST(DomainEndpoint, InstancePoolsTakeTheFirstPoolWithAllItsInstances) {
  FakeFacts facts;
  facts.WithOnDemand("ml.g6.xlarge", 1).WithOnDemand("ml.g5.xlarge", 4);
  const Endpoint created =
      domain::NewEndpoint(kEndpointArn, kOwner, "config",
                          {Pools("v", {"ml.g6.xlarge", "ml.g5.xlarge"}, 2)}, Hour(0), kDelay);
  const auto settled = SettleAt(created, 1, facts);
  ASSERT_EQ(settled.endpoint->status, EndpointStatus::kInService);
  EXPECT_EQ(settled.endpoint->variants[0].instance_type, "ml.g5.xlarge");
  EXPECT_EQ(settled.endpoint->variants[0].model_name, "model-for-ml.g5.xlarge");
  const domain::Holder holder = domain::HolderOf(*settled.endpoint);
  ASSERT_EQ(holder.holds.size(), 1u);
  EXPECT_EQ(holder.holds[0], (domain::Hold{"ml.g5.xlarge", "", 2}));
}

TEST(DomainEndpoint, AFailingHealthCheckFailsTheEndpoint) {
  const Endpoint created = domain::NewEndpoint(kEndpointArn, kOwner, "config",
                                               {OnDemand("v", "ml.c5.xlarge", 1)}, Hour(0), kDelay);
  const auto settled = SettleAt(
      created, 1, FakeFacts(), {}, [](const domain::Owner&, const std::vector<Variant>& variants) {
        return domain::HealthVerdict{domain::HealthVerdict::Kind::kFailed, variants[0].name};
      });
  EXPECT_EQ(settled.endpoint->status, EndpointStatus::kFailed);
  EXPECT_EQ(settled.endpoint->failure_reason,
            "The primary container for production variant v did not pass the ping health check. "
            "Please check CloudWatch logs for this endpoint.");
}

Endpoint InService(const std::vector<Variant>& variants, const FakeFacts& facts) {
  const Endpoint created =
      domain::NewEndpoint(kEndpointArn, kOwner, "config", variants, Hour(0), kDelay);
  auto settled = SettleAt(created, 1, facts);
  EXPECT_EQ(settled.endpoint->status, EndpointStatus::kInService);
  return *settled.endpoint;
}

TEST(DomainEndpoint, AnUpdateSwapsToTheNewConfigReusingItsOwnInstances) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 0, 48);
  Endpoint endpoint = InService({OnPlan("old", 2)}, facts);
  endpoint.pending = domain::PendingUpdate{"new-config", {OnPlan("new", 2)}};
  const Endpoint updating = domain::StartUpdate(endpoint, Hour(2), kDelay);
  EXPECT_EQ(updating.status, EndpointStatus::kUpdating);
  const auto settled = SettleAt(updating, 3, facts);
  ASSERT_EQ(settled.endpoint->status, EndpointStatus::kInService);
  EXPECT_EQ(settled.endpoint->config_name, "new-config");
  EXPECT_EQ(settled.endpoint->variants[0].name, "new");
  EXPECT_EQ(settled.endpoint->variants[0].current_count, 2);
  EXPECT_FALSE(settled.endpoint->pending);
  EXPECT_EQ(settled.endpoint->modified, Hour(2) + kDelay);
}

TEST(DomainEndpoint, AnUpdateThatDoesNotFitRollsBackToTheOldConfig) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 0, 48);
  Endpoint endpoint = InService({OnPlan("old", 2)}, facts);
  endpoint.pending = domain::PendingUpdate{"too-big", {OnPlan("new", 3)}};
  const auto settled = SettleAt(domain::StartUpdate(endpoint, Hour(2), kDelay), 3, facts);
  ASSERT_EQ(settled.endpoint->status, EndpointStatus::kInService);
  EXPECT_EQ(settled.endpoint->config_name, "config");
  EXPECT_EQ(settled.endpoint->variants[0].name, "old");
  EXPECT_EQ(settled.endpoint->failure_reason,
            std::string("Requested instance count (3) exceeds available capacity (2) in training "
                        "plan ") +
                kPlan + ".");
  ASSERT_EQ(settled.events.size(), 1u);
  EXPECT_FALSE(settled.events[0].reason.empty());
}

TEST(DomainEndpoint, ScalingIsCheckedAgainstThePlanAndThePoolAndExpiry) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 3, 0, 48).WithOnDemand("ml.g5.xlarge", 2);
  const Endpoint endpoint = InService({OnPlan("p", 2), OnDemand("d", "ml.g5.xlarge", 1)}, facts);
  domain::Holdings holdings;
  holdings.Put(domain::HolderOf(endpoint));
  holdings.Put({"arn:other",
                domain::ResourceKind::kTrainingJob,
                kOwner.region,
                {{"ml.g5.xlarge", "", 1}},
                ""});
  struct Case {
    int variant;
    int wanted;
    int hour;
    std::string code;  // empty: allowed
  };
  const std::vector<Case> cases = {
      {0, 3, 2, ""},                       // the plan's third instance
      {0, 4, 2, "ValidationException"},    // more than the plan reserves
      {1, 1, 2, ""},                       // keeps its own
      {1, 2, 2, "ResourceLimitExceeded"},  // the pool's other instance is held by a job
      {0, 1, 49, "ValidationException"},   // the plan has expired
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::to_string(c.variant) + " to " + std::to_string(c.wanted));
    const auto checked = domain::CheckScale(endpoint, endpoint.variants[c.variant], c.wanted,
                                            Hour(c.hour), facts, holdings);
    EXPECT_EQ(checked ? "" : std::string(domain::WireName(checked.error().code)), c.code);
  }
}

TEST(DomainEndpoint, ScalingAppliesWhenTheUpdateFallsDue) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 3, 0, 48);
  Endpoint endpoint = InService({OnPlan("p", 2)}, facts);
  endpoint.variants[0].desired_count = 3;
  endpoint.variants[0].desired_weight = 0.5;
  const Endpoint updating = domain::StartUpdate(endpoint, Hour(2), kDelay);
  // A serving endpoint that is scaling holds its new count from the moment it asked for it.
  EXPECT_EQ(domain::HolderOf(updating).holds[0].count, 3);
  const auto settled = SettleAt(updating, 3, facts);
  EXPECT_EQ(settled.endpoint->variants[0].current_count, 3);
  EXPECT_EQ(settled.endpoint->variants[0].weight, 0.5);
  EXPECT_FALSE(settled.endpoint->variants[0].desired_weight);
}

TEST(DomainEndpoint, DeletionReleasesAtOnceAndIsGoneAfterTheDelay) {
  FakeFacts facts;
  facts.WithPlan(kPlan, 2, 0, 48);
  const Endpoint endpoint = InService({OnPlan("p", 2)}, facts);
  auto deleting = domain::StartDelete(endpoint, Hour(2), kDelay);
  ASSERT_TRUE(deleting);
  EXPECT_TRUE(domain::HolderOf(*deleting).holds.empty());
  EXPECT_TRUE(SettleAt(*deleting, 2, facts).endpoint);
  EXPECT_FALSE(SettleAt(*deleting, 3, facts).endpoint);
  // Deleting again reads as a missing endpoint; a Creating one cannot be deleted yet.
  EXPECT_EQ(domain::StartDelete(*deleting, Hour(2), kDelay).error().message,
            std::string("Could not find endpoint \"") + kEndpointArn + "\".");
  const Endpoint creating =
      domain::NewEndpoint(kEndpointArn, kOwner, "c", {OnPlan("p", 1)}, Hour(0), kDelay);
  EXPECT_EQ(domain::StartDelete(creating, Hour(0), kDelay).error().message,
            std::string("Cannot update in-progress endpoint \"") + kEndpointArn + "\".");
}

TEST(DomainHoldings, CountsPerPlanAndPoolFollowPutAndRemove) {
  domain::Holdings holdings;
  holdings.Put({"a", domain::ResourceKind::kEndpoint, "r", {{"t", "", 2}, {"t", kPlan, 1}}, ""});
  holdings.Put({"b", domain::ResourceKind::kTrainingJob, "r", {{"t", kPlan, 3}}, ""});
  EXPECT_EQ(holdings.OnPlan(kPlan), 4);
  EXPECT_EQ(holdings.OnPlan(kPlan, "b"), 1);
  EXPECT_EQ(holdings.OnDemand("r", "t"), 2);
  EXPECT_EQ(holdings.OnDemand("r", "t", "a"), 0);
  EXPECT_EQ(holdings.OnDemand("other-region", "t"), 0);
  holdings.Put({"a", domain::ResourceKind::kEndpoint, "r", {{"t", "", 1}}, ""});
  EXPECT_EQ(holdings.OnPlan(kPlan), 3);
  EXPECT_EQ(holdings.OnDemand("r", "t"), 1);
  holdings.Put({"b", domain::ResourceKind::kTrainingJob, "r", {}, ""});  // holds nothing: removed
  EXPECT_EQ(holdings.OnPlan(kPlan), 0);
  EXPECT_EQ(holdings.Find("b"), nullptr);
  holdings.Remove("a");
  EXPECT_EQ(holdings.size(), 0u);
  EXPECT_EQ(holdings.OnDemand("r", "t"), 0);
}

}  // namespace
}  // namespace smemu
