// Fault rules through the router: adding, listing and removing them, what they match, how often
// they fire (a seeded probability fires the same way on every run), the errors they answer (only
// what the model lets each matched operation answer, so --check-responses holds), the latency they
// add, and the purchase whose payment fails (the plan or extension ends Failed and reserves
// nothing). The fixture runs with --check-responses.
#include "domain/faults.hpp"

#include <string>
#include <vector>

#include "emulator_fixture.hpp"

namespace smemu::testing {
namespace {

using Statuses = std::vector<int>;

class FaultsTest : public EmulatorFixture {
 protected:
  FaultsTest() {
    router_.reset();
    emulator_.reset();
    // Latency is held back through the router's `after`, recorded rather than slept.
    router_config_.after = [this](Millis delay, std::function<void()> then) {
      delays_.push_back(delay);
      then();
    };
    Open();
  }

  json AddRules(const json& document, int expected_status = 200) {
    const protocol::HttpResponse response =
        router_->Handle({"POST", "/_emulator/faults", {}, document.dump()});
    EXPECT_EQ(response.status, expected_status) << response.body;
    return json::parse(response.body);
  }

  json Rules() { return Admin("GET", "/_emulator/faults")["rules"]; }

  protocol::HttpResponse Raw(const std::string& operation, const json& input) {
    return router_->Handle({"POST",
                            "/",
                            {{"X-Amz-Target", "SageMaker." + operation}, {"Authorization", kAuth}},
                            input.dump()});
  }

  // The statuses of `n` ListModels calls.
  Statuses ListModelsStatuses(int n) {
    Statuses statuses;
    for (int i = 0; i < n; ++i) statuses.push_back(Raw("ListModels", json::object()).status);
    return statuses;
  }

