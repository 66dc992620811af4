// Training plans through the router: search, buy, describe, list, lifecycle and every error.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "test_support.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

using namespace smemu::testing;  // kStart, kStartSeconds, kDay and the fixture
using TrainingPlansTest = EmulatorFixture;

// A search gives "up to three offerings of one or two segments" (Reserve training plans in the
// console), the first the best match: of the six windows that fit (three per zone), the three that
// start soonest.
TEST_F(TrainingPlansTest, SearchOffersTheThreeWindowsThatStartSoonestAcrossZones) {
  const json result = Search(7);
  const json& offerings = result["TrainingPlanOfferings"];
  ASSERT_EQ(offerings.size(), 3u);
  const json& first = offerings[0];
  EXPECT_THAT(first["TrainingPlanOfferingId"].get<std::string>(), ::testing::StartsWith("tpo-"));
  EXPECT_EQ(first["TrainingPlanOfferingId"].get<std::string>().size(), 4u + 64u);
  EXPECT_EQ(first["TargetResources"], json({"endpoint"}));
  EXPECT_EQ(first["DurationHours"], 168);
  EXPECT_EQ(first["DurationMinutes"], 0);
  EXPECT_EQ(first["UpfrontFee"], "9240.00");  // 168 h x 1 x 55.00
  EXPECT_EQ(first["CurrencyCode"], "USD");
  EXPECT_EQ(first["RequestedStartTimeAfter"], kPlanStartSeconds);
  const json& capacity = first["ReservedCapacityOfferings"][0];
  EXPECT_EQ(capacity["AvailabilityZone"], "us-west-2a");
  EXPECT_EQ(capacity["InstanceType"], "ml.p5.48xlarge");
  EXPECT_EQ(capacity["InstanceCount"], 1);
  EXPECT_EQ(capacity["StartTime"], kPlanStartSeconds);
  EXPECT_EQ(capacity["EndTime"], kPlanStartSeconds + 7 * kDay);
  std::vector<long long> starts;
  for (const json& offering : offerings) {
    starts.push_back(offering["ReservedCapacityOfferings"][0]["StartTime"].get<long long>());
  }
  EXPECT_TRUE(std::is_sorted(starts.begin(), starts.end()));
  EXPECT_EQ(starts[1], kPlanStartSeconds);  // zone b at day 0
  EXPECT_EQ(offerings[1]["ReservedCapacityOfferings"][0]["AvailabilityZone"], "us-west-2b");
  EXPECT_EQ(starts[2], kPlanStartSeconds + kDay);  // then zone a at day 1
  EXPECT_EQ(offerings[2]["ReservedCapacityOfferings"][0]["AvailabilityZone"], "us-west-2a");
  // The same search gives the same ids.
  EXPECT_EQ(Search(7)["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"],
            first["TrainingPlanOfferingId"]);
}

// The developer guide's search sample: "--duration-hours 15" at 11:08:27 PST gives three offerings,
// 15 h 51 min and 39 h 51 min from 11:39 PST, and 24 h from 03:30 PST (11:30 UTC) the next day.
// "Training Plans always end at 11:30 AM UTC on the final day of the reservation"; offerings "may
// be available to start within 30 minutes of reservation". (Reserve training plans)
TEST_F(TrainingPlansTest, TheGuidesFifteenHourSampleGivesItsThreeOfferings) {
  capacity_ = R"({"regions": {"us-west-2": {"us-west-2a": {"ml.p4d.24xlarge": {"reservable": 1}}}},
                  "prices": {"ml.p4d.24xlarge": {"on_demand_hourly": 32.77, "plan_hourly": 12.0}}})";
  Open();
  Advance(19 * 3600 + 8 * 60 + 27);  // 19:08:27 UTC, as 11:08:27 PST
  const long long now = kStartSeconds + 19 * 3600 + 8 * 60 + 27;
  const json offerings = Call("SearchTrainingPlanOfferings",
                              {{"TargetResources", {"training-job"}},
                               {"InstanceType", "ml.p4d.24xlarge"},
                               {"InstanceCount", 1},
                               {"DurationHours", 15},
                               {"StartTimeAfter", now - 1707},  // before the search, as sent
                               {"EndTimeBefore", now + 2 * kDay}})["TrainingPlanOfferings"];
  ASSERT_EQ(offerings.size(), 3u) << offerings.dump();
  const long long soon = kStartSeconds + 19 * 3600 + 39 * 60;  // 19:39: 30 min, whole minutes
  const long long day_end = kPlanStartSeconds + kDay;          // 11:30 UTC the next day
  const std::vector<std::tuple<long long, long long, int, int, std::string>> expected = {
      {soon, day_end, 15, 51, "190.20"},
      {soon, day_end + kDay, 39, 51, "478.20"},
      {day_end, day_end + kDay, 24, 0, "288.00"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto& [start, end, hours, minutes, fee] = expected[i];
    const json& offering = offerings[i];
    const json& capacity = offering["ReservedCapacityOfferings"][0];
    EXPECT_EQ(capacity["StartTime"], start) << i;
    EXPECT_EQ(capacity["EndTime"], end) << i;
    EXPECT_EQ(offering["DurationHours"], hours) << i;
    EXPECT_EQ(offering["DurationMinutes"], minutes) << i;
    EXPECT_EQ(capacity["DurationHours"], hours) << i;
    EXPECT_EQ(capacity["DurationMinutes"], minutes) << i;
    EXPECT_EQ(offering["UpfrontFee"], fee) << i;               // paid by the minute
    EXPECT_EQ(offering["RequestedStartTimeAfter"], now) << i;  // the search time, as the sample
  }
}

TEST_F(TrainingPlansTest, PlansStartAtOnceOrAt1130UtcAndAlwaysEndAt1130Utc) {
  // A start asked for later than 30 minutes out is the next 11:30 UTC: whole plan days.
  json offerings = Search(2, 1, kStartSeconds + 3600, kStartSeconds + 10 * kDay);
  ASSERT_FALSE(offerings["TrainingPlanOfferings"].empty());
  for (const json& offering : offerings["TrainingPlanOfferings"]) {
    const json& capacity = offering["ReservedCapacityOfferings"][0];
    EXPECT_EQ((capacity["StartTime"].get<long long>() - kPlanStartSeconds) % kDay, 0);
    EXPECT_EQ((capacity["EndTime"].get<long long>() - kPlanStartSeconds) % kDay, 0);
    EXPECT_EQ(offering["DurationHours"], 48);
  }
  // EndTimeBefore bounds the end: a week from 11:30 fits once per zone.
  offerings = Search(7, 1, kPlanStartSeconds, kPlanStartSeconds + 7 * kDay + 3600);
  ASSERT_EQ(offerings["TrainingPlanOfferings"].size(), 2u);  // one per zone; no later day fits
  EXPECT_EQ(offerings["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"][0]["StartTime"],
            kPlanStartSeconds);
  EXPECT_EQ(offerings["TrainingPlanOfferings"][0]["RequestedEndTimeBefore"],
            kPlanStartSeconds + 7 * kDay + 3600);
  EXPECT_EQ(Search(7, 4)["TrainingPlanOfferings"], json::array());  // no zone holds 4
  // At 11:00 UTC the soonest start is 11:30 itself: whole days, no partial first day.
  Advance(11 * 3600);
  offerings = Call("SearchTrainingPlanOfferings", {{"InstanceType", "ml.p5.48xlarge"},
                                                   {"DurationHours", 24},
                                                   {"TargetResources", {"endpoint"}}});
  const json& first = offerings["TrainingPlanOfferings"][0];
  EXPECT_EQ(first["ReservedCapacityOfferings"][0]["StartTime"], kPlanStartSeconds);
  EXPECT_EQ(first["DurationHours"], 24);
  EXPECT_FALSE(first.contains("RequestedEndTimeBefore"));  // not asked for, not echoed
}

