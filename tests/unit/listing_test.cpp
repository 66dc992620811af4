// The listing engine, through every List operation: for every SortBy, both orders, every
// MaxResults from 1 to past the end, with and without filters, over data full of ties (a frozen
// clock gives equal creation times; statuses repeat), paging must yield exactly the sorted,
// filtered set: no gaps, no repeats, a new token on every page and none after the last.
#include "ops/listing.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "ops/wire_values.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;

// Room for many plans starting at the same moment.
constexpr const char* kListingCapacity = R"({
  "regions": {"us-west-2": {
    "us-west-2a": {"ml.p5.48xlarge": {"reservable": 20, "on_demand": 1}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0}}})";

// Names in mixed case: the name sort and NameContains ignore case.
const std::vector<std::string> kNames = {"Zeta",      "alpha-a", "Bravo", "charlie-1",
                                         "charlie-2", "DELTA",   "echo"};

// One List operation as the test sees it: where the items, names and sort values are.
struct ListOperation {
  std::string operation;
  std::string list_member;
  std::string name_member;
  std::string status_member;  // empty: the summaries carry no status
  std::string time_member;    // the time sort key's member: CreationTime or StartTime
  std::vector<std::string> sort_keys;
};

const std::vector<ListOperation> kListOperations = {
    {"ListModels", "Models", "ModelName", "", "CreationTime", {"Name", "CreationTime"}},
    {"ListEndpointConfigs",
     "EndpointConfigs",
     "EndpointConfigName",
     "",
     "CreationTime",
     {"Name", "CreationTime"}},
    {"ListEndpoints",
     "Endpoints",
     "EndpointName",
     "EndpointStatus",
     "CreationTime",
     {"Name", "CreationTime", "Status"}},
    {"ListTrainingJobs",
     "TrainingJobSummaries",
     "TrainingJobName",
     "TrainingJobStatus",
     "CreationTime",
     {"Name", "CreationTime", "Status"}},
    {"ListProcessingJobs",
     "ProcessingJobSummaries",
     "ProcessingJobName",
     "ProcessingJobStatus",
     "CreationTime",
     {"Name", "CreationTime", "Status"}},
    {"ListTrainingPlans",
     "TrainingPlanSummaries",
     "TrainingPlanName",
     "Status",
     "StartTime",
     {"TrainingPlanName", "StartTime", "Status"}},
};

std::string Lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

class ListingTest : public EmulatorFixture {
 protected:
  ListingTest() {
    router_.reset();
    emulator_.reset();
    capacity_ = kListingCapacity;
    Open();
  }

  // Seven resources of every kind, created in three groups with equal times inside each group,
  // with repeated statuses.
  void CreateEverything() {
    const std::vector<int> group = {0, 0, 0, 1, 1, 2, 2};  // creation time: + group seconds
    for (size_t i = 0; i < kNames.size(); ++i) {
      if (i > 0 && group[i] != group[i - 1]) Advance(1);
      const std::string& name = kNames[i];
      Call("CreateModel", {{"ModelName", name}});
      Call("CreateEndpointConfig",
           {{"EndpointConfigName", name},
            {"ProductionVariants",
             {{{"VariantName", "v"},
               {"ModelName", name},
               // The one on-demand ml.p5.48xlarge goes to the first; the next two fail.
               {"InstanceType", i < 3 ? "ml.p5.48xlarge" : "ml.m5.xlarge"},
               {"InitialInstanceCount", 1}}}}});
      Call("CreateEndpoint", {{"EndpointName", name}, {"EndpointConfigName", name}});
      Call("CreateTrainingJob", TrainingJob(name, i % 3 == 0 ? 1 : 100000));
      Call("CreateProcessingJob", ProcessingJob(name, i % 3 == 0 ? 1 : 100000));
      if (i % 3 == 1) {
        Call("StopTrainingJob", {{"TrainingJobName", name}});
        Call("StopProcessingJob", {{"ProcessingJobName", name}});
      }
      BuyPlan(name, kStartSeconds + group[i] * 3 * kDay);
    }
    // The short jobs complete, and the first plans (bought to start at once) start: 30 minutes.
    Advance(1800);
  }