  std::vector<Millis> delays_;
};

TEST(FaultFiring, EachKindFiresOnTheMatchesItSays) {
  using Kind = domain::FaultFiring::Kind;
  struct Row {
    domain::FaultFiring firing;
    long long match, fired;
    double draw;
    bool fires;
  };
  const std::vector<Row> table = {
      {{Kind::kAlways, 0, 0, 0}, 7, 6, 0.99, true},
      {{Kind::kTimes, 2, 0, 0}, 2, 1, 0, true},
      {{Kind::kTimes, 2, 0, 0}, 3, 2, 0, false},
      {{Kind::kEvery, 3, 0, 0}, 3, 0, 0, true},
      {{Kind::kEvery, 3, 0, 0}, 4, 1, 0, false},
      {{Kind::kEvery, 3, 0, 0}, 6, 1, 0, true},
      {{Kind::kProbability, 0, 0.25, 1}, 1, 0, 0.2, true},
      {{Kind::kProbability, 0, 0.25, 1}, 1, 0, 0.25, false},
      {{Kind::kProbability, 0, 0, 1}, 1, 0, 0, false},
  };
  for (const Row& row : table) {
    EXPECT_EQ(domain::Fires(row.firing, row.match, row.fired, row.draw), row.fires)
        << "kind " << static_cast<int>(row.firing.kind) << " match " << row.match;
  }
  EXPECT_TRUE(domain::GlobMatches("List*", "ListTrainingJobs"));
  EXPECT_FALSE(domain::GlobMatches("List*", "DescribeEndpoint"));
  EXPECT_TRUE(domain::GlobMatches("blue-[0-9]", "blue-7"));
  EXPECT_TRUE(domain::GlobMatches("", "anything"));
}

// "Rate exceeded" is the text AWS's throttling answers carry (ThrottlingException, HTTP 400).
TEST_F(FaultsTest, AThrottlingRuleAnswersForItsNextMatchesThenLetsRequestsThrough) {
  const json added =
      AddRules({{"operation", "List*"}, {"times", 2}, {"error", "ThrottlingException"}});
  EXPECT_EQ(
      added["rules"][0],
      json({{"id", "rule-1"},
            {"operation", "List*"},
            {"times", 2},
            {"error",
             {{"code", "ThrottlingException"}, {"status", 400}, {"message", "Rate exceeded"}}}}));
  const protocol::HttpResponse throttled = Raw("ListModels", json::object());
  EXPECT_EQ(throttled.status, 400);
  EXPECT_EQ(json::parse(throttled.body)["__type"], "ThrottlingException");
  EXPECT_EQ(json::parse(throttled.body)["message"], "Rate exceeded");
  EXPECT_EQ(*protocol::FindHeader(throttled.headers, "X-Amzn-ErrorType"), "ThrottlingException");
  EXPECT_EQ(Raw("ListEndpoints", json::object()).status, 400);
  EXPECT_EQ(ListModelsStatuses(2), (Statuses{200, 200}));
  Call("DescribeTrainingPlan", {{"TrainingPlanName", "none"}}, 400);  // not a List: not matched
  const json rules = Rules();
  EXPECT_EQ(rules[0]["matched"], 4);
  EXPECT_EQ(rules[0]["fired"], 2);
  EXPECT_EQ(rules[0]["source"], "api");
  EXPECT_EQ(Admin("GET", "/_emulator/state")["faults"], rules);  // the dashboard's view
  const std::string metrics = router_->Handle({"GET", "/_emulator/metrics", {}, ""}).body;
  EXPECT_THAT(metrics,
              ::testing::HasSubstr("sagemaker_emulator_fault_rule_fired_total{rule=\"rule-1\","
                                   "operation=\"ListModels\"} 1"));
}

TEST_F(FaultsTest, EveryKthMatchFiresAndServerErrorsCarryTheirStatus) {
  AddRules({{"rules",
             {{{"id", "flaky"},
               {"operation", "ListModels"},
               {"every", 3},
               {"error", "ServiceUnavailable"}}}}});
  EXPECT_EQ(ListModelsStatuses(7), (Statuses{200, 200, 503, 200, 200, 503, 200}));
  AddRules({{"operation", "ListEndpoints"}, {"error", {{"code", "InternalFailure"}}}});
  const protocol::HttpResponse failed = Raw("ListEndpoints", json::object());
  EXPECT_EQ(failed.status, 500);
  EXPECT_EQ(json::parse(failed.body)["message"], "An internal error occurred.");
}

TEST_F(FaultsTest, ASeededProbabilityFiresTheSameWayOnEveryRun) {
  const json rule = {{"operation", "ListModels"},
                     {"probability", 0.5},
                     {"seed", 42},
                     {"error", "ThrottlingException"}};
  AddRules(rule);
  const Statuses first = ListModelsStatuses(40);
  Admin("POST", "/_emulator/reset");  // drops the rule: none fires
  EXPECT_EQ(ListModelsStatuses(3), (Statuses{200, 200, 200}));
  AddRules(rule);
  EXPECT_EQ(ListModelsStatuses(40), first);
  const auto throttled = std::count(first.begin(), first.end(), 400);
  EXPECT_GT(throttled, 8);
  EXPECT_LT(throttled, 32);
  AddRules({{"id", "other-seed"},
            {"operation", "ListModels"},
            {"probability", 0.5},
            {"seed", 7},
            {"error", "ThrottlingException"}});
  Admin("DELETE", "/_emulator/faults?id=rule-1");
  EXPECT_NE(ListModelsStatuses(40), first);
}

// The state view narrowed to a signing caller's account shows only the rules that may touch it.
TEST_F(FaultsTest, ACallerSigningAsOneAccountSeesItsRulesInTheState) {
  AddRules({{"rules",
             {{{"id", "mine"}, {"account", "123456789012"}, {"latency_ms", 1}},
              {{"id", "theirs"}, {"account", "111111111111"}, {"latency_ms", 1}},
              {{"id", "everyone"}, {"latency_ms", 1}}}}});
  const json state = Admin("GET", "/_emulator/state", "", {{"Authorization", kAuth}});
  std::vector<std::string> ids;
  for (const json& rule : state["faults"]) ids.push_back(rule["id"]);
  EXPECT_EQ(ids, (std::vector<std::string>{"mine", "everyone"}));
  EXPECT_EQ(Admin("GET", "/_emulator/state")["faults"].size(), 3u);
}

TEST_F(FaultsTest, RulesMatchTheResourceTheAccountAndTheRegion) {
  AddRules({{"rules",
             {{{"operation", "DescribeEndpoint"},
               {"resource", "blue-*"},
               {"error", "ThrottlingException"}},
              {{"operation", "DescribeTrainingPlan"},
               {"account", "111111111111"},
               {"error", "ThrottlingException"}},
              {{"operation", "ListClusters"},
               {"region", "us-west-2"},
               {"error", "ThrottlingException"}}}}});
  EXPECT_EQ(Raw("DescribeEndpoint", {{"EndpointName", "blue-1"}}).status, 400);
  EXPECT_EQ(json::parse(Raw("DescribeEndpoint", {{"EndpointName", "blue-1"}}).body)["__type"],
            "ThrottlingException");
  EXPECT_EQ(json::parse(Raw("DescribeEndpoint", {{"EndpointName", "green"}}).body)["__type"],
            "ValidationException");  // not found: served
  EXPECT_EQ(json::parse(Raw("DescribeTrainingPlan", {{"TrainingPlanName", "p"}}).body)["__type"],
            "ResourceNotFound");                               // the caller is 123456789012
  EXPECT_EQ(Raw("ListClusters", json::object()).status, 400);  // the caller's region
}

TEST_F(FaultsTest, ARuleTheModelCannotAnswerIsRefusedWhenAdded) {
  struct Row {
    json rule;
    std::string message;
  };
  const std::vector<Row> table = {
      {{{"operation", "List*"}, {"error", "ModelError"}},
       "Fault rule 1: ListClusterNodes cannot answer ModelError: it is neither one of the "
       "operation's modelled errors nor a common AWS error."},
      {{{"id", "x"}, {"operation", "ListModels"}, {"error", "NoSuchThing"}},
       "Fault rule 1 (x) names the error 'NoSuchThing', which the emulator cannot send: use one "
       "of SageMaker's modelled errors (ResourceNotFound, ResourceInUse, ResourceLimitExceeded, "
       "ConflictException; on the runtime ModelError, ModelNotReadyException, "
       "InternalDependencyException, ValidationError) or a common AWS error "
       "(ThrottlingException, ServiceUnavailable, InternalFailure, ValidationException, "
       "AccessDeniedException, UnrecognizedClientException)."},
      {{{"operation", "Frobnicate*"}, {"error", "ThrottlingException"}},
       "Fault rule 1: operation 'Frobnicate*' matches no operation the emulator serves."},
      {{{"operation", "ListModels"}, {"error", {{"code", "ServiceUnavailable"}, {"status", 500}}}},
       "Fault rule 1: ServiceUnavailable is sent with HTTP 503 by ListModels, not 500."},
      {{{"operation", "ListModels"}, {"error", {{"code", "ThrottlingException"}, {"status", 503}}}},
       "Fault rule 1: ThrottlingException is a client error: its status is a 4xx, not 503."},
      {{{"operation", "ListModels"}, {"error", "ThrottlingException"}, {"latency_ms", 5}},
       "Fault rule 1 must do exactly one of 'error', 'latency_ms', 'payment', 'node_failure', "
       "'no_capacity', 'job_failure' and 'model_error'."},
      {{{"resource", "c"}, {"times", 1}, {"node_failure", {{"at", "2027-01-16T00:00:00Z"}}}},
       "Fault rule 1 fails one node of each cluster it matches, once: 'times', 'every' and "
       "'probability' do not apply to 'node_failure'."},
      {{{"resource", "c"}, {"node_failure", {{"instance_group", "g"}}}},
       "Fault rule 1 'node_failure' must say when the node fails ('at')."},
      {{{"resource", "c"}, {"node_failure", {{"at", "tomorrow"}}}},
       "Fault rule 1 'node_failure.at' must be an ISO 8601 time such as 2027-01-16T00:00:00Z, or "
       "epoch seconds."},
      {{{"operation", "ListModels"}, {"latency_ms", 30001}},
       "Fault rule 1 'latency_ms' must be a whole number of milliseconds from 0 to 30000."},
      {{{"operation", "ListModels"}, {"times", 2}, {"every", 3}, {"latency_ms", 1}},
       "Fault rule 1 gives more than one of 'times', 'every' and 'probability'."},
      {{{"operation", "ListModels"}, {"seed", 2}, {"latency_ms", 1}},
       "Fault rule 1 has a 'seed' without a 'probability'."},
      {{{"operation", "ListModels"}, {"latency_ms", 1}, {"colour", "red"}},
       "Fault rule 1 has an unknown member 'colour'."},
  };
  for (const Row& row : table) {
    const json refused = AddRules(row.rule, 400);
    EXPECT_EQ(refused["__type"], "ValidationException") << row.rule.dump();
    EXPECT_EQ(refused["message"], row.message) << row.rule.dump();
  }
  EXPECT_EQ(Rules(), json::array());  // nothing was added
  AddRules({{"id", "twice"}, {"operation", "ListModels"}, {"latency_ms", 1}});
  EXPECT_EQ(
      AddRules({{"id", "twice"}, {"operation", "ListModels"}, {"latency_ms", 1}}, 400)["message"],
      "A fault rule with id 'twice' exists already; remove it first or choose another.");
}

TEST_F(FaultsTest, LatencyHoldsTheAnswerBackAndAnErrorRuleCanFollowIt) {
  AddRules(
      {{"rules",
        {{{"operation", "DescribeEndpoint"}, {"latency_ms", 250}},
         {{"operation", "DescribeEndpoint"}, {"times", 1}, {"error", "ThrottlingException"}}}}});
  EXPECT_EQ(Raw("DescribeEndpoint", {{"EndpointName", "e"}}).status, 400);
  EXPECT_EQ(json::parse(Raw("DescribeEndpoint", {{"EndpointName", "e"}}).body)["__type"],
            "ValidationException");
  EXPECT_EQ(delays_, (std::vector<Millis>{Millis{250}, Millis{250}}));
  EXPECT_EQ(Raw("ListModels", json::object()).status, 200);
  EXPECT_EQ(delays_.size(), 2u);
}

TEST_F(FaultsTest, AnInvocationCanFailAsTheModelWould) {
  AddRules({{"operation", "InvokeEndpoint"},
            {"error",
             {{"code", "ModelError"},
              {"message", "Received server error (500) from primary with message \"boom\"."},
              {"original_status_code", 500}}}});
  const protocol::HttpResponse failed =
      router_->Handle({"POST", "/endpoints/e/invocations", {{"Authorization", kAuth}}, "x"});
  EXPECT_EQ(failed.status, 424);
  const json body = json::parse(failed.body);
  EXPECT_EQ(body["__type"], "ModelError");
  EXPECT_EQ(body["OriginalStatusCode"], 500);
  EXPECT_EQ(Rules()[0]["error"]["original_status_code"], 500);
  EXPECT_EQ(AddRules({{"operation", "ListModels"},
                      {"error", {{"code", "ThrottlingException"}, {"original_status_code", 500}}}},
                     400)["message"],
            "Fault rule 1 gives 'error.original_status_code', which only a ModelError has.");
}

TEST_F(FaultsTest, InvocationsCanBeFailedWithTheRuntimesOwnErrors) {
  AddRules(
      {{"operation", "InvokeEndpoint"}, {"resource", "e"}, {"error", "ModelNotReadyException"}});
  const protocol::HttpResponse refused =
      router_->Handle({"POST", "/endpoints/e/invocations", {{"Authorization", kAuth}}, "x"});
  EXPECT_EQ(refused.status, 429);
  EXPECT_EQ(*protocol::FindHeader(refused.headers, "X-Amzn-ErrorType"), "ModelNotReadyException");
  const protocol::HttpResponse other =
      router_->Handle({"POST", "/endpoints/f/invocations", {{"Authorization", kAuth}}, "x"});
  EXPECT_EQ(json::parse(other.body)["__type"], "ValidationError");  // not found: served
}

TEST_F(FaultsTest, DeleteRemovesOneOrEveryRuleAndAResetKeepsTheFilesRules) {
  ASSERT_TRUE(router_
                  ->AddFaultRules({{"id", "from-file"},
                                   {"operation", "ListModels"},
                                   {"times", 1},
                                   {"error", "ThrottlingException"}},
                                  ops::FaultSource::kFile)
                  .ok());
  AddRules({{"operation", "ListEndpoints"}, {"error", "ThrottlingException"}});
  EXPECT_EQ(ListModelsStatuses(2), (Statuses{400, 200}));
  Admin("POST", "/_emulator/reset");
  const json rules = Rules();
  ASSERT_EQ(rules.size(), 1u);
  EXPECT_EQ(rules[0]["id"], "from-file");
  EXPECT_EQ(rules[0]["source"], "file");
  EXPECT_EQ(rules[0]["matched"], 0);
  EXPECT_EQ(ListModelsStatuses(2), (Statuses{400, 200}));  // it starts over
  const json missing = Admin("DELETE", "/_emulator/faults?id=nope");
  EXPECT_EQ(missing["__type"], "NotFoundException");
  EXPECT_EQ(Admin("DELETE", "/_emulator/faults?id=from-file")["removed"], 1);
  AddRules({{"rules",
             {{{"operation", "ListModels"}, {"latency_ms", 1}},
              {{"operation", "ListEndpoints"}, {"latency_ms", 1}}}}});
  EXPECT_EQ(Admin("DELETE", "/_emulator/faults")["removed"], 2);
  EXPECT_EQ(Rules(), json::array());
  const protocol::HttpResponse put = router_->Handle({"PUT", "/_emulator/faults", {}, "{}"});
  EXPECT_EQ(put.status, 405);
  EXPECT_EQ(*protocol::FindHeader(put.headers, "Allow"), "GET, POST, DELETE");
}

// A purchase that a payment rule matches is Pending as any other, then Failed when its payment
// would have completed ("Failed" is a TrainingPlanStatus of the model), with the rule's
// StatusMessage. While Pending it holds its capacity, as any purchase does (no one else can buy
// it, and a search does not tell that the payment will fail), and it is taken as a Scheduled plan
// is. Once failed, its capacity is for sale again, what waited on it finds it over, nothing else
// may use it, and it costs nothing.
TEST_F(FaultsTest, APurchaseWhosePaymentFailsEndsFailedAndReservesNothing) {
  router_.reset();
  emulator_.reset();
  hosting_.plan_payment_delay = Millis{60'000};
  Open();
  AddRules({{"operation", "CreateTrainingPlan"},
            {"resource", "doomed"},
            {"payment", {{"status_message", "Your payment method was declined."}}}});
  const json offering = Search(7, 2)["TrainingPlanOfferings"][0];  // zone a's two instances
  const std::string arn =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "doomed"},
            {"TrainingPlanOfferingId", offering["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "doomed"}})["Status"], "Pending");
  const json held = Search(7, 2)["TrainingPlanOfferings"];
  ASSERT_FALSE(held.empty());
  EXPECT_EQ(held[0]["ReservedCapacityOfferings"][0]["StartTime"], kPlanStartSeconds + 7 * kDay)
      << "zone a's first week is held while the purchase is Pending";
  EXPECT_EQ(Admin("GET", "/_emulator/capacity")["pools"][0]["reservations"].size(), 1u);
  Call("CreateModel", {{"ModelName", "model-v1"},
                       {"PrimaryContainer", {{"Image", "img:1"}}},
                       {"ExecutionRoleArn", "arn:aws:iam::123456789012:role/r"}});
  Call("CreateEndpointConfig",
       {{"EndpointConfigName", "early"}, {"ProductionVariants", {ReservedVariant(arn, 1)}}});
  Call("CreateEndpoint", {{"EndpointName", "early"}, {"EndpointConfigName", "early"}});
  EXPECT_EQ(Call("DescribeEndpoint", {{"EndpointName", "early"}})["EndpointStatus"], "Creating");
  Advance(60);
  const json waited = Call("DescribeEndpoint", {{"EndpointName", "early"}});
  EXPECT_EQ(waited["EndpointStatus"], "Failed");
  EXPECT_THAT(waited["FailureReason"].get<std::string>(), ::testing::HasSubstr(arn))
      << waited.dump();
  const json plan = Call("DescribeTrainingPlan", {{"TrainingPlanName", "doomed"}});
  EXPECT_EQ(plan["Status"], "Failed");
  EXPECT_EQ(plan["StatusMessage"], "Your payment method was declined.");
  EXPECT_EQ(plan["AvailableInstanceCount"], 0);
  EXPECT_EQ(plan["ReservedCapacitySummaries"][0]["Status"], "Failed");
  EXPECT_EQ(Call("DescribeReservedCapacity",
                 {{"ReservedCapacityArn",
                   plan["ReservedCapacitySummaries"][0]["ReservedCapacityArn"]}})["Status"],
            "Failed");
  const json failed =
      Call("ListTrainingPlans", {{"Filters", {{{"Name", "Status"}, {"Value", "Failed"}}}}});
  ASSERT_EQ(failed["TrainingPlanSummaries"].size(), 1u);
  EXPECT_EQ(failed["TrainingPlanSummaries"][0]["TrainingPlanName"], "doomed");
  EXPECT_EQ(
      Call("ListTrainingPlans",
           {{"Filters", {{{"Name", "Status"}, {"Value", "Scheduled"}}}}})["TrainingPlanSummaries"],
      json::array());

  // The same two instances are for sale again, and the next purchase goes through.
  EXPECT_EQ(Admin("GET", "/_emulator/capacity")["pools"][0]["reservations"], json::array());
  const json again = Search(7, 2)["TrainingPlanOfferings"];
  ASSERT_FALSE(again.empty());
  EXPECT_EQ(again[0]["ReservedCapacityOfferings"][0]["AvailabilityZone"], "us-west-2a");
  Call("CreateTrainingPlan", {{"TrainingPlanName", "paid"},
                              {"TrainingPlanOfferingId", again[0]["TrainingPlanOfferingId"]}});
  Advance(60);
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "paid"}})["Status"], "Scheduled");