// "You can search for and purchase a plan that will be accessible within 30 minutes. To ensure
// timely activation, the payment transaction must successfully complete at least 5 minutes before
// the desired start time." (Reserve training plans)
TEST_F(TrainingPlansTest, APlanStartingAtOnceMustBeBoughtFiveMinutesBeforeItStarts) {
  const json offerings = Call("SearchTrainingPlanOfferings", {{"InstanceType", "ml.p5.48xlarge"},
                                                              {"DurationHours", 24},
                                                              {"TargetResources", {"endpoint"}}});
  const json& soonest = offerings["TrainingPlanOfferings"][0];
  ASSERT_EQ(soonest["ReservedCapacityOfferings"][0]["StartTime"], kStartSeconds + 1800);
  const json& other = offerings["TrainingPlanOfferings"][1];
  Advance(1500);  // 5 minutes before the start: still in time
  Call("CreateTrainingPlan", {{"TrainingPlanName", "in-time"},
                              {"TrainingPlanOfferingId", other["TrainingPlanOfferingId"]}});
  Advance(1);
  const json late = Call(
      "CreateTrainingPlan",
      {{"TrainingPlanName", "late"}, {"TrainingPlanOfferingId", soonest["TrainingPlanOfferingId"]}},
      400);
  EXPECT_EQ(late["__type"], "ValidationException");
  EXPECT_EQ(late["message"],
            "Training plan offering " + soonest["TrainingPlanOfferingId"].get<std::string>() +
                " starts at 2027-01-25T00:30:00Z: a purchase must complete at least 5 minutes "
                "before the plan starts. Search for offerings again.");
}

// "When created, the plan initially enters a Pending state and remains there until the reservation
// process is complete." "Once the payment transaction is completed and the requested reserved
// capacities are secured, the training plan is set to the Scheduled state" (Reserve the best
// training plan). --plan-payment-seconds sets how long that takes on the clock.
TEST_F(TrainingPlansTest, APurchaseIsPendingUntilItsPaymentCompletes) {
  hosting_.plan_payment_delay = Millis{600'000};
  Open();
  const json offering = Search(7, 1)["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "paying"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "paying"}});
  EXPECT_EQ(plan["Status"], "Pending");
  EXPECT_EQ(plan["StatusMessage"], "Payment is being processed.");
  const json& summary = plan["ReservedCapacitySummaries"][0];
  EXPECT_EQ(summary["Status"], "Pending");
  EXPECT_EQ(Call("DescribeReservedCapacity",
                 {{"ReservedCapacityArn", summary["ReservedCapacityArn"]}})["Status"],
            "Pending");
  auto listed = [this](const std::string& status) {
    return Call("ListTrainingPlans",
                {{"Filters", {{{"Name", "Status"}, {"Value", status}}}}})["TrainingPlanSummaries"]
        .size();
  };
  EXPECT_EQ(listed("Pending"), 1u);
  EXPECT_EQ(listed("Scheduled"), 0u);
  EXPECT_EQ(Admin("GET", "/_emulator/state")["plans"][0]["status"], "Pending");
  // "The training plan must be in the Scheduled or Active status to be used" (Training plans
  // utilization for SageMaker training jobs); here a Pending plan is taken as a Scheduled one is
  // (a Known difference), so no flow depends on how long the payment takes.
  Call("CreateModel", {{"ModelName", "m"},
                       {"PrimaryContainer", {{"Image", "img:1"}}},
                       {"ExecutionRoleArn", "arn:aws:iam::123456789012:role/r"}});
  const json variant = {{"VariantName", "AllTraffic"},
                        {"ModelName", "m"},
                        {"InstanceType", "ml.p5.48xlarge"},
                        {"InitialInstanceCount", 1},
                        {"CapacityReservationConfig",
                         {{"CapacityReservationPreference", "capacity-reservations-only"},
                          {"MlReservationArn", arn}}}};
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "on-plan"}, {"ProductionVariants", {variant}}});
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "on-plan"}});
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "e"}})["EndpointStatus"], "Creating")
      << "it waits for the plan's start, as on a Scheduled plan";

  Advance(599);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "paying"}})["Status"], "Pending");
  Advance(1);
  plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "paying"}});
  EXPECT_EQ(plan["Status"], "Scheduled");
  EXPECT_EQ(plan["StatusMessage"], "Payment confirmed, training plan scheduled.");
  EXPECT_EQ(listed("Pending"), 0u);
  EXPECT_EQ(listed("Scheduled"), 1u);

  // Extensions are paid the same way: Pending and PaymentStatus Pending, as the extension page's
  // ExtendTrainingPlan sample shows, and "The plan must not have any extensions in Payment
  // Pending status" to be extended again.
  Advance(kPlanDayOffset - 600);  // the plan starts: an extension can be searched for
  const json extension_offering =
      Call("SearchTrainingPlanOfferings",
           {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"][0];
  const json extended = Call(
      "ExtendTrainingPlan",
      {{"TrainingPlanExtensionOfferingId", extension_offering["TrainingPlanExtensionOfferingId"]}});
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["Status"], "Pending");
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["PaymentStatus"], "Pending");
  const json again = Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}}, 400);
  EXPECT_EQ(again["__type"], "ValidationException");
  EXPECT_EQ(again["message"],
            "Training plan paying has an extension (" +
                extension_offering["TrainingPlanExtensionOfferingId"].get<std::string>() +
                ") whose payment is pending; it can be extended again once "
                "that payment completes.");
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "paying"}})["Status"], "Active");
  Advance(600);
  const json history = Call("DescribeTrainingPlanExtensionHistory", {{"TrainingPlanArn", arn}});
  EXPECT_EQ(history["TrainingPlanExtensions"][0]["Status"], "Scheduled");
  EXPECT_EQ(history["TrainingPlanExtensions"][0]["PaymentStatus"], "Completed");
  EXPECT_FALSE(Call("SearchTrainingPlanOfferings",
                    {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"]
                   .empty());
}

// The payment counts against AWS's 5 minutes: a plan that starts in 30 minutes cannot be bought
// with a payment that completes 26 minutes from now.
TEST_F(TrainingPlansTest, APaymentMustCompleteFiveMinutesBeforeThePlanStarts) {
  hosting_.plan_payment_delay = Millis{26 * 60'000};
  Open();
  const json offerings = Call("SearchTrainingPlanOfferings", {{"InstanceType", "ml.p5.48xlarge"},
                                                              {"DurationHours", 24},
                                                              {"TargetResources", {"endpoint"}}});
  const json& soonest = offerings["TrainingPlanOfferings"][0];
  ASSERT_EQ(soonest["ReservedCapacityOfferings"][0]["StartTime"], kStartSeconds + 1800);
  EXPECT_EQ(Call("CreateTrainingPlan",
                 {{"TrainingPlanName", "late"},
                  {"TrainingPlanOfferingId", soonest["TrainingPlanOfferingId"]}},
                 400)["__type"],
            "ValidationException");
  const json later = Search(1);  // from 11:30: in time
  Call("CreateTrainingPlan",
       {{"TrainingPlanName", "in-time"},
        {"TrainingPlanOfferingId", later["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]}});
  EXPECT_EQ(Call("ListTrainingPlans", json::object())["TrainingPlanSummaries"].size(), 1u);
}

// "UltraServers are available only in the Dallas Local Zone (us-east-1-dfw-2a)"; "the P6e-GB200
// UltraServer connects up to 18 p6e-gb200.36xlarge instances"; "You can only purchase
// UltraServers in full units"; "We recommend that you keep one spare instance per UltraServer"
// (Reserve training plans). The guide's UltraServer search sample: one offering of 18 instances
// from 11:30 UTC the next day.
class UltraServerPlansTest : public EmulatorFixture {
 protected:
  UltraServerPlansTest() {
    capacity_ = R"({"regions": {"us-west-2": {
        "us-west-2-dfw-2a": {"ml.p6e-gb200.36xlarge": {"reservable": 36,
            "ultraserver_type": "ml.u-p6e-gb200x72", "instances_per_ultraserver": 18}},
        "us-west-2a": {"ml.p6e-gb200.36xlarge": {"reservable": 4}}}},
      "prices": {"ml.p6e-gb200.36xlarge": {"on_demand_hourly": 188.62, "plan_hourly": 105.63}}})";
    Open();
  }

  json SearchUltraServers(int count, const json& targets = {"hyperpod-cluster"}) {
    return Call("SearchTrainingPlanOfferings", {{"UltraServerType", "ml.u-p6e-gb200x72"},
                                                {"UltraServerCount", count},
                                                {"DurationHours", 24},
                                                {"TargetResources", targets}});
  }
};

TEST_F(UltraServerPlansTest, SearchedAndBoughtInWholeUltraServersWithSpares) {
  const json offerings = SearchUltraServers(2)["TrainingPlanOfferings"];
  ASSERT_EQ(offerings.size(), 3u);  // one zone holds them: three days from 11:30
  const json& capacity = offerings[0]["ReservedCapacityOfferings"][0];
  EXPECT_EQ(capacity["ReservedCapacityType"], "UltraServer");
  EXPECT_EQ(capacity["UltraServerType"], "ml.u-p6e-gb200x72");
  EXPECT_EQ(capacity["UltraServerCount"], 2);
  EXPECT_EQ(capacity["InstanceType"], "ml.p6e-gb200.36xlarge");
  EXPECT_EQ(capacity["InstanceCount"], 36);
  EXPECT_EQ(capacity["AvailabilityZone"], "us-west-2-dfw-2a");
  EXPECT_EQ(capacity["StartTime"], kPlanStartSeconds);  // no start at once for UltraServers
  // "the number of spares that you reserve doesn't affect pricing": 36 x 24 h x 105.63.
  EXPECT_EQ(offerings[0]["UpfrontFee"], "91264.32");
  EXPECT_EQ(SearchUltraServers(3)["TrainingPlanOfferings"], json::array());  // only 2 in the zone
  // An instance search never sells a piece of an UltraServer.
  const json instances = Call("SearchTrainingPlanOfferings",
                              {{"InstanceType", "ml.p6e-gb200.36xlarge"}, {"InstanceCount", 4}});
  for (const json& offering : instances["TrainingPlanOfferings"]) {
    EXPECT_EQ(offering["ReservedCapacityOfferings"][0]["AvailabilityZone"], "us-west-2a");
    EXPECT_EQ(offering["ReservedCapacityOfferings"][0]["ReservedCapacityType"], "Instance");
  }

  Call("CreateTrainingPlan", {{"TrainingPlanName", "gb200"},
                              {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}});
  const json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "gb200"}});
  EXPECT_EQ(plan["TotalUltraServerCount"], 2);
  EXPECT_EQ(plan["TotalInstanceCount"], 36);
  EXPECT_EQ(plan["AvailableSpareInstanceCount"], 2);  // "Default is 1" spare per UltraServer
  EXPECT_EQ(plan["AvailableInstanceCount"], 34);      // the spares are kept
  EXPECT_EQ(plan["UnhealthyInstanceCount"], 0);
  const json& summary = plan["ReservedCapacitySummaries"][0];
  EXPECT_EQ(summary["ReservedCapacityType"], "UltraServer");
  EXPECT_EQ(summary["UltraServerCount"], 2);
  EXPECT_FALSE(summary.contains("AvailabilityZoneId"));  // the model's pattern cannot hold dfw2
  const json reserved =
      Call("DescribeReservedCapacity", {{"ReservedCapacityArn", summary["ReservedCapacityArn"]}});
  EXPECT_EQ(reserved["ReservedCapacityType"], "UltraServer");
  EXPECT_EQ(reserved["UltraServerSummary"], json({{"UltraServerType", "ml.u-p6e-gb200x72"},
                                                  {"InstanceType", "ml.p6e-gb200.36xlarge"},
                                                  {"UltraServerCount", 2},
                                                  {"AvailableSpareInstanceCount", 2},
                                                  {"UnhealthyInstanceCount", 0}}));
  EXPECT_EQ(Call("ListTrainingPlans",
                 json::object())["TrainingPlanSummaries"][0]["TotalUltraServerCount"],
            2);
}

