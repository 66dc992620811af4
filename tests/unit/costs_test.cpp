// The cost ledger: its arithmetic to the cent (domain), then GET /_emulator/costs, the report and
// the metrics through the router, with the figures worked out by hand in each test.
#include "domain/costs.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants
using domain::Cents;
using domain::CostInputs;
using domain::HeldSpan;
using domain::PlanBill;
using ::testing::HasSubstr;

constexpr long long kHourMs = 3'600'000;
// kP5: 98.32 on demand, 55.00 on a plan; kG5: 7.09 on demand.

TimePoint Hours(double hours) {
  return kStart + Millis{static_cast<long long>(hours * static_cast<double>(kHourMs))};
}

// ---- Domain: rounding -------------------------------------------------------------------------

TEST(CostArithmetic, OnDemandCostRoundsEachLineOnceHalfUp) {
  EXPECT_EQ(domain::OnDemandCost(98.32, 3 * kHourMs / 2), 14748);  // 147.48
  // 1.234 x 2.5 = 3.085 exactly: half up gives 3.09 (a double product would give 3.08).
  EXPECT_EQ(domain::OnDemandCost(1.234, 5 * kHourMs / 2), 309);
  EXPECT_EQ(domain::OnDemandCost(7.09, 4 * 10 * kHourMs), 28360);  // 4 instances x 10 h
  EXPECT_EQ(domain::OnDemandCost(0.1, 1), 0);                      // a millisecond
  EXPECT_EQ(domain::OnDemandCost(0, kHourMs), 0);
  // A year of 1,000 instances does not overflow: 98.32 x 8,760,000 instance-hours.
  EXPECT_EQ(domain::OnDemandCost(98.32, 1000 * 8760 * kHourMs), 86'128'320'000);
}

TEST(CostArithmetic, ShareOfAFeeRoundsHalfUp) {
  EXPECT_EQ(domain::ShareOf(1'848'000, 1, 7), 264'000);  // a day of a week's 18,480.00
  EXPECT_EQ(domain::ShareOf(10'000, 1, 3), 3'333);
  EXPECT_EQ(domain::ShareOf(20'000, 1, 3), 6'667);
  EXPECT_EQ(domain::ShareOf(10'000, 0, 3), 0);
  EXPECT_EQ(domain::ShareOf(10'000, 1, 0), 0);
}

TEST(CostArithmetic, FeesParseExactlyToTheCent) {
  EXPECT_EQ(domain::ParseCents("1234.50"), 123450);
  EXPECT_EQ(domain::ParseCents("18480.00"), 1848000);
  EXPECT_EQ(domain::ParseCents("7"), 700);
  EXPECT_EQ(domain::ParseCents("0.5"), 50);
  for (const char* bad : {"", "-1", "1.234", "abc", "1.2.3", ".5"}) {
    EXPECT_EQ(domain::ParseCents(bad), std::nullopt) << bad;
  }
}

// ---- Domain: the ledger -----------------------------------------------------------------------

// A week of 2 ml.p5.48xlarge from kStart for 18,480.00 (168 h x 2 x 55.00).
PlanBill WeekPlan() {
  PlanBill plan;
  plan.arn = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/week";
  plan.reserved_capacity_arns = {"arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/rc"};
  plan.name = "week";
  plan.account = kAccount;
  plan.pool = {kRegion, "us-west-2a", kP5};
  plan.instance_count = 2;
  plan.window = {kStart, Hours(168)};
  plan.blocks = {plan.window};
  plan.fee = 1'848'000;
  return plan;
}

HeldSpan Span(const std::string& name, const std::string& plan_arn, int count, double from,
              std::optional<double> to, const std::string& type = kP5,
              const std::string& kind = "endpoint") {
  return {"arn:aws:sagemaker:us-west-2:123456789012:" + kind + "/" + name,
          name,
          kind,
          kAccount,
          kRegion,
          type,
          plan_arn,
          count,
          Hours(from),
          to ? std::optional<TimePoint>(Hours(*to)) : std::nullopt};
}

CostInputs Inputs() {
  CostInputs inputs;
  inputs.plans = {WeekPlan()};
  inputs.prices = {{kP5, {98.32, 55.0}}, {kG5, {7.09, 5.0}}};
  return inputs;
}

TEST(CostLedger, APlanIsPaidWholeAndUsedAsHeldUpToNow) {
  CostInputs inputs = Inputs();
  const std::string plan = WeekPlan().arn;
  // 2 instances for 48 h, then 1 (named by the reserved capacity's ARN) still held at now (72 h).
  inputs.held = {Span("ep", plan, 2, 0, 48), Span("ep", plan, 1, 48, std::nullopt),
                 Span("od", "", 1, 10, 11.5)};
  const auto ledger = domain::ComputeCosts(inputs, kStart, Hours(168), Hours(72));
  ASSERT_EQ(ledger.plans.size(), 1u);
  const domain::PlanCost& cost = ledger.plans[0];
  EXPECT_EQ(cost.fee_in_range, 1'848'000);
  EXPECT_EQ(cost.reserved, 336 * kHourMs);
  EXPECT_EQ(cost.used, 120 * kHourMs);  // 2 x 48 + 1 x 24
  EXPECT_EQ(cost.used_by.at("endpoint"), 120 * kHourMs);
  EXPECT_EQ(cost.on_demand_equivalent, 1'179'840);  // 120 x 98.32
  EXPECT_EQ(cost.use,
            (std::vector<domain::UseStep>{{kStart, Hours(48), 2}, {Hours(48), Hours(72), 1}}));
  ASSERT_EQ(ledger.holders.size(), 2u);
  EXPECT_EQ(ledger.holders[0].name, "ep");
  EXPECT_EQ(ledger.holders[0].cost, std::nullopt);  // paid by the plan's fee
  EXPECT_EQ(ledger.holders[1].name, "od");
  EXPECT_EQ(ledger.holders[1].cost, 14748);  // 1.5 h x 98.32
  EXPECT_EQ(ledger.overall.plan_fees, 1'848'000);
  EXPECT_EQ(ledger.overall.on_demand_cost, 14748);
  EXPECT_EQ(ledger.overall.total(), 1'862'748);
  EXPECT_EQ(ledger.overall.on_demand_equivalent, 1'179'840 + 14748);
  EXPECT_EQ(ledger.overall.savings(), 1'194'588 - 1'862'748);
  EXPECT_EQ(ledger.by_instance_type.at(kP5).total(), 1'862'748);
  EXPECT_EQ(ledger.by_account.at(kAccount).reserved, 336 * kHourMs);
}

TEST(CostLedger, ARangeTakesItsShareOfTheFeeAndOnlyItsUse) {
  CostInputs inputs = Inputs();
  inputs.held = {Span("ep", WeekPlan().arn, 2, 0, std::nullopt)};
  const auto ledger = domain::ComputeCosts(inputs, Hours(24), Hours(48), Hours(100));
  ASSERT_EQ(ledger.plans.size(), 1u);
  EXPECT_EQ(ledger.plans[0].fee_in_range, 264'000);  // a seventh of 18,480.00
  EXPECT_EQ(ledger.plans[0].reserved, 48 * kHourMs);
  EXPECT_EQ(ledger.plans[0].used, 48 * kHourMs);
  ASSERT_EQ(ledger.holders.size(), 1u);
  EXPECT_EQ(ledger.holders[0].use.front().from, Hours(24));
  EXPECT_EQ(ledger.holders[0].use.back().to, Hours(48));
}

// A plan of two reserved capacities (hours 0-72 and 120-168 of the week) pays for its blocks: a
// range over the gap takes none of the fee and reserves nothing.
TEST(CostLedger, APlanOfTwoBlocksIsPaidForItsBlocksNotItsGap) {
  CostInputs inputs = Inputs();
  PlanBill split = WeekPlan();
  split.blocks = {{kStart, Hours(72)}, {Hours(120), Hours(168)}};
  split.fee = 1'320'000;  // 120 h x 2 x 55.00
  inputs.plans = {split};
  auto ledger = domain::ComputeCosts(inputs, kStart, Hours(168), Hours(168));
  ASSERT_EQ(ledger.plans.size(), 1u);
  EXPECT_EQ(ledger.plans[0].fee_in_range, 1'320'000);
  EXPECT_EQ(ledger.plans[0].reserved, 240 * kHourMs);  // 2 x 120 h
  ledger = domain::ComputeCosts(inputs, Hours(72), Hours(120), Hours(168));
  ASSERT_EQ(ledger.plans.size(), 1u);
  EXPECT_EQ(ledger.plans[0].fee_in_range, 0);
  EXPECT_EQ(ledger.plans[0].reserved, 0);
  ledger = domain::ComputeCosts(inputs, Hours(60), Hours(132), Hours(168));
  EXPECT_EQ(ledger.plans[0].fee_in_range, 264'000);  // 24 h of the 120: a fifth
}

TEST(CostLedger, UseOnAPlanCountsOnlyInsideItsWindowAndNothingCountsAfterNow) {
  CostInputs inputs = Inputs();
  // Held from a day before the window to a day after it (an endpoint left on an expired plan).
  inputs.held = {Span("ep", WeekPlan().arn, 2, -24, 192)};
  auto ledger = domain::ComputeCosts(inputs, Hours(-48), Hours(240), Hours(240));
  EXPECT_EQ(ledger.plans[0].used, 336 * kHourMs);
  EXPECT_EQ(ledger.overall.plan_used, ledger.overall.reserved);
  // The future: reserved and paid, not used.
  ledger = domain::ComputeCosts(inputs, kStart, Hours(168), Hours(12));
  EXPECT_EQ(ledger.plans[0].used, 24 * kHourMs);
  EXPECT_EQ(ledger.plans[0].fee_in_range, 1'848'000);
}

TEST(CostLedger, APlanOutsideTheRangeAndEmptyStretchesAreLeftOut) {
  CostInputs inputs = Inputs();
  inputs.held = {Span("empty", "", 1, 5, 5), Span("zero", "", 0, 1, 2)};
  const auto ledger = domain::ComputeCosts(inputs, Hours(200), Hours(300), Hours(300));
  EXPECT_TRUE(ledger.plans.empty());
  EXPECT_TRUE(ledger.holders.empty());
  EXPECT_EQ(ledger.overall.total(), 0);
}

TEST(CostLedger, APreferenceJobShowsItsChoiceBesideItsFirstPreference) {
  CostInputs inputs = Inputs();
  const std::string plan = WeekPlan().arn;
  // First choice: 2 p5 on the plan; it ran on 4 g5 on demand for 10 h.
  inputs.preference_jobs = {{"arn:job", "job", "training-job", kAccount, kRegion,
                             domain::JobOption{kP5, 2, plan}, domain::JobOption{kG5, 4, ""},
                             Hours(1), Hours(11)}};
  auto ledger = domain::ComputeCosts(inputs, kStart, Hours(168), Hours(168));
  ASSERT_EQ(ledger.preference_jobs.size(), 1u);
  EXPECT_EQ(ledger.preference_jobs[0].ran, Millis{10 * kHourMs});
  EXPECT_EQ(ledger.preference_jobs[0].chosen, 28360);  // 4 x 10 h x 7.09
  // 20 of the plan's 336 instance-hours: 18,480.00 x 20 / 336 = 1,100.00.
  EXPECT_EQ(ledger.preference_jobs[0].first, 110'000);
  // A first choice on demand costs its own type's price.
  inputs.preference_jobs[0].first = {kP5, 2, ""};
  ledger = domain::ComputeCosts(inputs, kStart, Hours(168), Hours(168));
  EXPECT_EQ(ledger.preference_jobs[0].first, 196'640);  // 2 x 10 h x 98.32
  // Still running at now: counted up to now.
  inputs.preference_jobs[0].end.reset();
  ledger = domain::ComputeCosts(inputs, kStart, Hours(168), Hours(6));
  EXPECT_EQ(ledger.preference_jobs[0].ran, Millis{5 * kHourMs});
}

// ---- Through the router -----------------------------------------------------------------------

class CostsTest : public EmulatorFixture {
 protected:
  explicit CostsTest(const std::string& db = ":memory:") : EmulatorFixture(db) { Init(); }

  void Init() {
    capacity_ = R"({
      "regions": {"us-west-2": {
        "us-west-2a": {"ml.p5.48xlarge": {"reservable": 2, "on_demand": 1},
                       "ml.g5.12xlarge": {"reservable": 0, "on_demand": 8}}}},
      "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0},
                 "ml.g5.12xlarge": {"on_demand_hourly": 7.09, "plan_hourly": 5.0}}})";
    Open();
    Call("CreateModel", {{"ModelName", "model"}});
  }

  protocol::HttpResponse Raw(const std::string& target, protocol::Headers headers = {}) {
    return router_->Handle({"GET", target, std::move(headers), ""});
  }
  json Costs(const std::string& query = "") {
    const auto response = Raw("/_emulator/costs" + query);
    EXPECT_EQ(response.status, 200) << response.body;
    return json::parse(response.body);
  }

  std::string BuyPlan(const std::string& name, int count, int days, json targets) {
    const json offering =
        Call("SearchTrainingPlanOfferings",
             {{"InstanceType", kP5},
              {"InstanceCount", count},
              {"DurationHours", days * 24},
              {"StartTimeAfter", kPlanStartSeconds},
              {"TargetResources", std::move(targets)}})["TrainingPlanOfferings"][0];
    return BuyThenStartTheDay(name, offering);
  }

  void Endpoint(const std::string& name, const std::string& type, int count,
                const std::string& plan = "") {
    json variant = {{"VariantName", "AllTraffic"},
                    {"ModelName", "model"},
                    {"InstanceType", type},
                    {"InitialInstanceCount", count}};
    if (!plan.empty()) {
      variant["CapacityReservationConfig"] = {
          {"CapacityReservationPreference", "capacity-reservations-only"},
          {"MlReservationArn", plan}};
    }
    Call("CreateEndpointConfig", {{"EndpointConfigName", name}, {"ProductionVariants", {variant}}});
    Call("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
  }

  static json TrainingJob(const std::string& name, json resources, int run_seconds) {
    return {{"TrainingJobName", name},
            {"RoleArn", "arn:aws:iam::123456789012:role/r"},
            {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
            {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
            {"ResourceConfig", std::move(resources)},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 86400}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
  }

  static const json* Line(const json& lines, const std::string& key, const std::string& value) {
    for (const json& line : lines) {
      if (line.value(key, "") == value) return &line;
    }
    return nullptr;
  }
};

TEST_F(CostsTest, AnEndpointOnAPlanUsesItAndThePlanIsPaidWhole) {
  const std::string plan = BuyPlan("week", 2, 7, {"endpoint"});
  const json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "week"}});
  EXPECT_EQ(described["UpfrontFee"], "18480.00");
  Endpoint("ep", kP5, 2, plan);
  Advance(24 * 3600);
  json costs = Costs();
  EXPECT_EQ(costs["currency"], "USD");
  EXPECT_EQ(costs["now"], "2027-01-26T11:30:00Z");
  // By default the ledger runs to the end of the plan: its fee is paid in full.
  EXPECT_EQ(costs["from"], "2027-01-25T11:30:00Z");
  EXPECT_EQ(costs["to"], "2027-02-01T11:30:00Z");
  ASSERT_EQ(costs["plans"].size(), 1u);
  const json& line = costs["plans"][0];
  EXPECT_EQ(line["training_plan_arn"], plan);
  EXPECT_EQ(line["status"], "Active");
  EXPECT_EQ(line["upfront_fee"], 18480.0);
  EXPECT_EQ(line["fee_in_range"], 18480.0);
  EXPECT_EQ(line["reserved_instance_hours"], 336.0);
  EXPECT_EQ(line["used_instance_hours"], 48.0);
  EXPECT_EQ(line["used_by"]["endpoint"], 48.0);
  EXPECT_EQ(line["used_by"]["training-job"], 0.0);
  EXPECT_EQ(line["utilization"], 0.1429);
  EXPECT_EQ(line["on_demand_equivalent"], 4719.36);  // 48 x 98.32
  EXPECT_EQ(line["use"], json::parse(R"([{"from":"2027-01-25T11:30:00Z",
      "to":"2027-01-26T11:30:00Z","instances":2}])"));
  ASSERT_EQ(costs["holders"].size(), 1u);
  EXPECT_EQ(costs["holders"][0]["name"], "ep");
  EXPECT_EQ(costs["holders"][0]["kind"], "endpoint");
  EXPECT_EQ(costs["holders"][0]["training_plan_arn"], plan);
  EXPECT_TRUE(costs["holders"][0]["cost"].is_null());
  const json& overall = costs["totals"]["overall"];
  EXPECT_EQ(overall["total_cost"], 18480.0);
  EXPECT_EQ(overall["savings"], 4719.36 - 18480.0);

  // Past the plan's end the endpoint still holds its instances, but the plan no longer has them:
  // use stops at the window's end.
  Advance(10 * 24 * 3600);
  costs = Costs();
  EXPECT_EQ(costs["plans"][0]["status"], "Expired");
  EXPECT_EQ(costs["plans"][0]["used_instance_hours"], 336.0);
  EXPECT_EQ(costs["plans"][0]["utilization"], 1.0);
  EXPECT_EQ(costs["to"], "2027-02-05T11:30:00Z");  // now is later than the plan's end
}

TEST_F(CostsTest, OnDemandEndpointsCostTheirHoursUntilDeleted) {
  Endpoint("od", kG5, 3);
  Advance(90 * 60);
  json costs = Costs();
  const json* line = Line(costs["holders"], "name", "od");
  ASSERT_NE(line, nullptr) << costs.dump();
  EXPECT_EQ((*line)["instance_hours"], 4.5);
  EXPECT_EQ((*line)["hourly_price"], 7.09);
  EXPECT_EQ((*line)["cost"], 31.91);  // 4.5 x 7.09 = 31.905, half up
  EXPECT_TRUE((*line)["training_plan_arn"].is_null());
  // Scaled down to 1 for an hour, then deleted: nothing more accrues.
  Call("UpdateEndpointWeightsAndCapacities",
       {{"EndpointName", "od"},
        {"DesiredWeightsAndCapacities",
         {{{"VariantName", "AllTraffic"}, {"DesiredInstanceCount", 1}}}}});
  Advance(3600);
  Call("DeleteEndpoint", {{"EndpointName", "od"}});
  Advance(5 * 3600);
  costs = Costs();
  line = Line(costs["holders"], "name", "od");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ((*line)["instance_hours"], 5.5);
  EXPECT_EQ((*line)["cost"], 39.0);  // 5.5 x 7.09 = 38.995, half up
  EXPECT_EQ((*line)["use"].size(), 2u);
  EXPECT_EQ(costs["totals"]["overall"]["on_demand_cost"], 39.0);
  EXPECT_EQ(costs["totals"]["overall"]["on_demand_equivalent"], 39.0);
  EXPECT_TRUE(costs["totals"]["overall"]["utilization"].is_null());
}

TEST_F(CostsTest, AJobThatStartedAndEndedBetweenTwoRequestsIsCountedAtItsOwnTimes) {
  // One on-demand p5: the second job waits for the first, and both run while nobody asks.
  Call("CreateTrainingJob",
       TrainingJob("first", {{"InstanceType", kP5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}},
                   3600));
  Call("CreateTrainingJob",
       TrainingJob("second", {{"InstanceType", kP5}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}},
                   1800));
  Advance(10 * 3600);
  const json costs = Costs();
  const json* second = Line(costs["holders"], "name", "second");
  ASSERT_NE(second, nullptr) << costs.dump();
  EXPECT_EQ((*second)["kind"], "training-job");
  EXPECT_EQ((*second)["use"], json::parse(R"([{"from":"2027-01-25T01:00:00Z",
      "to":"2027-01-25T01:30:00Z","instances":1}])"));
  EXPECT_EQ((*second)["cost"], 49.16);  // half an hour at 98.32
  EXPECT_EQ(costs["totals"]["overall"]["on_demand_cost"], 98.32 + 49.16);
  EXPECT_EQ(costs["totals"]["overall"]["on_demand_instance_hours"], 1.5);
}

TEST_F(CostsTest, APreferenceJobThatFellBackShowsWhatItsFirstChoiceWouldHaveCost) {
  // The only on-demand p5 is taken, so the job runs on its second preference: 4 g5.
  Endpoint("busy", kP5, 1);
  json resources = {{"InstancePreferences",
                     {{{"InstanceType", kP5}, {"InstanceCount", 1}},
                      {{"InstanceType", kG5}, {"InstanceCount", 4}}}},
                    {"VolumeSizeInGB", 50}};
  Call("CreateTrainingJob", TrainingJob("fallback", resources, 7200));
  Advance(3 * 3600);
  const json costs = Costs();
  ASSERT_EQ(costs["preference_jobs"].size(), 1u) << costs.dump();
  const json& job = costs["preference_jobs"][0];
  EXPECT_EQ(job["name"], "fallback");
  EXPECT_EQ(job["hours"], 2.0);
  EXPECT_EQ(job["chosen"]["instance_type"], kG5);
  EXPECT_EQ(job["chosen"]["instance_count"], 4);
  EXPECT_EQ(job["chosen"]["cost"], 56.72);  // 4 x 2 h x 7.09
  EXPECT_EQ(job["first_choice"]["instance_type"], kP5);
  EXPECT_EQ(job["first_choice"]["cost"], 196.64);  // 1 x 2 h x 98.32
  EXPECT_EQ(job["difference"], 56.72 - 196.64);
}

TEST_F(CostsTest, AClusterOnAPlanUsesItAndItsOnDemandGroupCosts) {
  const std::string plan = BuyPlan("hyperpod", 2, 7, {"hyperpod-cluster"});
  const auto group = [](const std::string& name, const std::string& type, int count) {
    return json{
        {"InstanceGroupName", name},
        {"InstanceType", type},
        {"InstanceCount", count},
        {"ExecutionRole", "arn:aws:iam::123456789012:role/hyperpod"},
        {"LifeCycleConfig", {{"SourceS3Uri", "s3://bucket/lc"}, {"OnCreate", "on_create.sh"}}}};
  };
  json workers = group("workers", kP5, 2);
  workers["TrainingPlanArn"] = plan;
  Call("CreateCluster",
       {{"ClusterName", "trainers"}, {"InstanceGroups", {workers, group("head", kG5, 1)}}});
  Advance(10 * 3600);
  const json costs = Costs();
  ASSERT_EQ(costs["plans"].size(), 1u);
  EXPECT_EQ(costs["plans"][0]["used_by"]["cluster"], 20.0);  // 2 nodes x 10 h
  EXPECT_EQ(costs["plans"][0]["used_instance_hours"], 20.0);
  const json* head = nullptr;
  for (const json& line : costs["holders"]) {
    if (line["instance_type"] == kG5) head = &line;
  }
  ASSERT_NE(head, nullptr) << costs.dump();
  EXPECT_EQ((*head)["kind"], "cluster");
  EXPECT_EQ((*head)["name"], "trainers");
  EXPECT_EQ((*head)["cost"], 70.9);  // 10 h x 7.09
}

TEST_F(CostsTest, APlanNamedInAnotherLetterCaseIsThePlan) {
  const std::string plan = BuyPlan("week", 2, 7, {"endpoint"});
  std::string shouted = plan;
  shouted.replace(shouted.rfind('/') + 1, std::string::npos, "WEEK");
  Endpoint("ep", kP5, 2, shouted);
  Advance(3600);
  const json costs = Costs();
  EXPECT_EQ(costs["plans"][0]["used_instance_hours"], 2.0);
  ASSERT_EQ(costs["holders"].size(), 1u);
  EXPECT_EQ(costs["holders"][0]["training_plan_arn"], plan);  // the plan's own ARN
  // The plan's instances are taken whatever case names them.
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "week"}})["InUseInstanceCount"], 2);
}

TEST_F(CostsTest, AClockSetBackCountsWhatHappensAgainOnce) {
  Endpoint("ep", kG5, 1);
  Advance(3600);
  Call("DeleteEndpoint", {{"EndpointName", "ep"}});
  Call("DeleteEndpointConfig", {{"EndpointConfigName", "ep"}});
  Call("DeleteModel", {{"ModelName", "model"}});
  // With no resource left the clock may go back; the hour it held is history to forget.
  ASSERT_TRUE(
      emulator_->ChangeClock({kStart - Millis{kDay * 1000}, std::nullopt, std::nullopt}).ok());
  Call("CreateModel", {{"ModelName", "model"}});
  Endpoint("ep", kG5, 1);
  Advance(kDay + 2 * 3600);
  const json costs = Costs();
  ASSERT_EQ(costs["holders"].size(), 1u) << costs.dump();
  EXPECT_EQ(costs["holders"][0]["instance_hours"], 26.0);
  EXPECT_EQ(costs["holders"][0]["use"].size(), 1u);
}

TEST_F(CostsTest, ARangeAndAnAccountNarrowTheLedger) {
  const std::string plan = BuyPlan("week", 2, 7, {"endpoint"});
  Endpoint("ep", kP5, 2, plan);
  Advance(3 * 24 * 3600);
  json costs = Costs("?from=2027-01-26T11:30:00Z&to=2027-01-27T11:30:00Z");
  EXPECT_EQ(costs["from"], "2027-01-26T11:30:00Z");
  EXPECT_EQ(costs["plans"][0]["fee_in_range"], 2640.0);  // a seventh of 18,480.00
  EXPECT_EQ(costs["plans"][0]["used_instance_hours"], 48.0);
  EXPECT_EQ(costs["holders"][0]["instance_hours"], 48.0);
  // Another account has nothing.
  costs = Costs("?account=210987654321");
  EXPECT_EQ(costs["account"], "210987654321");
  EXPECT_TRUE(costs["plans"].empty());
  EXPECT_TRUE(costs["holders"].empty());
  EXPECT_EQ(Costs("?account=123456789012")["plans"].size(), 1u);
}

TEST_F(CostsTest, BadQueriesAreRefusedWithAReason) {
  const auto expect_refusal = [this](const std::string& query, const std::string& message) {
    const auto response = Raw("/_emulator/costs" + query);
    EXPECT_EQ(response.status, 400) << query;
    const json body = json::parse(response.body);
    EXPECT_EQ(body["__type"], "ValidationException") << query;
    EXPECT_THAT(body.value("message", ""), HasSubstr(message)) << query;
  };
  expect_refusal("?from=yesterday", "from must be an ISO 8601 time");
  expect_refusal("?to=2027-13-01T00:00:00Z", "to must be an ISO 8601 time");
  expect_refusal("?from=2027-01-26T00:00:00Z&to=2027-01-25T00:00:00Z",
                 "from (2027-01-26T00:00:00Z) must be before to (2027-01-25T00:00:00Z).");
  expect_refusal("?account=12345", "account must be a 12-digit account id.");
  expect_refusal("?format=xml", "format must be json or csv.");
}

TEST_F(CostsTest, CsvHasOneRowPerLineAndTotalsToTheCent) {
  const std::string plan = BuyPlan("week", 2, 7, {"endpoint"});
  Endpoint("ep", kP5, 1, plan);
  Endpoint("od", kG5, 2);
  Advance(3600);
  for (const auto& [query, headers] : std::vector<std::pair<std::string, protocol::Headers>>{
           {"?format=csv", {}}, {"", {{"Accept", "text/csv"}}}}) {
    const auto response = Raw("/_emulator/costs" + query, headers);
    ASSERT_EQ(response.status, 200);
    EXPECT_EQ(*protocol::FindHeader(response.headers, "Content-Type"), "text/csv; charset=utf-8");
    const std::string& csv = response.body;
    EXPECT_EQ(csv.substr(0, csv.find("\r\n")),
              "record,arn,name,kind,account,region,instance_type,training_plan_arn,"
              "instance_count,start_time,end_time,reserved_instance_hours,used_instance_hours,"
              "utilization,hourly_price,cost,on_demand_equivalent,first_choice_cost");
    EXPECT_THAT(csv, HasSubstr("plan," + plan +
                               ",week,training-plan,123456789012,us-west-2,ml.p5.48xlarge," + plan +
                               ",2,2027-01-25T11:30:00Z,2027-02-01T11:30:00Z,336.0000,1.0000,"
                               "0.0030,,18480.00,98.32,\r\n"));
    EXPECT_THAT(csv, HasSubstr(",od,endpoint,123456789012,us-west-2,ml.g5.12xlarge,,,"
                               "2027-01-25T11:30:00Z,2027-01-25T12:30:00Z,,2.0000,,7.09,14.18,"
                               "14.18,\r\n"));
    // 18,480.00 + 14.18; on demand 98.32 + 14.18.
    EXPECT_THAT(csv, HasSubstr("total,,,,,,,,,,,336.0000,3.0000,0.0030,,18494.18,112.50,\r\n"));
  }
}

TEST_F(CostsTest, AResetForgetsTheHistory) {
  Endpoint("od", kG5, 1);
  Advance(3600);
  EXPECT_EQ(Costs()["holders"].size(), 1u);
  ASSERT_EQ(router_->Handle({"POST", "/_emulator/reset", {}, ""}).status, 200);
  EXPECT_TRUE(Costs()["holders"].empty());
}

TEST_F(CostsTest, TheReportCarriesTheLedgerAndLoadsNothing) {
  const std::string plan = BuyPlan("week", 2, 7, {"endpoint"});
  Endpoint("ep", kP5, 2, plan);
  Advance(3600);
  const auto response = Raw("/_emulator/report");
  ASSERT_EQ(response.status, 200);
  const std::string& page = response.body;
  const std::string open = R"(<script id="report-data" type="application/json">)";
  const auto start = page.find(open);
  ASSERT_NE(start, std::string::npos);
  const auto end = page.find("</script>", start);
  const json data = json::parse(page.substr(start + open.size(), end - start - open.size()));
  EXPECT_EQ(data["costs"], Costs());
  EXPECT_EQ(data["state"]["endpoints"][0]["name"], "ep");
  EXPECT_EQ(data["generated_at"], "2027-01-25T12:30:00Z");
  const std::string csp = *protocol::FindHeader(response.headers, "Content-Security-Policy");
  EXPECT_THAT(csp, HasSubstr("default-src 'none'"));
  EXPECT_THAT(csp, ::testing::Not(HasSubstr("connect-src")));
}

TEST_F(CostsTest, MetricsShowTheTotalsPerAccountRegionAndType) {
  const std::string plan = BuyPlan("week", 2, 7, {"endpoint"});
  Endpoint("ep", kP5, 2, plan);
  Endpoint("od", kG5, 2);
  Advance(3600);
  const std::string metrics = Raw("/_emulator/metrics").body;
  const std::string where =
      R"(account="123456789012",region="us-west-2",instance_type="ml.p5.48xlarge")";
  EXPECT_THAT(metrics, HasSubstr("sagemaker_emulator_cost_dollars{" + where +
                                 R"(,source="training_plan"} 18480)"));
  EXPECT_THAT(metrics, HasSubstr("sagemaker_emulator_instance_hours{" + where +
                                 R"(,use="used_on_plan"} 2)"));
  EXPECT_THAT(metrics,
              HasSubstr("sagemaker_emulator_instance_hours{" + where + R"(,use="reserved"} 336)"));
  EXPECT_THAT(
      metrics,
      HasSubstr(
          R"(sagemaker_emulator_cost_dollars{account="123456789012",region="us-west-2",instance_type="ml.g5.12xlarge",source="on_demand"} 14.18)"));
  EXPECT_THAT(metrics,
              HasSubstr("sagemaker_emulator_on_demand_equivalent_dollars{" + where + "} 196.64"));
}

// The history is in the database: a restarted server shows the same ledger. The path is a base,
// so that each test's file exists before EmulatorFixture opens it.
struct CostsDbPath {
  TempDbPath db;
};

class DurableCostsTest : private CostsDbPath, public CostsTest {
 protected:
  DurableCostsTest() : CostsTest(db.str()) {}
};

TEST_F(DurableCostsTest, TheHistorySurvivesARestart) {
  Endpoint("od", kG5, 2);
  Advance(3600);
  const json before = Costs();
  router_.reset();
  emulator_.reset();
  Open();  // the fixture starts the clock at kStart again
  Advance(3600);
  EXPECT_EQ(Costs(), before);
  Advance(3600);  // the endpoint still holds its instances after the restart
  EXPECT_EQ(Line(Costs()["holders"], "name", "od")->at("instance_hours"), 4.0);
}

TEST_F(DurableCostsTest, ADatabaseFromBeforeTheLogStartsItsHistoryAtTheNextStart) {
  Endpoint("od", kG5, 2);
  Advance(3600);
  store_.CutHoldingsLogAt(TimePoint{});  // as a database from before the holdings log
  router_.reset();
  emulator_.reset();
  Open();  // at kStart again, where the log is cut
  Advance(3 * 3600);
  const json costs = Costs();
  const json* line = Line(costs["holders"], "name", "od");
  ASSERT_NE(line, nullptr);
  EXPECT_EQ((*line)["instance_hours"], 6.0);  // from this start on: 2 x 3 h
}

}  // namespace
}  // namespace smemu