  static json TrainingJob(const std::string& name, int run_seconds) {
    return {{"TrainingJobName", name},
            {"RoleArn", "arn:aws:iam::123456789012:role/r"},
            {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
            {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
            {"ResourceConfig",
             {{"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}}},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 200000}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
  }

  static json ProcessingJob(const std::string& name, int run_seconds) {
    return {{"ProcessingJobName", name},
            {"RoleArn", "arn:aws:iam::123456789012:role/r"},
            {"AppSpecification", {{"ImageUri", "img:1"}}},
            {"ProcessingResources",
             {{"ClusterConfig",
               {{"VolumeSizeInGB", 30}, {"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}}}}},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 200000}}},
            {"Environment", {{"SAGEMAKER_EMULATOR_RUN_SECONDS", std::to_string(run_seconds)}}}};
  }

  void BuyPlan(const std::string& name, long long start_after) {
    const json offerings = Search(1, 1, start_after, start_after + 10 * kDay);
    ASSERT_FALSE(offerings["TrainingPlanOfferings"].empty()) << offerings;
    Call("CreateTrainingPlan", {{"TrainingPlanName", name},
                                {"TrainingPlanOfferingId",
                                 offerings["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]}});
  }

  // Every page of a listing, in order; checks the tokens as a paginator does.
  std::vector<json> PageThrough(const ListOperation& op, json request) {
    std::vector<json> items;
    std::set<std::string> tokens;
    for (int page = 0; page < 100; ++page) {
      const json answer = Call(op.operation, request);
      for (const json& item : answer[op.list_member]) items.push_back(item);
      if (!answer.contains("NextToken")) return items;
      const std::string token = answer["NextToken"];
      EXPECT_FALSE(token.empty());
      EXPECT_TRUE(tokens.insert(token).second) << op.operation << ": a token came back twice";
      request["NextToken"] = token;
    }
    ADD_FAILURE() << op.operation << " never ended";
    return items;
  }

  static std::vector<std::string> NamesOf(const ListOperation& op, const std::vector<json>& items) {
    std::vector<std::string> names;
    for (const json& item : items) names.push_back(item[op.name_member]);
    return names;
  }
};

// The value an item sorts by, as the test computes it from the summary itself.
json SortValueOf(const ListOperation& op, const json& item, const std::string& sort_key) {
  if (sort_key == "Name" || sort_key == "TrainingPlanName") {
    return Lower(item[op.name_member].get<std::string>());
  }
  if (sort_key == "Status") return item[op.status_member];
  return item[op.time_member];
}

// What a listing must yield: `all` filtered, then sorted by (value, lower-cased name).
std::vector<std::string> Expected(const ListOperation& op, std::vector<json> all,
                                  const std::string& sort_key, bool descending,
                                  const std::function<bool(const json&)>& keep) {
  std::erase_if(all, [&](const json& item) { return !keep(item); });
  std::stable_sort(all.begin(), all.end(), [&](const json& a, const json& b) {
    const auto ka = std::make_pair(SortValueOf(op, a, sort_key), Lower(a[op.name_member]));
    const auto kb = std::make_pair(SortValueOf(op, b, sort_key), Lower(b[op.name_member]));
    return descending ? kb < ka : ka < kb;
  });
  std::vector<std::string> names;
  for (const json& item : all) names.push_back(item[op.name_member]);
  return names;
}

TEST_F(ListingTest, EveryListOperationPagesThroughExactlyTheSortedFilteredSet) {
  CreateEverything();
  int listings = 0;
  for (const ListOperation& op : kListOperations) {
    SCOPED_TRACE(op.operation);
    const std::vector<json> all = PageThrough(op, {{"MaxResults", 100}});
    ASSERT_EQ(NamesOf(op, all).size(), kNames.size());
    EXPECT_THAT(NamesOf(op, all), ::testing::UnorderedElementsAreArray(kNames));
    std::set<std::string> statuses;
    for (const json& item : all) {
      if (!op.status_member.empty()) statuses.insert(item[op.status_member].get<std::string>());
    }
    if (!op.status_member.empty()) {
      EXPECT_GE(statuses.size(), 2u) << "the data must mix statuses";
      EXPECT_LT(statuses.size(), kNames.size()) << "the data must repeat statuses";
    }

    // Each filter the operation has, with the predicate it must amount to.
    struct Filter {
      json request;
      std::function<bool(const json&)> keep;
    };
    std::vector<Filter> filters = {{json::object(), [](const json&) { return true; }}};
    if (op.operation != "ListTrainingPlans") {
      filters.push_back({{{"NameContains", "A"}}, [&](const json& item) {
                           return Lower(item[op.name_member]).find('a') != std::string::npos;
                         }});
    }
    if (!op.status_member.empty()) {
      const std::string status = all.front()[op.status_member];
      json request = op.operation == "ListTrainingPlans"
                         ? json{{"Filters", {{{"Name", "Status"}, {"Value", status}}}}}
                         : json{{"StatusEquals", status}};
      filters.push_back(
          {request, [&op, status](const json& item) { return item[op.status_member] == status; }});
    }

    for (const std::string& sort_key : op.sort_keys) {
      for (const bool descending : {false, true}) {
        for (const Filter& filter : filters) {
          const auto expected = Expected(op, all, sort_key, descending, filter.keep);
          for (int max_results = 1; max_results <= static_cast<int>(kNames.size()) + 1;
               ++max_results) {
            json request = filter.request;
            request["SortBy"] = sort_key;
            request["SortOrder"] = descending ? "Descending" : "Ascending";
            request["MaxResults"] = max_results;
            EXPECT_EQ(NamesOf(op, PageThrough(op, request)), expected)
                << "SortBy " << sort_key << (descending ? " descending" : " ascending")
                << ", MaxResults " << max_results << ", filter " << filter.request;
            ++listings;
          }
        }
      }
    }
  }
  EXPECT_GT(listings, 500);
}

TEST_F(ListingTest, DefaultsFollowEachOperationsModel) {
  CreateEverything();
  // Newest first, as the model documents (ListTrainingJobs: see docs/emulated.md, Known
  // differences); ListProcessingJobs' model says Ascending; plans list by start time, earliest
  // first.
  for (const ListOperation& op : kListOperations) {
    SCOPED_TRACE(op.operation);
    const bool ascending =
        op.operation == "ListProcessingJobs" || op.operation == "ListTrainingPlans";
    const std::vector<json> all = PageThrough(op, json::object());
    const std::string time_key = op.operation == "ListTrainingPlans" ? "StartTime" : "CreationTime";
    EXPECT_EQ(NamesOf(op, all),
              Expected(op, all, time_key, !ascending, [](const json&) { return true; }));
  }
  // Ten a page by default.
  for (int i = 0; i < 12; ++i) Call("CreateModel", {{"ModelName", "more-" + std::to_string(i)}});
  const json first = Call("ListModels", json::object());
  EXPECT_EQ(first["Models"].size(), 10u);
  EXPECT_TRUE(first.contains("NextToken"));
}

// AWS documents it: with StatusEquals and MaxResults both set, ListTrainingJobs takes MaxResults
// jobs first, ignoring StatusEquals, and then filters them; a page may be short or empty.
TEST_F(ListingTest, ListTrainingJobsTakesMaxResultsBeforeFilteringByStatus) {
  CreateEverything();
  // By name; the statuses are those CreateEverything leaves (completed, stopped, running).
  const json all = Call("ListTrainingJobs", {{"MaxResults", 100}, {"SortBy", "Name"}});
  int in_progress_in_first_two = 0;
  for (int i = 0; i < 2; ++i) {
    in_progress_in_first_two += all["TrainingJobSummaries"][i]["TrainingJobStatus"] == "InProgress";
  }
  const json page = Call("ListTrainingJobs",
                         {{"MaxResults", 2}, {"SortBy", "Name"}, {"StatusEquals", "InProgress"}});
  EXPECT_EQ(static_cast<int>(page["TrainingJobSummaries"].size()), in_progress_in_first_two);
  EXPECT_TRUE(page.contains("NextToken"));
  for (const json& job : page["TrainingJobSummaries"]) {
    EXPECT_EQ(job["TrainingJobStatus"], "InProgress");
  }
  // Without MaxResults, the filter comes first, as for every other listing.
  int in_progress = 0;
  for (const json& job : all["TrainingJobSummaries"]) {
    in_progress += job["TrainingJobStatus"] == "InProgress";
  }
  ASSERT_GE(in_progress, 2);
  const json filtered = Call("ListTrainingJobs", {{"StatusEquals", "InProgress"}});
  EXPECT_EQ(static_cast<int>(filtered["TrainingJobSummaries"].size()), in_progress);
  // ListProcessingJobs has no such rule.
  const json processing =
      Call("ListProcessingJobs",
           {{"MaxResults", 2}, {"SortBy", "Name"}, {"StatusEquals", "InProgress"}});
  EXPECT_EQ(processing["ProcessingJobSummaries"].size(), 2u);
}

// TrainingPlanArnEquals is not a column: the engine filters before cutting pages, so a page of one
// finds the one job on the plan however many others sort before it.
TEST_F(ListingTest, TrainingPlanArnEqualsFiltersBeforePaging) {
  CreateEverything();
  const json offerings =
      Call("SearchTrainingPlanOfferings", {{"InstanceType", "ml.p5.48xlarge"},
                                           {"InstanceCount", 1},
                                           {"DurationHours", 24},
                                           {"StartTimeAfter", kStartSeconds},
                                           {"EndTimeBefore", kStartSeconds + 10 * kDay},
                                           {"TargetResources", {"training-job"}}});
  const std::string plan =
      Call("CreateTrainingPlan",
           {{"TrainingPlanName", "for-training"},
            {"TrainingPlanOfferingId",
             offerings["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  json job = TrainingJob("a-on-plan", 100);  // sorts first by name, ascending
  job["ResourceConfig"]["InstanceType"] = "ml.p5.48xlarge";
  job["ResourceConfig"]["TrainingPlanArn"] = plan;
  Call("CreateTrainingJob", job);
  for (const bool descending : {false, true}) {
    const json page =
        Call("ListTrainingJobs", {{"TrainingPlanArnEquals", plan},
                                  {"MaxResults", 1},
                                  {"SortBy", "Name"},
                                  {"SortOrder", descending ? "Descending" : "Ascending"}});
    ASSERT_EQ(page["TrainingJobSummaries"].size(), 1u) << page;
    EXPECT_EQ(page["TrainingJobSummaries"][0]["TrainingJobName"], "a-on-plan");
    EXPECT_EQ(page["TrainingJobSummaries"][0]["TrainingPlanArn"], plan);
    EXPECT_FALSE(page.contains("NextToken"));
  }
}

// A token is a position: items added or removed between pages neither repeat nor vanish.
// A page may be written after the emulator's lock is released (Answer::WrittenLater): what it
// shows must be what was listed, whatever changes before it is written.
TEST_F(ListingTest, AnAnswerShowsWhatWasListedWhenItIsWrittenAfterChanges) {
  CreateEverything();
  const ops::Caller caller{kAccount, kRegion, "listing-test"};
  const json request = {{"MaxResults", 100}};
  std::vector<std::pair<json, ops::Answer>> listed;  // the answer at once, and one held back
  for (const ListOperation& op : kListOperations) {
    auto held = emulator_->Invoke(op.operation, request, caller);
    ASSERT_TRUE(held.ok()) << op.operation;
    listed.emplace_back(Call(op.operation, request), std::move(*held));
  }
  // Everything moves: statuses follow a later clock, and half the resources go.
  Advance(40 * kDay);
  for (size_t i = 0; i < kNames.size(); i += 2) {
    Call("DeleteEndpoint", {{"EndpointName", kNames[i]}});
    Call("DeleteEndpointConfig", {{"EndpointConfigName", kNames[i]}});
    Call("DeleteModel", {{"ModelName", kNames[i]}});
  }
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(listed[i].second.Tree(), listed[i].first) << kListOperations[i].operation;
    EXPECT_NE(Call(kListOperations[i].operation, request), listed[i].first)
        << kListOperations[i].operation << ": the changes must show in a new listing";
  }
}

TEST_F(ListingTest, PagesStayExactWhenItemsComeAndGoBetweenThem) {
  for (const char* name : {"b", "d", "f", "h", "j"}) Call("CreateModel", {{"ModelName", name}});
  json request = {{"SortBy", "Name"}, {"SortOrder", "Ascending"}, {"MaxResults", 2}};
  const json first = Call("ListModels", request);
  ASSERT_EQ(first["Models"].size(), 2u);      // b, d
  Call("DeleteModel", {{"ModelName", "d"}});  // shown already
  Call("DeleteModel", {{"ModelName", "h"}});  // not yet shown
  Call("CreateModel", {{"ModelName", "a"}});  // before the position: not shown
  Call("CreateModel", {{"ModelName", "g"}});  // after it: shown
  std::vector<std::string> rest;
  request["NextToken"] = first["NextToken"];
  while (true) {
    const json page = Call("ListModels", request);
    for (const json& model : page["Models"]) rest.push_back(model["ModelName"]);
    if (!page.contains("NextToken")) break;
    request["NextToken"] = page["NextToken"];
  }
  EXPECT_EQ(rest, (std::vector<std::string>{"f", "g", "j"}));
}

TEST_F(ListingTest, ATokenOnlyContinuesItsOwnListing) {
  for (const char* name : {"a", "b", "c"}) Call("CreateModel", {{"ModelName", name}});
  const std::string token = Call("ListModels", {{"MaxResults", 1}})["NextToken"];
  const std::string invalid = "Invalid pagination token because of a malformed NextToken.";
  EXPECT_EQ(Call("ListEndpointConfigs", {{"NextToken", token}}, 400)["message"], invalid);
  EXPECT_EQ(Call("ListModels", {{"NextToken", token}, {"SortBy", "Name"}}, 400)["message"],
            invalid);
  EXPECT_EQ(Call("ListModels", {{"NextToken", token}, {"SortOrder", "Ascending"}}, 400)["message"],
            invalid);
  EXPECT_EQ(Call("ListModels", {{"NextToken", "not base64!"}}, 400)["__type"],
            "ValidationException");
  EXPECT_EQ(Call("ListModels", {{"NextToken", "e30="}}, 400)["message"], invalid);  // "{}"
  EXPECT_EQ(Call("ListModels", {{"NextToken", token}})["Models"].size(), 2u);
}

// ---- The engine itself, without a router: an in-memory source of items at known positions.

const ops::ListSpec kThings{"ListThings", {{"Position", std::nullopt, /*numeric=*/true}}, false, 3};

std::vector<ops::Positioned<std::string>> Things(int n) {  // positions 0, 2, 4, ...
  std::vector<ops::Positioned<std::string>> things;
  for (int i = 0; i < n; ++i) {
    things.push_back({{int64_t{i * 2}, "k" + std::to_string(i)}, "k" + std::to_string(i)});
  }
  return things;
}

// Every page of `things` through ReadListRequest and Paginate, as a client pages.
std::vector<std::vector<std::string>> EnginePages(
    const std::vector<ops::Positioned<std::string>>& things, json request,
    const ops::Filters<std::string>& filters = {}) {
  std::vector<std::vector<std::string>> pages;
  for (int guard = 0; guard < 20; ++guard) {
    auto read = ops::ReadListRequest(request, kThings);
    EXPECT_TRUE(read.ok());
    if (!read.ok()) break;
    auto page =
        ops::Paginate<std::string>(kThings, *read, ops::InMemorySource(things, false), filters);
    pages.push_back(page.items);
    if (!page.next_token) break;
    request["NextToken"] = *page.next_token;
  }
  return pages;
}

using Pages = std::vector<std::vector<std::string>>;

TEST(ListingEngine, PagesWalkEveryItemOnceInOrderWithTheDefaultPageSize) {
  EXPECT_EQ(EnginePages(Things(7), json::object()),
            (Pages{{"k0", "k1", "k2"}, {"k3", "k4", "k5"}, {"k6"}}));
  EXPECT_EQ(EnginePages(Things(3), json::object()), (Pages{{"k0", "k1", "k2"}}))
      << "an exact fit has no token";
  EXPECT_EQ(EnginePages({}, json::object()), (Pages{{}})) << "nothing is one empty page";
  EXPECT_EQ(EnginePages(Things(3), {{"MaxResults", 2}}), (Pages{{"k0", "k1"}, {"k2"}}));
}

TEST(ListingEngine, ATokenContinuesAfterItsPlaceEvenWhenThatItemIsGone) {
  auto things = Things(5);
  auto first =
      ops::Paginate<std::string>(kThings, *ops::ReadListRequest({{"MaxResults", 2}}, kThings),
                                 ops::InMemorySource(things, false));
  ASSERT_TRUE(first.next_token);
  things.erase(things.begin() + 1);                // k1, the page's last item, is deleted meanwhile
  things.push_back({{int64_t{1}, "new"}, "new"});  // added before the place: not shown
  auto rest = ops::ReadListRequest({{"MaxResults", 2}, {"NextToken", *first.next_token}}, kThings);
  ASSERT_TRUE(rest.ok());
  auto page = ops::Paginate<std::string>(kThings, *rest, ops::InMemorySource(things, false));
  EXPECT_EQ(page.items, (std::vector<std::string>{"k2", "k3"}));
  EXPECT_TRUE(page.next_token);
}

TEST(ListingEngine, TheTiebreakOrdersEqualValues) {
  const std::vector<ops::Positioned<std::string>> tied = {
      {{int64_t{1}, "c"}, "c"}, {{int64_t{1}, "a"}, "a"}, {{int64_t{1}, "b"}, "b"}};
  EXPECT_EQ(EnginePages(tied, {{"MaxResults", 1}}), (Pages{{"a"}, {"b"}, {"c"}}));
}

TEST(ListingEngine, FiltersBeforePagingFillPagesAndFiltersAfterPagingShortenThem) {
  const auto odd = [](const std::string& item) { return (item.back() - '0') % 2 == 1; };
  EXPECT_EQ(EnginePages(Things(10), {{"MaxResults", 2}}, {odd, {}}),
            (Pages{{"k1", "k3"}, {"k5", "k7"}, {"k9"}}));
  EXPECT_EQ(EnginePages(Things(6), {{"MaxResults", 2}}, {{}, odd}),
            (Pages{{"k1"}, {"k3"}, {"k5"}}));
  EXPECT_EQ(
      EnginePages(Things(5), {{"MaxResults", 2}}, {{}, [](const std::string&) { return false; }}),
      (Pages{{}, {}, {}}))
      << "empty pages still carry a token until the listing ends";
  // A filter that passes nothing before paging gives one empty page, however long the listing.
  EXPECT_EQ(
      EnginePages(Things(200), {{"MaxResults", 2}}, {[](const std::string&) { return false; }, {}}),
      (Pages{{}}));
}

TEST(ListingEngine, ForeignTokensAreMalformed) {
  const std::string malformed = "Invalid pagination token because of a malformed NextToken.";
  for (
      const std::string& token :
      {std::string("%%%"), ops::Base64Encode("{"), ops::Base64Encode("{}"),
       ops::Base64Encode(
           R"({"op":"ListThings","sort":"Position","descending":false,"value":1.5,"tiebreak":"a"})"),
       ops::Base64Encode(
           R"({"op":"ListThings","sort":"Position","descending":false,"value":"1","tiebreak":"a"})"),
       ops::Base64Encode(
           R"({"op":"ListThings","sort":"Position","descending":false,"value":1,"tiebreak":2})"),
       ops::Base64Encode(
           R"({"op":"ListOther","sort":"Position","descending":false,"value":1,"tiebreak":"a"})"),
       ops::Base64Encode(
           R"({"op":"ListThings","sort":"Position","descending":true,"value":1,"tiebreak":"a"})"),
       // Members of the wrong JSON type are malformed too, not an internal error.
       ops::Base64Encode(
           R"({"op":1,"sort":"Position","descending":false,"value":1,"tiebreak":"a"})"),
       ops::Base64Encode(
           R"({"op":"ListThings","sort":[],"descending":false,"value":1,"tiebreak":"a"})"),
       ops::Base64Encode(
           R"({"op":"ListThings","sort":"Position","descending":"no","value":1,"tiebreak":"a"})"),
       ops::Base64Encode("[1,2]"), ops::Base64Encode("null")}) {
    SCOPED_TRACE(token);
    auto read = ops::ReadListRequest({{"NextToken", token}}, kThings);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.error(), domain::ValidationException(malformed));
  }
  EXPECT_TRUE(
      ops::ReadListRequest(
          {{"NextToken", ops::Base64Encode(R"({"op":"ListThings","sort":"Position",)"
                                           R"("descending":false,"value":1,"tiebreak":"a"})")}},
          kThings)
          .ok());
}

}  // namespace
}  // namespace smemu