TEST_F(UltraServerPlansTest, SparesAreChosenAtPurchaseAndKeptFromUse) {
  const json offering = SearchUltraServers(1)["TrainingPlanOfferings"][0];
  const std::string id = offering["TrainingPlanOfferingId"];
  for (const long long spares : {-1LL, 18LL}) {
    const json refused = Call("CreateTrainingPlan",
                              {{"TrainingPlanName", "bad"},
                               {"TrainingPlanOfferingId", id},
                               {"SpareInstanceCountPerUltraServer", spares}},
                              400);
    EXPECT_EQ(refused["__type"], "ValidationException") << spares;
  }
  const std::string arn =
      Call("CreateTrainingPlan", {{"TrainingPlanName", "no-spares"},
                                  {"TrainingPlanOfferingId", id},
                                  {"SpareInstanceCountPerUltraServer", 3}})["TrainingPlanArn"];
  const json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "no-spares"}});
  EXPECT_EQ(plan["AvailableSpareInstanceCount"], 3);
  EXPECT_EQ(plan["AvailableInstanceCount"], 15);
  // A HyperPod group on the plan can take 15 instances, not the spares.
  Advance(kPlanDayOffset);
  auto group = [&](int count) {
    return json{{"InstanceGroupName", "workers"},
                {"InstanceType", "ml.p6e-gb200.36xlarge"},
                {"InstanceCount", count},
                {"ExecutionRole", "arn:aws:iam::123456789012:role/r"},
                {"TrainingPlanArn", arn},
                {"LifeCycleConfig", {{"SourceS3Uri", "s3://b/l"}, {"OnCreate", "on_create.sh"}}}};
  };
  EXPECT_EQ(Call("CreateCluster", {{"ClusterName", "too-big"}, {"InstanceGroups", {group(16)}}},
                 400)["__type"],
            "ValidationException");
  Call("CreateCluster", {{"ClusterName", "gb200"}, {"InstanceGroups", {group(15)}}});
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "no-spares"}})["InUseInstanceCount"],
            15);
}