  const json refused =
      Call("CreateEndpointConfig",
           {{"EndpointConfigName", "c"}, {"ProductionVariants", {ReservedVariant(arn, 1)}}}, 400);
  EXPECT_EQ(refused["message"], "Training plan " + arn +
                                    " is Failed: its payment did not complete, so it reserves no "
                                    "capacity.");
  EXPECT_EQ(Call("SearchTrainingPlanOfferings", {{"TrainingPlanArn", arn}}, 400)["message"],
            "Training plan doomed is Failed: its payment did not complete, so it cannot be "
            "extended.");
  const json costs = Admin("GET", "/_emulator/costs");
  ASSERT_EQ(costs["plans"].size(), 1u);
  EXPECT_EQ(costs["plans"][0]["name"], "paid");
  EXPECT_EQ(Admin("GET", "/_emulator/state")["plans"][0]["status"], "Failed");
}

// An extension whose payment fails is Pending first, holding its window as any purchase does,
// then Failed, and the window is for sale again.
TEST_F(FaultsTest, AnExtensionWhosePaymentFailsHoldsItsWindowUntilItFails) {
  router_.reset();
  emulator_.reset();
  hosting_.plan_payment_delay = Millis{60'000};
  Open();
  AddRules({{"operation", "ExtendTrainingPlan"}, {"payment", json::object()}});
  const std::string arn = BuyThenStartTheDay("p", Search(7, 1)["TrainingPlanOfferings"][0]);
  const long long plan_end = kPlanStartSeconds + 7 * kDay;
  const json offering = Call("SearchTrainingPlanOfferings",
                             {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"][0];
  ASSERT_EQ(offering["StartDate"], plan_end);
  const json extended =
      Call("ExtendTrainingPlan",
           {{"TrainingPlanExtensionOfferingId", offering["TrainingPlanExtensionOfferingId"]}});
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["Status"], "Pending");
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["PaymentStatus"], "Pending");
  // Only us-west-2a has two instances, one of them the plan's: the other is held by the extension.
  auto zone_a_free_from_plan_end = [&] {
    const json found = Search(1, 2, plan_end, plan_end + 2 * kDay);
    for (const json& offered : found["TrainingPlanOfferings"]) {
      if (offered["ReservedCapacityOfferings"][0]["StartTime"] == plan_end) return true;
    }
    return false;
  };
  EXPECT_FALSE(zone_a_free_from_plan_end()) << "held while the extension is Pending";
  Advance(60);
  const json history = Call("DescribeTrainingPlanExtensionHistory", {{"TrainingPlanArn", arn}});
  EXPECT_EQ(history["TrainingPlanExtensions"][0]["Status"], "Failed");
  EXPECT_EQ(history["TrainingPlanExtensions"][0]["PaymentStatus"], "Failed");
  EXPECT_TRUE(zone_a_free_from_plan_end()) << "given back when its payment failed";
  EXPECT_EQ(Call("DescribeTrainingPlan", {{"TrainingPlanName", "p"}})["EndTime"], plan_end);
}

// An extension whose payment fails is Failed, its PaymentStatus Failed, and the plan keeps its end.
TEST_F(FaultsTest, AnExtensionWhosePaymentFailsLeavesThePlanAsItWas) {
  AddRules({{"operation", "ExtendTrainingPlan"}, {"payment", json::object()}});
  const std::string arn = BuyThenStartTheDay("p", Search(7, 1)["TrainingPlanOfferings"][0]);
  const json before = Call("DescribeTrainingPlan", {{"TrainingPlanName", "p"}});
  const json offering = Call("SearchTrainingPlanOfferings",
                             {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"][0];
  const json extended =
      Call("ExtendTrainingPlan",
           {{"TrainingPlanExtensionOfferingId", offering["TrainingPlanExtensionOfferingId"]}});
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["Status"], "Failed");
  EXPECT_EQ(extended["TrainingPlanExtensions"][0]["PaymentStatus"], "Failed");
  const json after = Call("DescribeTrainingPlan", {{"TrainingPlanName", "p"}});
  EXPECT_EQ(after["EndTime"], before["EndTime"]);
  EXPECT_EQ(after["UpfrontFee"], before["UpfrontFee"]);
  EXPECT_EQ(after["Status"], "Active");
  EXPECT_FALSE(Call("SearchTrainingPlanOfferings",
                    {{"TrainingPlanArn", arn}})["TrainingPlanExtensionOfferings"]
                   .empty());  // a failed extension is not pending: the plan can be extended
}

}  // namespace
}  // namespace smemu::testing

