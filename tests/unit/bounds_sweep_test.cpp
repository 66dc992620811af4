// A deterministic sweep of every served operation with values at and past each member's bounds in
// the model: strings at their maximum length, one past it and far past it (or long, where the
// model sets no maximum), lists and maps one entry past theirs, numbers just inside and outside
// their range. Each value replaces one member of a valid request to an operation (so that the
// handlers, not only the validator, see values at the bounds), one at a time, at every depth.
//
// Every answer must be a 2xx or a 4xx: the router checks each against the model
// (RouterConfig::check_responses), so a message longer than its error shape allows is a 500 that
// names it. And no message may quote a sent value at more than domain::kExcerptCharacters
// characters: a place that builds a message from input without domain::Excerpt() fails here even
// where the message stays within its shape.
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "domain/aws_error.hpp"
#include "emulator_fixture.hpp"

namespace smemu {
namespace {

using apimodel::Shape;
using nlohmann::json;
using testing::kRole;
using testing::kStartSeconds;
using Type = Shape::Type;

constexpr const char* kSweepCapacity = R"({
  "regions": {"us-west-2": {"us-west-2a": {
    "ml.p5.48xlarge": {"reservable": 4, "on_demand": 2},
    "ml.m5.xlarge": {"reservable": 0, "on_demand": 16},
    "ml.m5.large": {"reservable": 0, "on_demand": 16}}}},
  "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32, "plan_hourly": 55.0},
             "ml.m5.xlarge": {"on_demand_hourly": 0.23, "plan_hourly": 0.2},
             "ml.m5.large": {"on_demand_hourly": 0.115, "plan_hourly": 0.1}}})";

// The character every swept string is made of: a message quoting one shows a run of it.
constexpr char kFill = 'a';
// A byte that begins no UTF-8 sequence (a continuation byte alone).
constexpr char kNotUtf8 = '\xAD';
// Far past any bound, still well within the 1 MiB request limit.
constexpr std::size_t kFarPast = 20000;
constexpr int kMaxDepth = 7;

// What the seeded world holds, for the base requests to refer to.
struct World {
  std::string endpoint_plan;
  std::string cluster_plan;
  std::string reserved_capacity;
  std::string offering;
  std::string extension_offering;
  std::string node;
  std::string endpoint_arn;
};

class BoundsSweep : public testing::EmulatorFixture {
 protected:
  BoundsSweep() {
    router_.reset();
    emulator_.reset();
    capacity_ = kSweepCapacity;
    Open();
  }

  std::string BuyPlan(const std::string& name, const std::string& target) {
    const json offerings = Call("SearchTrainingPlanOfferings",
                                {{"InstanceType", "ml.p5.48xlarge"},
                                 {"InstanceCount", 1},
                                 {"DurationHours", 7 * 24},
                                 {"StartTimeAfter", kStartSeconds},
                                 {"TargetResources", {target}}})["TrainingPlanOfferings"];
    return Call(
        "CreateTrainingPlan",
        {{"TrainingPlanName", name},
         {"TrainingPlanOfferingId", offerings[0]["TrainingPlanOfferingId"]}})["TrainingPlanArn"];
  }

  static json Group(const std::string& name) {
    return {{"InstanceGroupName", name},
            {"InstanceType", "ml.m5.xlarge"},
            {"InstanceCount", 1},
            {"ExecutionRole", kRole},
            {"LifeCycleConfig", {{"SourceS3Uri", "s3://bucket/lc"}, {"OnCreate", "on_create.sh"}}}};
  }

  static json Variant() {
    return {{"VariantName", "v"},
            {"ModelName", "m"},
            {"InstanceType", "ml.m5.large"},
            {"InitialInstanceCount", 1}};
  }