// "To see the status and instances within an UltraServer ... you can see the total number of
// available instances, instances currently in use, unhealthy instances, the number of configured
// spares, and other information." (Reserve training plans)
TEST_F(UltraServerPlansTest, ListUltraServersShowsEachWithItsCountsAndHealth) {
  const json offering = SearchUltraServers(2)["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "gb200"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  const std::string reserved =
      Call("DescribeTrainingPlan",
           {{"TrainingPlanName", "gb200"}})["ReservedCapacitySummaries"][0]["ReservedCapacityArn"];
  Advance(kPlanDayOffset);
  Call("CreateCluster",
       {{"ClusterName", "gb200"},
        {"InstanceGroups",
         {{{"InstanceGroupName", "workers"},
           {"InstanceType", "ml.p6e-gb200.36xlarge"},
           {"InstanceCount", 20},
           {"ExecutionRole", "arn:aws:iam::123456789012:role/r"},
           {"TrainingPlanArn", arn},
           {"LifeCycleConfig", {{"SourceS3Uri", "s3://b/l"}, {"OnCreate", "on_create.sh"}}}}}}});
  std::vector<json> listed;
  json input = {{"ReservedCapacityArn", reserved}, {"MaxResults", 1}};
  for (int page = 0; page < 5; ++page) {
    const json answer = Call("ListUltraServersByReservedCapacity", input);
    for (const json& ultraserver : answer["UltraServers"]) listed.push_back(ultraserver);
    if (!answer.contains("NextToken")) break;
    input["NextToken"] = answer["NextToken"];
  }
  ASSERT_EQ(listed.size(), 2u);
  // The 20 instances in use fill the first UltraServer's 17 (18 less its spare), then 3.
  for (std::size_t i = 0; i < 2; ++i) {
    const json& ultraserver = listed[i];
    EXPECT_EQ(ultraserver["UltraServerType"], "ml.u-p6e-gb200x72");
    EXPECT_EQ(ultraserver["InstanceType"], "ml.p6e-gb200.36xlarge");
    EXPECT_EQ(ultraserver["AvailabilityZone"], "us-west-2-dfw-2a");
    EXPECT_EQ(ultraserver["TotalInstanceCount"], 18);
    EXPECT_EQ(ultraserver["ConfiguredSpareInstanceCount"], 1);
    EXPECT_EQ(ultraserver["AvailableSpareInstanceCount"], 1);
    EXPECT_EQ(ultraserver["UnhealthyInstanceCount"], 0);
    EXPECT_EQ(ultraserver["HealthStatus"], "OK");
  }
  EXPECT_EQ(listed[0]["InUseInstanceCount"], 17);
  EXPECT_EQ(listed[0]["AvailableInstanceCount"], 0);
  EXPECT_EQ(listed[1]["InUseInstanceCount"], 3);
  EXPECT_EQ(listed[1]["AvailableInstanceCount"], 14);
  EXPECT_NE(listed[0]["UltraServerId"], listed[1]["UltraServerId"]);
  // Each node names its UltraServer (UltraServerInfo), the same 17 and 3.
  std::map<std::string, int> nodes_per_ultraserver;
  json nodes_input = {{"ClusterName", "gb200"}, {"MaxResults", 100}};
  const json nodes = Call("ListClusterNodes", nodes_input)["ClusterNodeSummaries"];
  for (const json& node : nodes) {
    EXPECT_EQ(node["UltraServerInfo"]["Type"], "ml.u-p6e-gb200x72");
    ++nodes_per_ultraserver[node["UltraServerInfo"]["Id"]];
  }
  EXPECT_EQ(nodes_per_ultraserver, (std::map<std::string, int>{{listed[0]["UltraServerId"], 17},
                                                               {listed[1]["UltraServerId"], 3}}));
  const json details =
      Call("DescribeClusterNode",
           {{"ClusterName", "gb200"}, {"NodeId", nodes[0]["InstanceId"]}})["NodeDetails"];
  EXPECT_EQ(details["UltraServerInfo"], nodes[0]["UltraServerInfo"]);

  // An instance plan has no UltraServers; an unknown reserved capacity is not found.
  const json instances = Call("SearchTrainingPlanOfferings",
                              {{"InstanceType", "ml.p6e-gb200.36xlarge"}, {"InstanceCount", 1}});
  Call("CreateTrainingPlan", {{"TrainingPlanName", "single"},
                              {"TrainingPlanOfferingId",
                               instances["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]}});
  const std::string single =
      Call("DescribeTrainingPlan",
           {{"TrainingPlanName", "single"}})["ReservedCapacitySummaries"][0]["ReservedCapacityArn"];
  EXPECT_EQ(
      Call("ListUltraServersByReservedCapacity", {{"ReservedCapacityArn", single}})["UltraServers"],
      json::array());
  const json missing = Call(
      "ListUltraServersByReservedCapacity",
      {{"ReservedCapacityArn", "arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/rc-x"}},
      400);
  EXPECT_EQ(missing["__type"], "ResourceNotFound");
}

TEST_F(UltraServerPlansTest, SearchRefusals) {
  const std::vector<std::pair<json, std::string>> cases = {
      {{{"UltraServerCount", 1}}, "UltraServerCount needs UltraServerType."},
      {{{"UltraServerType", "ml.u-p6e-gb200x72"}, {"InstanceCount", 18}},
       "An UltraServer search counts UltraServers: give UltraServerCount, not InstanceCount."},
      {{{"UltraServerType", "ml.u-p6e-gb200x72"}, {"TargetResources", {"endpoint"}}},
       "UltraServer plans are sold for training-job and hyperpod-cluster only; got "
       "TargetResources endpoint."},
  };
  for (const auto& [input, message] : cases) {
    const json refused = Call("SearchTrainingPlanOfferings", input, 400);
    EXPECT_EQ(refused["__type"], "ValidationException") << input;
    EXPECT_EQ(refused["message"], message) << input;
  }
  // An UltraServer type no pool has: nothing to offer.
  EXPECT_EQ(Call("SearchTrainingPlanOfferings",
                 {{"UltraServerType", "ml.u-p6e-gb200x36"}})["TrainingPlanOfferings"],
            json::array());
}

// "You can reserve a training plan up to 8 weeks (56 days) in advance of the start date."
TEST_F(TrainingPlansTest, PlansStartAtMost56DaysAhead) {
  const json offerings = Search(1, 1, kPlanStartSeconds + 54 * kDay, kPlanStartSeconds + 70 * kDay);
  std::vector<long long> starts;
  for (const json& offering : offerings["TrainingPlanOfferings"]) {
    starts.push_back(offering["ReservedCapacityOfferings"][0]["StartTime"].get<long long>());
    EXPECT_LE(starts.back(), kStartSeconds + 56 * kDay);
  }
  // 11:30 on day 54 from both zones, then day 55 (three offerings at most); day 56's 11:30 is past
  // 56 days from 00:00.
  EXPECT_EQ(starts,
            (std::vector<long long>{kPlanStartSeconds + 54 * kDay, kPlanStartSeconds + 54 * kDay,
                                    kPlanStartSeconds + 55 * kDay}));
  const json last_day = Search(1, 1, kPlanStartSeconds + 55 * kDay, kPlanStartSeconds + 70 * kDay);
  EXPECT_EQ(last_day["TrainingPlanOfferings"].size(), 2u) << "day 55 from both zones, no day 56";
  const json error = Call(
      "SearchTrainingPlanOfferings",
      {{"InstanceType", "ml.p5.48xlarge"}, {"StartTimeAfter", kStartSeconds + 56 * kDay + 1}}, 400);
  EXPECT_EQ(error["__type"], "ValidationException");
  EXPECT_EQ(error["message"],
            "StartTimeAfter 2027-03-22T00:00:01Z is more than 56 days ahead: training plans can "
            "be reserved up to 8 weeks (56 days) in advance of the start date.");
}

// "The DurationHour is rounded up to the nearest multiple of 24." "Reservation durations are
// available in 1-day increments from 1 to 182 days." "The reservation instance quantity options
// are 1, 2, 4, 8, 16, 32 or 64 instances." (Search training plan offerings, developer guide)
TEST_F(TrainingPlansTest, SearchRoundsHoursUpToWholeDaysAndSellsTheDocumentedQuantities) {
  for (const auto& [hours, days] : std::vector<std::pair<long long, long long>>{
           {1, 1}, {15, 1}, {24, 1}, {25, 2}, {167, 7}, {4368, 182}}) {
    const json offerings =
        Call("SearchTrainingPlanOfferings", {{"InstanceType", "ml.p5.48xlarge"},
                                             {"DurationHours", hours},
                                             {"StartTimeAfter", kPlanStartSeconds},
                                             {"EndTimeBefore", kStartSeconds + 200 * kDay},
                                             {"TargetResources", {"endpoint"}}});
    ASSERT_FALSE(offerings["TrainingPlanOfferings"].empty()) << hours;
    EXPECT_EQ(offerings["TrainingPlanOfferings"][0]["DurationHours"], days * 24) << hours;
  }
  for (const long long count : {1, 2}) {
    EXPECT_FALSE(Search(1, static_cast<int>(count))["TrainingPlanOfferings"].empty()) << count;
  }
  for (const long long count : {3, 5, 6, 7, 63, 65, 128}) {
    const json error = Call("SearchTrainingPlanOfferings",
                            {{"InstanceType", "ml.p5.48xlarge"}, {"InstanceCount", count}}, 400);
    EXPECT_EQ(error["__type"], "ValidationException") << count;
    EXPECT_EQ(error["message"],
              "InstanceCount must be 1, 2, 4, 8, 16, 32 or 64: training plans "
              "reserve instances in those quantities; got " +
                  std::to_string(count) + ".");
  }
}

// "Extend plans by 1-day increments up to 14 days, or 7-day increments up to 182 days", and "The
// DurationHours is rounded up to the nearest multiple of 24." (Training plans extension)
TEST_F(TrainingPlansTest, ExtensionHoursRoundUpToDaysThenToWeeksPastTwoWeeks) {
  const json offering = Search(1)["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "short"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  for (const auto& [hours, days] : std::vector<std::pair<long long, long long>>{
           {1, 1}, {48, 2}, {49, 3}, {14 * 24, 14}, {14 * 24 + 1, 21}, {22 * 24, 28}}) {
    const json extensions =
        Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}, {"DurationHours", hours}});
    ASSERT_EQ(extensions["TrainingPlanExtensionOfferings"].size(), 1u) << hours;
    EXPECT_EQ(extensions["TrainingPlanExtensionOfferings"][0]["DurationHours"], days * 24) << hours;
  }
}

TEST_F(TrainingPlansTest, SearchRefusesBadDurationsAndWindows) {
  for (long long hours : {4369LL, 4392LL, 87600LL}) {
    const json error = Call("SearchTrainingPlanOfferings",
                            {{"InstanceType", "ml.p5.48xlarge"}, {"DurationHours", hours}}, 400);
    EXPECT_EQ(error["__type"], "ValidationException") << hours;
    EXPECT_THAT(error["message"].get<std::string>(), HasSubstr("DurationHours"));
  }
  const json error =
      Call("SearchTrainingPlanOfferings",
           {{"StartTimeAfter", kStartSeconds + kDay}, {"EndTimeBefore", kStartSeconds}}, 400);
  EXPECT_EQ(error["__type"], "ValidationException");
}

TEST_F(TrainingPlansTest, BuyDescribeAndWatchTheLifecycle) {
  const json offering = Search(7, 2)["TrainingPlanOfferings"][0];
  const json created =
      Call("CreateTrainingPlan", {{"TrainingPlanName", "Demo-Plan"},
                                  {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  EXPECT_EQ(created["TrainingPlanArn"],
            "arn:aws:sagemaker:us-west-2:123456789012:training-plan/demo-plan");

  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "Demo-Plan"}})["Status"],
            "Scheduled");
  Advance(kPlanDayOffset);  // 11:30 UTC: the plan day starts
  json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "Demo-Plan"}});
  EXPECT_EQ(plan["TrainingPlanName"], "Demo-Plan");
  EXPECT_EQ(plan["Status"], "Active");
  // As the developer guide's DescribeTrainingPlan sample shows it.
  EXPECT_EQ(plan["StatusMessage"], "Payment confirmed, training plan scheduled.");
  EXPECT_EQ(plan["TotalInstanceCount"], 2);
  EXPECT_EQ(plan["AvailableInstanceCount"], 2);
  EXPECT_EQ(plan["InUseInstanceCount"], 0);
  EXPECT_EQ(plan["UpfrontFee"], "18480.00");
  EXPECT_EQ(plan["TargetResources"], json({"endpoint"}));
  EXPECT_EQ(plan["StartTime"], kPlanStartSeconds);
  EXPECT_EQ(plan["EndTime"], kPlanStartSeconds + 7 * kDay);
  const json& summary = plan["ReservedCapacitySummaries"][0];
  EXPECT_EQ(summary["AvailabilityZone"], "us-west-2a");
  EXPECT_EQ(summary["AvailabilityZoneId"], "usw2-az1");  // the model's pattern [a-z]{3}\d-az\d
  EXPECT_EQ(summary["Status"], "Active");

  const json capacity =
      Call("DescribeReservedCapacity", {{"ReservedCapacityArn", summary["ReservedCapacityArn"]}});
  EXPECT_EQ(capacity["TotalInstanceCount"], 2);
  EXPECT_EQ(capacity["InstanceType"], "ml.p5.48xlarge");

  Advance(7 * kDay);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "demo-plan"}})["Status"], "Expired");
  EXPECT_EQ(Call("DescribeReservedCapacity",
                 {{"ReservedCapacityArn", summary["ReservedCapacityArn"]}})["Status"],
            "Expired");
}