namespace smemu::testing {
namespace {

// A no_capacity rule: the matched resource's next provisioning finds no on-demand capacity of the
// instance types it names, and fails as it would for a real shortage, with the service's texts.
class NoCapacityTest : public FaultsTest {
 protected:
  void Endpoint(const std::string& name, const json& variant) {
    Call("CreateEndpointConfig", {{"EndpointConfigName", name}, {"ProductionVariants", {variant}}});
    Call("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
  }
  json Described(const std::string& name) {
    return Call("DescribeEndpoint", {{"EndpointName", name}});
  }
  void SetUp() override {
    Call("CreateModel", {{"ModelName", "m"},
                         {"PrimaryContainer", {{"Image", "img:1"}}},
                         {"ExecutionRoleArn", "arn:aws:iam::123456789012:role/r"}});
  }
};

TEST_F(NoCapacityTest, AnEndpointFailsForCapacityOnceThenProvisions) {
  AddRules({{"operation", "CreateEndpoint"},
            {"resource", "e-*"},
            {"times", 1},
            {"no_capacity", json::object()}});
  const json variant = {{"VariantName", "AllTraffic"},
                        {"ModelName", "m"},
                        {"InstanceType", "ml.g5.xlarge"},
                        {"InitialInstanceCount", 1}};
  Endpoint("e-1", variant);
  const json failed = Described("e-1");
  EXPECT_EQ(failed["EndpointStatus"], "Failed");
  EXPECT_EQ(failed["FailureReason"],
            "Unable to provision requested ML compute capacity due to InsufficientInstanceCapacity "
            "error. Please retry using a different ML instance type or after some time.");
  Endpoint("e-2", variant);  // the rule fired its one time
  EXPECT_EQ(Described("e-2")["EndpointStatus"], "InService");
  Endpoint("other", variant);
  EXPECT_EQ(Described("other")["EndpointStatus"], "InService");
  EXPECT_EQ(Rules()[0]["matched"], 2);
}

// "an endpoint whose first pool fails to provision while InstancePools falls back to the next"
TEST_F(NoCapacityTest, AVariantWithInstancePoolsFallsBackToItsNextPool) {
  AddRules({{"operation", "CreateEndpoint"}, {"no_capacity", {{"instance_type", "ml.p5.*"}}}});
  Endpoint("pooled", {{"VariantName", "AllTraffic"},
                      {"ModelName", "m"},
                      {"InitialInstanceCount", 1},
                      {"InstancePools",
                       {{{"InstanceType", "ml.p5.48xlarge"}, {"Priority", 1}},
                        {{"InstanceType", "ml.g5.xlarge"}, {"Priority", 2}}}}});
  const json endpoint = Described("pooled");
  EXPECT_EQ(endpoint["EndpointStatus"], "InService");
  EXPECT_EQ(endpoint["ProductionVariants"][0]["InstancePools"],
            json::parse(R"([{"InstanceType":"ml.p5.48xlarge","CurrentInstanceCount":0},
                            {"InstanceType":"ml.g5.xlarge","CurrentInstanceCount":1}])"));
}

TEST_F(NoCapacityTest, AClusterFailsAndAJobFailsWithACapacityError) {
  AddRules({{"rules",
             {{{"operation", "CreateCluster"}, {"no_capacity", json::object()}},
              {{"operation", "CreateTrainingJob"},
               {"resource", "train"},
               {"no_capacity", {{"instance_type", "ml.g5.*"}}}}}}});
  Call("CreateCluster",
       {{"ClusterName", "c"},
        {"InstanceGroups",
         {{{"InstanceGroupName", "g"},
           {"InstanceType", "ml.g5.xlarge"},
           {"InstanceCount", 1},
           {"ExecutionRole", "arn:aws:iam::123456789012:role/r"},
           {"LifeCycleConfig", {{"SourceS3Uri", "s3://b/l"}, {"OnCreate", "on_create.sh"}}}}}}});
  const json cluster = Call("DescribeCluster", {{"ClusterName", "c"}});
  EXPECT_EQ(cluster["ClusterStatus"], "Failed");
  EXPECT_EQ(cluster["FailureMessage"],
            "We currently do not have sufficient capacity for the requested instance type(s). "
            "Please try again.");
  json job = {
      {"TrainingJobName", "train"},
      {"RoleArn", "arn:aws:iam::123456789012:role/r"},
      {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
      {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
      {"ResourceConfig",
       {{"InstanceType", "ml.g5.xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}}},
      {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}}};
  Call("CreateTrainingJob", job);
  const json failed = Call("DescribeTrainingJob", {{"TrainingJobName", "train"}});
  EXPECT_EQ(failed["TrainingJobStatus"], "Failed");
  EXPECT_THAT(failed["FailureReason"].get<std::string>(),
              ::testing::StartsWith("InsufficientCapacityError: Unable to provision requested ML "
                                    "compute capacity."));
  job["TrainingJobName"] = "other";
  Call("CreateTrainingJob", job);
  EXPECT_EQ(Call("DescribeTrainingJob", {{"TrainingJobName", "other"}})["TrainingJobStatus"],
            "InProgress");
}

// A model_error rule: an invocation gets the ModelError the service sends when the model
// container answers with an error status, or never answers.
TEST_F(NoCapacityTest, AnInvocationGetsTheModelErrorOfAFailedOrSilentContainer) {
  Endpoint("e", {{"VariantName", "AllTraffic"},
                 {"ModelName", "m"},
                 {"InstanceType", "ml.g5.xlarge"},
                 {"InitialInstanceCount", 1}});
  AddRules({{"id", "overloaded"},
            {"resource", "e"},
            {"times", 1},
            {"model_error", {{"status", 503}, {"body", "overloaded"}}}});
  auto invoke = [this] {
    return router_->Handle({"POST", "/endpoints/e/invocations", {{"Authorization", kAuth}}, "x"});
  };
  const protocol::HttpResponse failed = invoke();
  EXPECT_EQ(failed.status, 424);
  const json body = json::parse(failed.body);
  EXPECT_EQ(body["__type"], "ModelError");
  EXPECT_EQ(body["OriginalStatusCode"], 503);
  EXPECT_EQ(body["OriginalMessage"], "overloaded");
  EXPECT_THAT(body["message"].get<std::string>(),
              ::testing::StartsWith(
                  "Received server error (503) from primary with message \"overloaded\". See "
                  "https://us-west-2.console.aws.amazon.com/cloudwatch/home?region=us-west-2"));
  EXPECT_EQ(invoke().status, 200);  // the rule fired its one time
  AddRules({{"resource", "e"}, {"model_error", {{"timeout", true}}}});
  const json silent = json::parse(invoke().body);
  EXPECT_EQ(silent["OriginalStatusCode"], 0);
  EXPECT_THAT(silent["message"].get<std::string>(),
              ::testing::StartsWith("Received server error (0) from primary with message"));
}

// A job_failure rule: the matched job, once created, fails that far into its run with the rule's
// FailureReason ("the SageMaker Python SDK turns a CapacityError: prefix into its own exception").
TEST_F(NoCapacityTest, AJobFailsAtAPointOfItsRunWithTheGivenReason) {
  AddRules({{"operation", "CreateTrainingJob"},
            {"resource", "doomed"},
            {"job_failure",
             {{"after_seconds", 300},
              {"failure_reason", "CapacityError: Insufficient capacity to continue."}}}});
  json job = {
      {"TrainingJobName", "doomed"},
      {"RoleArn", "arn:aws:iam::123456789012:role/r"},
      {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
      {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
      {"ResourceConfig",
       {{"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}}},
      {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}},
      {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", "1000"}}}};
  Call("CreateTrainingJob", job);
  Advance(299);
  EXPECT_EQ(Call("DescribeTrainingJob", {{"TrainingJobName", "doomed"}})["TrainingJobStatus"],
            "InProgress");
  Advance(1);
  const json failed = Call("DescribeTrainingJob", {{"TrainingJobName", "doomed"}});
  EXPECT_EQ(failed["TrainingJobStatus"], "Failed");
  EXPECT_EQ(failed["SecondaryStatus"], "Failed");
  EXPECT_EQ(failed["FailureReason"], "CapacityError: Insufficient capacity to continue.");
  EXPECT_EQ(failed["TrainingTimeInSeconds"], 300);
  job["TrainingJobName"] = "fine";
  Call("CreateTrainingJob", job);
  Advance(1000);
  EXPECT_EQ(Call("DescribeTrainingJob", {{"TrainingJobName", "fine"}})["TrainingJobStatus"],
            "Completed");
}

}  // namespace
}  // namespace smemu::testing