  static json TrainingJob(const std::string& name) {
    return {{"TrainingJobName", name},
            {"RoleArn", kRole},
            {"AlgorithmSpecification", {{"TrainingImage", "img:1"}, {"TrainingInputMode", "File"}}},
            {"OutputDataConfig", {{"S3OutputPath", "s3://bucket/out"}}},
            {"ResourceConfig",
             {{"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}, {"VolumeSizeInGB", 50}}},
            {"StoppingCondition", {{"MaxRuntimeInSeconds", 3600}}}};
  }

  static json ProcessingJob(const std::string& name) {
    return {{"ProcessingJobName", name},
            {"RoleArn", kRole},
            {"AppSpecification", {{"ImageUri", "img:1"}}},
            {"ProcessingResources",
             {{"ClusterConfig",
               {{"VolumeSizeInGB", 30}, {"InstanceType", "ml.m5.xlarge"}, {"InstanceCount", 1}}}}}};
  }

  World Seed() {
    World world;
    world.endpoint_plan = BuyPlan("plan", "endpoint");
    world.cluster_plan = BuyPlan("hp-plan", "hyperpod-cluster");
    world.reserved_capacity =
        Call("DescribeTrainingPlan",
             {{"TrainingPlanName", "plan"}})["ReservedCapacitySummaries"][0]["ReservedCapacityArn"];
    world.offering = Call(
        "SearchTrainingPlanOfferings",
        {{"InstanceType", "ml.p5.48xlarge"},
         {"InstanceCount", 1},
         {"DurationHours", 24},
         {"TargetResources", {"endpoint"}}})["TrainingPlanOfferings"][0]["TrainingPlanOfferingId"];
    world.extension_offering =
        Call("SearchTrainingPlanOfferings",
             {{"TrainingPlanArn", world.endpoint_plan}})["TrainingPlanExtensionOfferings"][0]
                                                        ["TrainingPlanExtensionOfferingId"];
    Call("CreateModel", {{"ModelName", "m"}, {"ExecutionRoleArn", kRole}});
    Call("CreateEndpointConfig",
         {{"EndpointConfigName", "c"}, {"ProductionVariants", json::array({Variant()})}});
    Call("CreateEndpointConfig",
         {{"EndpointConfigName", "c2"}, {"ProductionVariants", json::array({Variant()})}});
    world.endpoint_arn =
        Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "c"}})["EndpointArn"];
    Call("CreateTrainingJob", TrainingJob("tj"));
    Call("CreateProcessingJob", ProcessingJob("pj"));
    Call("CreateCluster", {{"ClusterName", "cl"}, {"InstanceGroups", json::array({Group("g")})}});
    world.node =
        Call("ListClusterNodes", {{"ClusterName", "cl"}})["ClusterNodeSummaries"][0]["InstanceId"];
    return world;
  }