// ListTrainingPlans keeps each summary's text with the plan while what it shows besides the plan
// stays the same; each listing must still show the plan as DescribeTrainingPlan does at that
// moment (the same writer): its status and its reserved capacity's as the clock moves, its
// instances in use as an endpoint takes them, and after the row changes (an extension).
TEST_F(TrainingPlansTest, ListedSummariesFollowTheClockAndTheHolders) {
  const json offering = Search(7, 2)["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "listed"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  auto listed_as_described = [&](const std::string& when) {
    for (int repeat = 0; repeat < 2; ++repeat) {  // written, then kept
      const json summaries = Call("ListTrainingPlans", json::object())["TrainingPlanSummaries"];
      ASSERT_EQ(summaries.size(), 1u) << when;
      json described = Call("DescribeTrainingPlan", {{"TrainingPlanName", "listed"}});
      for (const char* only_described : {"UnhealthyInstanceCount", "AvailableSpareInstanceCount"}) {
        described.erase(only_described);
      }
      EXPECT_EQ(summaries[0], described) << when << " (listing " << repeat << ")";
    }
  };
  listed_as_described("scheduled, payment pending");
  Advance(10 * 60);
  listed_as_described("scheduled, paid");
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "listed"}})["StatusMessage"],
            "Payment confirmed, training plan scheduled.");
  AdvanceTo(kPlanStartSeconds);
  listed_as_described("active");
  Call("CreateModel", {{"ModelName", "m"}});
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "c"},
        {"ProductionVariants", {ReservedVariant(arn, 1, "ml.p5.48xlarge", "m")}}});
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "c"}});
  Advance(10 * 60);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "listed"}})["InUseInstanceCount"],
            1);
  listed_as_described("one instance in use");
  Call("DeleteEndpoint", {{"EndpointName", "e"}});
  Advance(10 * 60);
  listed_as_described("the endpoint deleted");
  Advance(7 * kDay);
  listed_as_described("expired");
}

// The model's TargetResources include studio-apps: "A training plan for Studio apps can be used to
// launch JupyterLab and Code Editor apps on reserved training plan capacity." Studio apps are not
// emulated: such a plan is searched, sold and shown like any other, and no emulated resource can
// use it.
TEST_F(TrainingPlansTest, AStudioAppsPlanIsSoldButNoEmulatedResourceUsesIt) {
  const json offering = Call("SearchTrainingPlanOfferings",
                             {{"InstanceType", "ml.p5.48xlarge"},
                              {"DurationHours", 24},
                              {"TargetResources", {"studio-apps"}}})["TrainingPlanOfferings"][0];
  EXPECT_EQ(offering["TargetResources"], json({"studio-apps"}));
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "studio"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "studio"}})["TargetResources"],
            json({"studio-apps"}));
  Call("CreateModel", {{"ModelName", "m"}});
  const json refused =
      Call("CreateEndpointConfig",
           {{"EndpointConfigName", "c"},
            {"ProductionVariants", {ReservedVariant(arn, 1, "ml.p5.48xlarge", "m")}}},
           400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_THAT(refused["message"].get<std::string>(), HasSubstr("endpoint"));
}

TEST_F(TrainingPlansTest, AFutureWindowIsScheduledUntilItStarts) {
  const json offering =
      Search(1, 1, kStartSeconds + 3 * kDay, kStartSeconds + 10 * kDay)["TrainingPlanOfferings"][0];
  Call("CreateTrainingPlan", {{"TrainingPlanName", "later"},
                              {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "later"}})["Status"], "Scheduled");
  Advance(3 * kDay + kPlanDayOffset - 1);  // a second before 11:30 UTC of day 3
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "later"}})["Status"], "Scheduled");
  Advance(1);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "later"}})["Status"], "Active");
  Advance(kDay);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "later"}})["Status"], "Expired");
}

TEST_F(TrainingPlansTest, SoldCapacityDisappearsFromLaterSearches) {
  const json offerings = Search(7, 2)["TrainingPlanOfferings"];
  ASSERT_EQ(offerings.size(), 3u);  // only zone a holds 2
  Call("CreateTrainingPlan", {{"TrainingPlanName", "all-of-zone-a"},
                              {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}});
  const json after = Search(7, 1, kStartSeconds, kStartSeconds + 8 * kDay)["TrainingPlanOfferings"];
  for (const json& offering : after) {
    const json& capacity = offering["ReservedCapacityOfferings"][0];
    EXPECT_EQ(capacity["AvailabilityZone"], "us-west-2b") << "zone a is sold out for the week";
  }
  // Capacity taken since the search: the overlapping offering from the first search can't be sold.
  const json error = Call("CreateTrainingPlan",
                          {{"TrainingPlanName", "too-late"},
                           {"TrainingPlanOfferingId", offerings[1]["TrainingPlanOfferingId"]}},
                          400);
  EXPECT_EQ(error["__type"], "ResourceLimitExceeded");
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "too-late"}}, 400)["__type"],
            "ResourceNotFound");
}

TEST_F(TrainingPlansTest, CreateErrors) {
  EXPECT_EQ(
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "p"}, {"TrainingPlanOfferingId", "tpo-unknown"}}, 400)["__type"],
      "ResourceNotFound");
  const json offerings = Search(1)["TrainingPlanOfferings"];
  Call("CreateTrainingPlan", {{"TrainingPlanName", "p"},
                              {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}});
  EXPECT_EQ(Call("CreateTrainingPlan",
                 {{"TrainingPlanName", "P"},
                  {"TrainingPlanOfferingId", offerings[1]["TrainingPlanOfferingId"]}},
                 400)["__type"],
            "ResourceInUse");
  // An offering can be bought again while its zone has capacity (zone a holds 2), then no more.
  EXPECT_EQ(Call("CreateTrainingPlan",
                 {{"TrainingPlanName", "q"},
                  {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}})
                .contains("TrainingPlanArn"),
            true);
  EXPECT_EQ(Call("CreateTrainingPlan",
                 {{"TrainingPlanName", "q2"},
                  {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}},
                 400)["__type"],
            "ResourceLimitExceeded");
  // Offerings expire after 30 minutes of clock time.
  Advance(31 * 60);
  EXPECT_EQ(Call("CreateTrainingPlan",
                 {{"TrainingPlanName", "r"},
                  {"TrainingPlanOfferingId", offerings[2]["TrainingPlanOfferingId"]}},
                 400)["__type"],
            "ResourceNotFound");
  EXPECT_EQ(Call("DescribeReservedCapacity",
                 {{"ReservedCapacityArn",
                   "arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/rc-missing"}},
                 400)["__type"],
            "ResourceNotFound");
}

TEST_F(TrainingPlansTest, ListFiltersSortsAndPages) {
  for (int i = 0; i < 3; ++i) {
    const json offering = Search(1, 1, kStartSeconds + i * 2 * kDay,
                                 kStartSeconds + 20 * kDay)["TrainingPlanOfferings"][0];
    Call("CreateTrainingPlan", {{"TrainingPlanName", "plan-" + std::to_string(i)},
                                {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  }
  Advance(kDay + kPlanDayOffset + 3600);  // plan-0 expired, the others scheduled
  std::vector<std::string> names;
  json input = {{"MaxResults", 1}, {"SortBy", "StartTime"}, {"SortOrder", "Descending"}};
  while (true) {
    const json page = Call("ListTrainingPlans", input);
    for (const json& plan : page["TrainingPlanSummaries"])
      names.push_back(plan["TrainingPlanName"]);
    if (!page.contains("NextToken")) break;
    input["NextToken"] = page["NextToken"];
  }
  EXPECT_EQ(names, (std::vector<std::string>{"plan-2", "plan-1", "plan-0"}));
  const json scheduled =
      Call("ListTrainingPlans", {{"Filters", {{{"Name", "Status"}, {"Value", "Scheduled"}}}}});
  EXPECT_EQ(scheduled["TrainingPlanSummaries"].size(), 2u);
  const json started_later = Call(
      "ListTrainingPlans", {{"StartTimeAfter", kPlanStartSeconds}, {"SortBy", "TrainingPlanName"}});
  ASSERT_EQ(started_later["TrainingPlanSummaries"].size(), 2u);
  EXPECT_EQ(started_later["TrainingPlanSummaries"][0]["TrainingPlanName"], "plan-1");
  // Status sorts by the status names (Expired before Scheduled) and pages by position.
  names.clear();
  input = {{"MaxResults", 2}, {"SortBy", "Status"}};
  while (true) {
    const json page = Call("ListTrainingPlans", input);
    for (const json& plan : page["TrainingPlanSummaries"]) {
      names.push_back(plan["Status"].get<std::string>() + " " +
                      plan["TrainingPlanName"].get<std::string>());
    }
    if (!page.contains("NextToken")) break;
    input["NextToken"] = page["NextToken"];
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"Expired plan-0", "Scheduled plan-1", "Scheduled plan-2"}));
  // No plan here is ever Pending or Failed; both filters together still find the expired one.
  EXPECT_TRUE(
      Call("ListTrainingPlans",
           {{"Filters", {{{"Name", "Status"}, {"Value", "Pending"}}}}})["TrainingPlanSummaries"]
          .empty());
  const json expired = Call(
      "ListTrainingPlans",
      {{"Filters",
        {{{"Name", "Status"}, {"Value", "Failed"}}, {{"Name", "Status"}, {"Value", "Expired"}}}}});
  ASSERT_EQ(expired["TrainingPlanSummaries"].size(), 1u);
  EXPECT_EQ(expired["TrainingPlanSummaries"][0]["TrainingPlanName"], "plan-0");
  EXPECT_EQ(Call("ListTrainingPlans", {{"NextToken", "bogus"}}, 400)["__type"],
            "ValidationException");
}

TEST_F(TrainingPlansTest, TheAdminApiShowsPoolsReservationsAndFreeCounts) {
  const json offering = Search(2, 2, kStartSeconds + kDay)["TrainingPlanOfferings"][0];
  const json plan =
      Call("CreateTrainingPlan", {{"TrainingPlanName", "shown"},
                                  {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  const json view =
      Admin("GET", "/_emulator/capacity?region=us-west-2&instance_type=ml.p5.48xlarge");
  ASSERT_EQ(view["pools"].size(), 2u);
  const json& zone_a = view["pools"][0];
  EXPECT_EQ(zone_a["availability_zone"], "us-west-2a");
  EXPECT_EQ(zone_a["reservable"], 2);
  EXPECT_EQ(zone_a["on_demand"], 1);
  ASSERT_EQ(zone_a["reservations"].size(), 1u);
  EXPECT_EQ(zone_a["reservations"][0]["training_plan_arn"], plan["TrainingPlanArn"]);
  EXPECT_EQ(zone_a["reservations"][0]["start"], "2027-01-26T11:30:00Z");
  EXPECT_EQ(zone_a["reservations"][0]["count"], 2);
  EXPECT_EQ(zone_a["free_reservable"], json::parse(R"([{"from":"2027-01-25T00:00:00Z","free":2},
                            {"from":"2027-01-26T11:30:00Z","free":0},
                            {"from":"2027-01-28T11:30:00Z","free":2}])"));
  EXPECT_EQ(Admin("GET", "/_emulator/capacity?region=eu-west-1")["pools"].size(), 0u);
}

TEST_F(TrainingPlansTest, AdminCapacityChangesNeverTakeSoldInstances) {
  const json offering = Search(2, 2)["TrainingPlanOfferings"][0];
  Call("CreateTrainingPlan", {{"TrainingPlanName", "sold"},
                              {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  const json refused = Admin("POST", "/_emulator/capacity",
                             R"({"region":"us-west-2","availability_zone":"us-west-2a",
                                 "instance_type":"ml.p5.48xlarge","reservable":1})");
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_THAT(refused["message"].get<std::string>(), HasSubstr("cannot go below 2"));
  const json crunch = Admin("POST", "/_emulator/capacity",
                            R"({"region":"us-west-2","availability_zone":"us-west-2b",
                                "instance_type":"ml.p5.48xlarge","reservable":0,"on_demand":0})");
  EXPECT_EQ(crunch["reservable"], 0);
  EXPECT_EQ(Search(2)["TrainingPlanOfferings"].size(), 3u) << "only zone a, after the sold window";
  const json grown = Admin("POST", "/_emulator/capacity",
                           R"({"region":"us-west-2","availability_zone":"us-west-2a",
                               "instance_type":"ml.p5.48xlarge","reservable":5})");
  EXPECT_EQ(grown["reservable"], 5);
  EXPECT_EQ(grown["on_demand"], 1);  // kept
  for (
      const char* bad :
      {R"({"region":"us-west-2"})",
       R"({"region":"us-west-2","availability_zone":"us-west-2a","instance_type":"ml.p5.48xlarge"})",
       R"({"region":"us-west-2","availability_zone":"us-west-2a","instance_type":"ml.p5.48xlarge","reservable":-1})",
       R"({"region":"us-west-2","availability_zone":"us-west-2a","instance_type":"ml.g5.xlarge","reservable":1})"}) {
    EXPECT_EQ(Admin("POST", "/_emulator/capacity", bad)["__type"], "ValidationException") << bad;
  }
}

TEST_F(TrainingPlansTest, ExtendAPlanWhereItEnds) {
  const json offering = Search(7, 2)["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "grow"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  const json search = Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}});
  EXPECT_EQ(search["TrainingPlanOfferings"], json::array());
  const json& extensions = search["TrainingPlanExtensionOfferings"];
  ASSERT_EQ(extensions.size(), 2u);  // one day and one week
  EXPECT_THAT(extensions[0]["TrainingPlanExtensionOfferingId"].get<std::string>(),
              ::testing::StartsWith("tpeo-"));
  EXPECT_EQ(extensions[0]["StartDate"], kPlanStartSeconds + 7 * kDay);
  EXPECT_EQ(extensions[0]["EndDate"], kPlanStartSeconds + 8 * kDay);
  EXPECT_EQ(extensions[0]["AvailabilityZone"], "us-west-2a");
  EXPECT_EQ(extensions[0]["UpfrontFee"], "2640.00");  // 24 h x 2 x 55
  // An extension offering is not a plan offering.
  EXPECT_EQ(Call("CreateTrainingPlan",
                 {{"TrainingPlanName", "x"},
                  {"TrainingPlanOfferingId", extensions[0]["TrainingPlanExtensionOfferingId"]}},
                 400)["__type"],
            "ResourceNotFound");

  const json extended =
      Call("ExtendTrainingPlan",
           {{"TrainingPlanExtensionOfferingId", extensions[1]["TrainingPlanExtensionOfferingId"]}});
  ASSERT_EQ(extended["TrainingPlanExtensions"].size(), 1u);
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["EndDate"], kPlanStartSeconds + 14 * kDay);
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["ExtendedAt"], kStartSeconds);
  const json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "grow"}});
  EXPECT_EQ(plan["EndTime"], kPlanStartSeconds + 14 * kDay);
  EXPECT_EQ(plan["DurationHours"], 14 * 24);
  EXPECT_EQ(plan["UpfrontFee"], "36960.00");  // two weeks of 2 x 55
  EXPECT_EQ(
      Search(7, 1, kPlanStartSeconds,
             kPlanStartSeconds + 15 * kDay)["TrainingPlanOfferings"][0]["ReservedCapacityOfferings"]
                                           [0]["AvailabilityZone"],
      "us-west-2b");  // zone a is held for two weeks now

  // The one-day offering started where the plan used to end: it no longer fits.
  EXPECT_EQ(
      Call("ExtendTrainingPlan",
           {{"TrainingPlanExtensionOfferingId", extensions[0]["TrainingPlanExtensionOfferingId"]}},
           400)["__type"],
      "ValidationException");
  const json history = Call("DescribeTrainingPlanExtensionHistory", {{"TrainingPlanArn", arn}});
  ASSERT_EQ(history["TrainingPlanExtensions"].size(), 1u);
  EXPECT_EQ(history["TrainingPlanExtensions"][0]["DurationHours"], 168);
  EXPECT_EQ(history["TrainingPlanExtensions"][0]["AvailabilityZoneId"], "usw2-az1");
  EXPECT_EQ(Call("DescribeTrainingPlanExtensionHistory",
                 {{"TrainingPlanArn",
                   "arn:aws:sagemaker:us-west-2:123456789012:training-plan/nothing-here"}},
                 400)["__type"],
            "ResourceNotFound");
  EXPECT_EQ(Call("ExtendTrainingPlan", {{"TrainingPlanExtensionOfferingId", "tpeo-unknown"}},
                 400)["__type"],
            "ResourceNotFound");
  // SearchTrainingPlanOfferings models only ResourceLimitExceeded: an unknown plan is invalid
  // input.
  const std::string unknown = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/nothing-here";
  const json refused = Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", unknown}}, 400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  EXPECT_EQ(refused["message"],
            "Training plan " + unknown + " does not exist in this account and region.");
}