  // A valid request to each served operation, on the seeded world. A served operation missing
  // here fails the sweep.
  static std::map<std::string, json> BaseRequests(const World& w) {
    const json tags = {{{"Key", "k"}, {"Value", "v"}}};
    return {
        {"CreateModel",
         {{"ModelName", "m2"},
          {"ExecutionRoleArn", kRole},
          {"PrimaryContainer", {{"Image", "img:1"}, {"Environment", {{"A", "b"}}}}},
          {"Tags", tags}}},
        {"DescribeModel", {{"ModelName", "m"}}},
        {"DeleteModel", {{"ModelName", "m"}}},
        {"ListModels", {{"NameContains", "m"}, {"MaxResults", 10}, {"SortBy", "Name"}}},
        {"SearchTrainingPlanOfferings",
         {{"InstanceType", "ml.p5.48xlarge"},
          {"InstanceCount", 1},
          {"DurationHours", 24},
          {"StartTimeAfter", kStartSeconds},
          {"EndTimeBefore", kStartSeconds + 28 * testing::kDay},
          {"TargetResources", {"endpoint"}}}},
        {"CreateTrainingPlan",
         {{"TrainingPlanName", "plan2"}, {"TrainingPlanOfferingId", w.offering}, {"Tags", tags}}},
        {"DescribeTrainingPlan", {{"TrainingPlanName", "plan"}}},
        {"ListTrainingPlans",
         {{"MaxResults", 10},
          {"StartTimeAfter", kStartSeconds},
          {"SortBy", "TrainingPlanName"},
          {"Filters", {{{"Name", "Status"}, {"Value", "Active"}}}}}},
        {"DescribeReservedCapacity", {{"ReservedCapacityArn", w.reserved_capacity}}},
        {"ExtendTrainingPlan", {{"TrainingPlanExtensionOfferingId", w.extension_offering}}},
        {"DescribeTrainingPlanExtensionHistory",
         {{"TrainingPlanArn", w.endpoint_plan}, {"MaxResults", 10}}},
        {"ListUltraServersByReservedCapacity",
         {{"ReservedCapacityArn", w.reserved_capacity}, {"MaxResults", 10}}},
        {"CreateEndpointConfig",
         {{"EndpointConfigName", "c3"},
          {"ProductionVariants",
           {{{"VariantName", "v"},
             {"ModelName", "m"},
             {"InstanceType", "ml.p5.48xlarge"},
             {"InitialInstanceCount", 1},
             {"CapacityReservationConfig",
              {{"CapacityReservationPreference", "capacity-reservations-only"},
               {"MlReservationArn", w.endpoint_plan}}}}}},
          {"Tags", tags}}},
        {"DescribeEndpointConfig", {{"EndpointConfigName", "c"}}},
        {"ListEndpointConfigs", {{"NameContains", "c"}, {"MaxResults", 10}}},
        {"DeleteEndpointConfig", {{"EndpointConfigName", "c2"}}},
        {"CreateEndpoint", {{"EndpointName", "e2"}, {"EndpointConfigName", "c"}, {"Tags", tags}}},
        {"DescribeEndpoint", {{"EndpointName", "e"}}},
        {"ListEndpoints",
         {{"NameContains", "e"}, {"MaxResults", 10}, {"StatusEquals", "InService"}}},
        {"DeleteEndpoint", {{"EndpointName", "e"}}},
        {"UpdateEndpointWeightsAndCapacities",
         {{"EndpointName", "e"},
          {"DesiredWeightsAndCapacities", {{{"VariantName", "v"}, {"DesiredInstanceCount", 2}}}}}},
        {"UpdateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "c2"}}},
        {"CreateTrainingJob", TrainingJob("tj2")},
        {"DescribeTrainingJob", {{"TrainingJobName", "tj"}}},
        {"ListTrainingJobs",
         {{"NameContains", "t"}, {"MaxResults", 10}, {"StatusEquals", "InProgress"}}},
        {"StopTrainingJob", {{"TrainingJobName", "tj"}}},
        {"CreateProcessingJob", ProcessingJob("pj2")},
        {"DescribeProcessingJob", {{"ProcessingJobName", "pj"}}},
        {"ListProcessingJobs", {{"NameContains", "p"}, {"MaxResults", 10}}},
        {"StopProcessingJob", {{"ProcessingJobName", "pj"}}},
        {"AddTags", {{"ResourceArn", w.endpoint_arn}, {"Tags", tags}}},
        {"ListTags", {{"ResourceArn", w.endpoint_arn}, {"MaxResults", 50}}},
        {"DeleteTags", {{"ResourceArn", w.endpoint_arn}, {"TagKeys", {"k"}}}},
        {"CreateCluster",
         {{"ClusterName", "cl2"}, {"InstanceGroups", json::array({Group("g")})}, {"Tags", tags}}},
        {"DescribeCluster", {{"ClusterName", "cl"}}},
        {"ListClusters", {{"NameContains", "c"}, {"MaxResults", 10}}},
        {"UpdateCluster",
         {{"ClusterName", "cl"},
          {"InstanceGroups", json::array({Group("g")})},
          {"InstanceGroupsToDelete", json::array()}}},
        {"DeleteCluster", {{"ClusterName", "cl"}}},
        {"ListClusterNodes", {{"ClusterName", "cl"}, {"MaxResults", 10}}},
        {"DescribeClusterNode", {{"ClusterName", "cl"}, {"NodeId", w.node}}},
        {"BatchDeleteClusterNodes", {{"ClusterName", "cl"}, {"NodeIds", {w.node}}}},
    };
  }

  // A string of `length` fill characters.
  static json Fill(std::size_t length) { return std::string(length, kFill); }

  // A small value of `shape`, for list entries and map values the base request does not have.
  static json Sample(const Shape& shape) {
    switch (shape.type) {
      case Type::kStructure:
        return json::object();
      case Type::kList:
        return json::array();
      case Type::kMap:
        return json::object();
      case Type::kString:
        return shape.enum_values.empty() ? Fill(1) : json(shape.enum_values.front());
      case Type::kBoolean:
        return true;
      default:
        return 1;
    }
  }

  // The values at and past the bounds of `shape` (`base`: the valid request's value, or null).
  static std::vector<json> Bounds(const Shape& shape, const json& base) {
    std::vector<json> values;
    switch (shape.type) {
      case Type::kString: {
        std::vector<std::size_t> lengths = {1000, kFarPast};
        if (shape.max && *shape.max < kFarPast) {
          const auto max = static_cast<std::size_t>(*shape.max);
          lengths = {max, max + 1, kFarPast};
        }
        for (const std::size_t length : lengths) values.push_back(Fill(length));
        // The valid value lengthened with fill characters: it still matches most patterns (an
        // ARN, a URI, a name), so at the maximum it passes validation and reaches the handler,
        // whose own messages (not found, not usable) must quote it shortened too.
        if (base.is_string() && !base.get_ref<const std::string&>().empty()) {
          const std::string& valid = base.get_ref<const std::string&>();
          for (const std::size_t length : lengths) {
            if (length > valid.size())
              values.push_back(valid + std::string(length - valid.size(), kFill));
          }
        }
        break;
      }
      case Type::kInteger:
      case Type::kLong:
      case Type::kFloat:
      case Type::kDouble:
        if (shape.max) values.insert(values.end(), {*shape.max, *shape.max + 1});
        if (shape.min) values.push_back(*shape.min - 1);
        values.push_back(shape.type == Type::kInteger ? 2147483648.0 : 1e300);
        break;
      case Type::kTimestamp:
        values = {-1, 253402300800, 1e300};
        break;
      case Type::kList:
        if (shape.max && *shape.max < 1000) {
          const json entry = base.is_array() && !base.empty() ? base[0] : Sample(*shape.member);
          values.push_back(json::array());
          for (std::size_t i = 0; i <= static_cast<std::size_t>(*shape.max); ++i) {
            values.back().push_back(entry);
          }
        }
        break;
      case Type::kMap: {
        const json entry =
            base.is_object() && !base.empty() ? base.begin().value() : Sample(*shape.value);
        if (shape.max && *shape.max < 1000) {
          values.push_back(json::object());
          for (std::size_t i = 0; i <= static_cast<std::size_t>(*shape.max); ++i) {
            values.back()["k" + std::to_string(i)] = entry;
          }
        }
        values.push_back(json{{std::string(kFarPast, kFill), entry}});
        break;
      }
      default:
        break;
    }
    return values;
  }

  // Calls `emit(path, value)` for every bound value of every member under `shape`, where `base`
  // is the valid request's value at `path` (or null).
  void Sweep(const Shape& shape, const json& base, const json::json_pointer& path, int depth,
             std::set<const Shape*>& open,
             const std::function<void(const json::json_pointer&, const json&)>& emit) {
    if (depth > kMaxDepth) return;
    for (const json& value : Bounds(shape, base)) emit(path, value);
    if (!open.insert(&shape).second) return;  // a recursive shape: once on each path is enough
    switch (shape.type) {
      case Type::kStructure:
        for (const apimodel::Member& member : shape.members) {
          const json sub =
              base.is_object() && base.contains(member.name) ? base[member.name] : json();
          Sweep(*member.shape, sub, path / member.name, depth + 1, open, emit);
        }
        break;
      case Type::kList:
        Sweep(*shape.member, base.is_array() && !base.empty() ? base[0] : json(), path / 0,
              depth + 1, open, emit);
        break;
      case Type::kMap: {
        const bool has = base.is_object() && !base.empty();
        Sweep(*shape.value, has ? base.begin().value() : json(),
              path / (has ? base.begin().key() : std::string("k")), depth + 1, open, emit);
        break;
      }
      default:
        break;
    }
    open.erase(&shape);
  }

  // The checks every answer must pass; `what` names the request in a failure.
  static void CheckAnswer(const protocol::HttpResponse& response, const std::string& what) {
    const bool ok = (response.status >= 200 && response.status < 300) ||
                    (response.status >= 400 && response.status < 500);
    EXPECT_TRUE(ok) << what << " answered " << response.status << ": "
                    << response.body.substr(0, 600);
    if (response.status < 400) return;
    const json body = json::parse(response.body, nullptr, false);
    ASSERT_TRUE(body.is_object()) << what;
    const std::string message = body.value("message", body.value("Message", ""));
    EXPECT_EQ(message.find(std::string(domain::kExcerptCharacters + 1, kFill)), std::string::npos)
        << what << ": the message quotes a sent value past domain::kExcerptCharacters ("
        << message.size() << " characters): " << message.substr(0, 400);
  }

  // A control-plane request, as the SDKs send it.
  protocol::HttpResponse Send(const std::string& operation, const json& input) {
    ++sent_;
    return router_->Handle(
        {"POST",
         "/",
         {{"X-Amz-Target", "SageMaker." + operation}, {"Authorization", testing::kAuth}},
         input.dump()});
  }

  // Calls `visit` for each served operation on a freshly seeded world, with that operation's valid
  // request. A served operation missing from BaseRequests fails the test.
  void ForEachServedOperation(
      const std::function<void(const std::string&, const apimodel::Operation&, const World&,
                               const json&)>& visit) {
    for (const auto& [name, operation] : apimodel::ControlPlaneModel().operations()) {
      if (!emulator_->Emulates(name)) continue;
      emulator_->Reset();
      const World world = Seed();
      const auto bases = BaseRequests(world);
      const auto base = bases.find(name);
      ASSERT_NE(base, bases.end()) << name << " is served but has no base request in this sweep";
      ASSERT_NE(operation.input, nullptr) << name;
      visit(name, operation, world, base->second);
    }
  }

  std::size_t sent_ = 0;
};

TEST_F(BoundsSweep, EveryOperationAnswersValuesAtAndPastItsBoundsWithin4xx) {
  std::set<std::string> swept;
  ForEachServedOperation([&](const std::string& name, const apimodel::Operation& operation,
                             const World&, const json& base) {
    std::set<const Shape*> open;
    Sweep(*operation.input, base, json::json_pointer(), 0, open,
          [&](const json::json_pointer& path, const json& value) {
            if (path.empty()) return;
            json input = base;
            input[path] = value;
            const std::string shown =
                value.is_string()
                    ? std::to_string(value.get_ref<const std::string&>().size()) + " characters"
                    : value.dump().substr(0, 80);
            CheckAnswer(Send(name, input), name + " " + path.to_string() + " = " + shown);
          });
    swept.insert(name);
  });
  EXPECT_GE(swept.size(), 41u);
  RecordProperty("requests", static_cast<int>(sent_));
  std::cout << "swept " << swept.size() << " operations with " << sent_ << " requests\n";
}

// The runtime route: the endpoint name in the path and every header the model places in
// InvokeEndpoint's input, at and past their bounds one at a time, and all of them at once (whose
// message lists every violation and must still fit ValidationError's 2,048 characters).
TEST_F(BoundsSweep, InvokeEndpointAnswersValuesAtAndPastItsBoundsWithin4xx) {
  Seed();
  const apimodel::Operation* invoke = apimodel::RuntimeModel().FindOperation("InvokeEndpoint");
  ASSERT_NE(invoke, nullptr);
  auto send = [&](const std::string& endpoint, const protocol::Headers& headers,
                  const std::string& what) {
    protocol::Headers all = {{"Authorization", testing::kAuth}};
    all.insert(all.end(), headers.begin(), headers.end());
    const protocol::HttpResponse response =
        router_->Handle({"POST", "/endpoints/" + endpoint + "/invocations", all, "1,2,3"});
    ++sent_;
    CheckAnswer(response, "InvokeEndpoint " + what);
    return response;
  };
  // Valid values to lengthen, so that values at the bounds reach the handler (an endpoint and a
  // variant that do not exist, a content type it passes on).
  const std::map<std::string, json> valid = {
      {"EndpointName", "e"},           {"ContentType", "text/csv"}, {"Accept", "application/json"},
      {"CustomAttributes", "trace=1"}, {"TargetVariant", "v"},      {"InferenceId", "id-1"}};
  auto base = [&](const std::string& member) {
    const auto found = valid.find(member);
    return found == valid.end() ? json() : found->second;
  };
  protocol::Headers everything;
  for (const apimodel::Member& member : invoke->input->members) {
    if (member.location == "uri") {
      for (const json& value : Bounds(*member.shape, base(member.name))) {
        send(value.get<std::string>(), {},
             "path " + std::to_string(value.get_ref<const std::string&>().size()));
      }
    }
    if (member.location != "header") continue;
    for (const json& value : Bounds(*member.shape, base(member.name))) {
      send("e", {{member.location_name, value.get<std::string>()}},
           member.location_name + " of " +
               std::to_string(value.get_ref<const std::string&>().size()));
    }
    // Headers are bytes: ones that are not UTF-8 are each rendered as U+FFFD, one character.
    send("e", {{member.location_name, std::string(kFarPast, kNotUtf8)}},
         member.location_name + " of " + std::to_string(kFarPast) + " bytes that are not UTF-8");
    everything.emplace_back(member.location_name, std::string(kFarPast, kFill));
  }
  const protocol::HttpResponse all = send(std::string(kFarPast, kFill), everything, "all at once");
  EXPECT_EQ(all.status, 400);
  for (auto& [name, value] : everything) value = std::string(kFarPast, kNotUtf8);
  const protocol::HttpResponse bytes =
      send(std::string(kFarPast, kFill), everything, "all at once, not UTF-8");
  EXPECT_EQ(bytes.status, 400);
  std::cout << "sent " << sent_ << " invocations\n";
}

// Adds a member the model does not have to every structure of `value`, at every depth.
void AddUnknownMembers(const Shape& shape, json& value) {
  switch (shape.type) {
    case Type::kStructure:
      if (!value.is_object()) return;
      for (const apimodel::Member& member : shape.members) {
        if (value.contains(member.name)) AddUnknownMembers(*member.shape, value[member.name]);
      }
      value["NotInTheModel"] = {{"Nested", 1}};
      return;
    case Type::kList:
      if (value.is_array()) {
        for (json& element : value) AddUnknownMembers(*shape.member, element);
      }
      return;
    case Type::kMap:
      if (value.is_object()) {
        for (auto& [key, element] : value.items()) AddUnknownMembers(*shape.value, element);
      }
      return;
    default:
      return;
  }
}

// AWS ignores members its model does not have, at any depth. Each operation's valid request with
// one added to every structure must be answered, and what it stored must read back within the
// model (DescribeModel showed a member nested in PrimaryContainer back, outside its shape).
TEST_F(BoundsSweep, UnknownMembersAtAnyDepthAreIgnoredAndNeverShownBack) {
  ForEachServedOperation([&](const std::string& name, const apimodel::Operation& operation,
                             const World& world, const json& base) {
    json input = base;
    AddUnknownMembers(*operation.input, input);
    const protocol::HttpResponse response = Send(name, input);
    EXPECT_EQ(response.status, 200) << name << ": " << response.body.substr(0, 600);
    const std::vector<std::pair<std::string, json>> reads = {
        {"DescribeModel", {{"ModelName", "m2"}}},
        {"DescribeEndpointConfig", {{"EndpointConfigName", "c3"}}},
        {"DescribeEndpoint", {{"EndpointName", "e2"}}},
        {"DescribeEndpoint", {{"EndpointName", "e"}}},
        {"DescribeTrainingPlan", {{"TrainingPlanName", "plan2"}}},
        {"DescribeTrainingJob", {{"TrainingJobName", "tj2"}}},
        {"DescribeProcessingJob", {{"ProcessingJobName", "pj2"}}},
        {"DescribeCluster", {{"ClusterName", "cl2"}}},
        {"DescribeCluster", {{"ClusterName", "cl"}}},
        {"ListTags", {{"ResourceArn", world.endpoint_arn}}},
    };
    for (const auto& [read, read_input] : reads) {
      CheckAnswer(Send(read, read_input),
                  read + " after " + name + " with members not in the model");
    }
  });
}

// What the protocol layer quotes before any operation runs: an unknown X-Amz-Target, a path no
// route serves, a method a route does not take, an unknown member of an admin document.
TEST_F(BoundsSweep, TheProtocolLayerQuotesWhatItCannotRouteShortened) {
  const std::string long_name(kFarPast, kFill);
  const std::vector<std::pair<std::string, protocol::HttpRequest>> requests = {
      {"an unknown operation",
       {"POST",
        "/",
        {{"X-Amz-Target", "SageMaker." + long_name}, {"Authorization", testing::kAuth}},
        "{}"}},
      {"an unknown path", {"POST", "/" + long_name, {}, ""}},
      {"an unknown runtime action", {"POST", "/endpoints/e/" + long_name, {}, ""}},
      {"an unknown admin resource", {"GET", "/_emulator/" + long_name, {}, ""}},
      {"a method the control plane does not take", {long_name, "/", {}, ""}},
      {"a method the runtime does not take", {long_name, "/endpoints/e/invocations", {}, ""}},
      {"a method an admin resource does not take", {long_name, "/_emulator/clock", {}, ""}},
      {"an unknown member of an admin document",
       {"POST",
        "/_emulator/capacity",
        {},
        json{{"region", "us-west-2"},
             {"availability_zone", "us-west-2a"},
             {"instance_type", "ml.p5.48xlarge"},
             {long_name, 1}}
            .dump()}},
  };
  for (const auto& [what, request] : requests) {
    const protocol::HttpResponse response = router_->Handle(request);
    EXPECT_GE(response.status, 400) << what;
    CheckAnswer(response, what);
  }
}

}  // namespace
}  // namespace smemu