// "Extensions can be requested up to a minimum of 1 hour or a maximum of 57 days before the plan
// expires." (Training plans extension, developer guide)
TEST_F(TrainingPlansTest, APlanCanBeExtendedFrom57DaysTo1HourBeforeItEnds) {
  const json offering = Call("SearchTrainingPlanOfferings",
                             {{"InstanceType", "ml.p5.48xlarge"},
                              {"DurationHours", 14 * 24},  // ends more than 57 days out
                              {"StartTimeAfter", kStartSeconds + 50 * kDay},
                              {"EndTimeBefore", kStartSeconds + 90 * kDay},
                              {"TargetResources", {"endpoint"}}})["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "far"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  const long long end = offering["ReservedCapacityOfferings"][0]["EndTime"];
  const json too_early = Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}}, 400);
  EXPECT_EQ(too_early["__type"], "ValidationException");
  EXPECT_THAT(too_early["message"].get<std::string>(),
              HasSubstr("can be extended from 57 days to 1 hour before it ends"));
  Advance(end - kStartSeconds - 57 * kDay);
  EXPECT_FALSE(Call("SearchTrainingPlanOfferings",
                    {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"]
                   .empty());
  Advance(57 * kDay - 3600);
  EXPECT_FALSE(Call("SearchTrainingPlanOfferings",
                    {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"]
                   .empty());
  Advance(1);
  EXPECT_EQ(Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}}, 400)["__type"],
            "ValidationException");
}

TEST_F(TrainingPlansTest, NoExtensionWhenTheFollowingWindowIsSold) {
  const json first = Search(7, 2)["TrainingPlanOfferings"][0];
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "first"},
            {"TrainingPlanOfferingId", first["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  const json next = Search(1, 1, kPlanStartSeconds + 7 * kDay,
                           kPlanStartSeconds + 8 * kDay)["TrainingPlanOfferings"][0];
  ASSERT_EQ(next["ReservedCapacityOfferings"][0]["AvailabilityZone"], "us-west-2a");
  Call("CreateTrainingPlan",
       {{"TrainingPlanName", "next"}, {"TrainingPlanOfferingId", next["TrainingPlanOfferingId"]}});
  EXPECT_EQ(
      Call("SearchTrainingPlanOfferings",
           {{"TrainingPlanArn", arn}, {"DurationHours", 24}})["TrainingPlanExtensionOfferings"],
      json::array());
}

class TrainingPlansRestartTest : public testing::EmulatorFixture {
 protected:
  TrainingPlansRestartTest() : EmulatorFixture(db_.str()) {}
  static inline testing::TempDbPath db_;
};

TEST_F(TrainingPlansRestartTest, TheLedgerIsRebuiltFromStoredPlans) {
  const json offering = Search(7, 2)["TrainingPlanOfferings"][0];
  Call("CreateTrainingPlan", {{"TrainingPlanName", "kept"},
                              {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  Admin("POST", "/_emulator/capacity",
        R"({"region":"us-west-2","availability_zone":"us-west-2b","instance_type":"ml.p5.48xlarge",
            "reservable":4})");
  router_.reset();
  emulator_.reset();
  Open();  // a restart on the same database
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "kept"}})["TotalInstanceCount"], 2);
  EXPECT_EQ(Admin("GET", "/_emulator/capacity")["pools"][1]["reservable"], 4);
  // Zone a is sold for the first week, so the three soonest offerings are all zone b's (grown to 4
  // before the restart), from day 0.
  std::vector<std::pair<std::string, long long>> found;
  const json after_restart = Search(7, 2);
  for (const json& other : after_restart["TrainingPlanOfferings"]) {
    const json& capacity = other["ReservedCapacityOfferings"][0];
    found.emplace_back(capacity["AvailabilityZone"], capacity["StartTime"]);
  }
  EXPECT_EQ(found, (std::vector<std::pair<std::string, long long>>{
                       {"us-west-2b", kPlanStartSeconds},
                       {"us-west-2b", kPlanStartSeconds + kDay},
                       {"us-west-2b", kPlanStartSeconds + 2 * kDay}}));
}

class FailingPaymentRestartTest : public testing::EmulatorFixture {
 protected:
  FailingPaymentRestartTest() : EmulatorFixture(db_.str()) {}
  static inline testing::TempDbPath db_;
};

// A purchase whose payment is going to fail holds its capacity while Pending across a restart too
// (the store keeps when it fails), and gives it back when it fails.
TEST_F(FailingPaymentRestartTest, APurchaseWhosePaymentFailsHoldsItsCapacityUntilItFails) {
  router_.reset();
  emulator_.reset();
  hosting_.plan_payment_delay = Millis{60'000};
  Open();
  Admin("POST", "/_emulator/faults",
        json({{"operation", "CreateTrainingPlan"}, {"payment", json::object()}}).dump());
  const json offering = Search(7, 2)["TrainingPlanOfferings"][0];  // zone a's two instances
  Call("CreateTrainingPlan", {{"TrainingPlanName", "doomed"},
                              {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}});
  router_.reset();
  emulator_.reset();
  Open();  // a restart on the same database, at the same moment
  auto first_start = [this] {
    const json found = Search(7, 2)["TrainingPlanOfferings"];
    return found.empty() ? 0
                         : found[0]["ReservedCapacityOfferings"][0]["StartTime"].get<long long>();
  };
  EXPECT_EQ(first_start(), kPlanStartSeconds + 7 * kDay) << "held while Pending";
  Advance(60);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "doomed"}})["Status"], "Failed");
  EXPECT_EQ(first_start(), kPlanStartSeconds) << "given back when the payment failed";
}

}  // namespace
}  // namespace smemu

namespace smemu::testing {
namespace {

// A node failure (a fault rule's node_failure) on an UltraServer plan: "We recommend that you
// keep one spare instance per UltraServer" — a spare stands in for the failed instance, the
// UltraServer is Impaired and its unhealthy instance counted; with NodeRecovery Automatic
// ("SageMaker HyperPod will automatically reboot or replace faulty nodes") the node is replaced
// by a new one, with None it stays in Failure.
class NodeFailureTest : public UltraServerPlansTest {
 protected:
  std::string BuyAndCluster(const std::string& recovery) {
    const json offering = SearchUltraServers(1)["TrainingPlanOfferings"][0];
    const std::string arn =
        Call("CreateTrainingPlan",
             {{"TrainingPlanName", "gb200"},
              {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
    Advance(kPlanDayOffset);
    Call("CreateCluster",
         {{"ClusterName", "gb200"},
          {"NodeRecovery", recovery},
          {"InstanceGroups",
           {{{"InstanceGroupName", "workers"},
             {"InstanceType", "ml.p6e-gb200.36xlarge"},
             {"InstanceCount", 4},
             {"ExecutionRole", "arn:aws:iam::123456789012:role/r"},
             {"TrainingPlanArn", arn},
             {"LifeCycleConfig", {{"SourceS3Uri", "s3://b/l"}, {"OnCreate", "on_create.sh"}}}}}}});
    Advance(600);
    return Call(
        "DescribeTrainingPlan",
        {{"TrainingPlanName", "gb200"}})["ReservedCapacitySummaries"][0]["ReservedCapacityArn"];
  }

  void FailANodeInAnHour() {
    const long long at = kPlanStartSeconds + 600 + 3600;
    const protocol::HttpResponse added =
        router_->Handle({"POST",
                         "/_emulator/faults",
                         {},
                         json({{"id", "bad-gpu"},
                               {"resource", "gb200"},
                               {"node_failure", {{"at", at}, {"instance_group", "work*"}}}})
                             .dump()});
    ASSERT_EQ(added.status, 200) << added.body;
  }

  std::vector<std::string> NodeStatuses() {
    std::vector<std::string> statuses;
    const json nodes = Call("ListClusterNodes", {{"ClusterName", "gb200"}});
    for (const json& node : nodes["ClusterNodeSummaries"]) {
      statuses.push_back(node["InstanceStatus"]["Status"]);
    }
    return statuses;
  }
};

TEST_F(NodeFailureTest, AFailedNodeIsReplacedAndASpareStandsInForIt) {
  const std::string reserved = BuyAndCluster("Automatic");
  const json first = Call("ListClusterNodes", {{"ClusterName", "gb200"}})["ClusterNodeSummaries"];
  FailANodeInAnHour();
  Advance(3599);
  EXPECT_EQ(Call("ListUltraServersByReservedCapacity",
                 {{"ReservedCapacityArn", reserved}})["UltraServers"][0]["HealthStatus"],
            "OK");
  Advance(1);
  const json nodes = Call("ListClusterNodes", {{"ClusterName", "gb200"}})["ClusterNodeSummaries"];
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(NodeStatuses(), (std::vector<std::string>{"Running", "Running", "Running", "Running"}));
  std::set<std::string> before, after;
  for (const json& node : first) before.insert(node["InstanceId"]);
  for (const json& node : nodes) after.insert(node["InstanceId"]);
  EXPECT_NE(before, after);  // one was replaced by a new instance
  const json ultraserver = Call("ListUltraServersByReservedCapacity",
                                {{"ReservedCapacityArn", reserved}})["UltraServers"][0];
  EXPECT_EQ(ultraserver["HealthStatus"], "Impaired");
  EXPECT_EQ(ultraserver["UnhealthyInstanceCount"], 1);
  EXPECT_EQ(ultraserver["AvailableSpareInstanceCount"], 0);  // the one spare stands in
  EXPECT_EQ(ultraserver["InUseInstanceCount"], 4);
  EXPECT_EQ(ultraserver["AvailableInstanceCount"], 13);  // 17 usable, as before
  const json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "gb200"}});
  EXPECT_EQ(plan["UnhealthyInstanceCount"], 1);
  EXPECT_EQ(plan["AvailableSpareInstanceCount"], 0);
  const json summary =
      Call("DescribeReservedCapacity", {{"ReservedCapacityArn", reserved}})["UltraServerSummary"];
  EXPECT_EQ(summary["UnhealthyInstanceCount"], 1);
  EXPECT_EQ(summary["AvailableSpareInstanceCount"], 0);
  const json rules = Admin("GET", "/_emulator/faults")["rules"];
  EXPECT_EQ(rules[0]["fired"], 1);
  EXPECT_EQ(rules[0]["node_failure"]["at"], "2027-01-25T12:40:00Z");
}

TEST_F(NodeFailureTest, WithoutNodeRecoveryTheFailedNodeStaysInFailure) {
  BuyAndCluster("None");
  FailANodeInAnHour();
  Advance(3600);
  EXPECT_EQ(NodeStatuses(), (std::vector<std::string>{"Failure", "Running", "Running", "Running"}));
  const json nodes = Call("ListClusterNodes", {{"ClusterName", "gb200"}})["ClusterNodeSummaries"];
  const json details =
      Call("DescribeClusterNode",
           {{"ClusterName", "gb200"}, {"NodeId", nodes[0]["InstanceId"]}})["NodeDetails"];
  EXPECT_EQ(details["InstanceStatus"]["Message"],
            "The instance failed its health checks. NodeRecovery is None: replace it with "
            "BatchDeleteClusterNodes and UpdateCluster.");
  Advance(3600);  // a failure happens once per rule and cluster
  EXPECT_EQ(NodeStatuses(), (std::vector<std::string>{"Failure", "Running", "Running", "Running"}));
}

}  // namespace
}  // namespace smemu::testing
