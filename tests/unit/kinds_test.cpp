// The registry of resource kinds (ops/kinds.hpp) is complete: every kind of the domain's table has
// one descriptor with the pieces its nature calls for, and everything that loops over kinds sees
// each of them.
#include "ops/kinds.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <string>

#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using domain::ResourceKind;

TEST(KindRegistry, EveryKindHasExactlyOneDescriptor) {
  std::set<ResourceKind> registered;
  for (const ops::KindDescriptor* descriptor : ops::Kinds()) {
    EXPECT_TRUE(registered.insert(descriptor->kind).second)
        << domain::WireName(descriptor->kind) << " is registered twice";
  }
  for (const domain::ResourceKindName& entry : domain::kResourceKinds) {
    EXPECT_TRUE(registered.count(entry.kind)) << entry.wire << " has no descriptor";
    EXPECT_EQ(&ops::DescriptorOf(entry.kind), ops::DescriptorNamed(entry.wire));
    EXPECT_EQ(domain::ResourceKindNamed(entry.wire), entry.kind);
  }
  EXPECT_EQ(ops::DescriptorNamed(domain::kCapacityKind), nullptr)
      << "reserved capacity is a plan's, not a kind of its own";
  EXPECT_EQ(ops::DescriptorNamed("Endpoint"), nullptr) << "wire names are exact";
}

// The JS client's types name the kinds that hold instances (the cost ledger's `used_by` keys
// and holders' `kind`): the same set as the registry's holders, so a new kind cannot be missing
// from them.
TEST(KindRegistry, TheJsClientsCostHolderKindIsTheRegistrysHolders) {
  std::ifstream file(std::filesystem::path(SMEMU_SOURCE_DIR) / "clients/js/index.d.ts");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::smatch declared;
  ASSERT_TRUE(std::regex_search(text, declared, std::regex(R"(type CostHolderKind =([^;]*);)")));
  std::set<std::string> in_js;
  const std::string members = declared[1];
  const std::regex quoted("'([^']*)'");
  for (auto it = std::sregex_iterator(members.begin(), members.end(), quoted);
       it != std::sregex_iterator(); ++it) {
    in_js.insert((*it)[1]);
  }
  std::set<std::string> holders;
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    if (kind->add_holders != nullptr) holders.insert(domain::WireName(kind->kind));
  }
  EXPECT_EQ(in_js, holders) << "clients/js/index.d.ts's CostHolderKind";
}

TEST(KindRegistry, EachDescriptorHasThePiecesItsNatureCallsFor) {
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    const std::string name = domain::WireName(kind->kind);
    EXPECT_NE(kind->add_handlers, nullptr) << name << " serves no operation";
    // A kind with a lifecycle settles in a declared stage; one without has nothing to settle.
    EXPECT_EQ(kind->stage == ops::SettleStage::kNone, kind->settle == nullptr) << name;
    // What holds instances changes with the clock (it settles), counts against the instance
    // quotas of its use, and is rebuilt after a rollback.
    if (kind->add_holders != nullptr) {
      EXPECT_NE(kind->settle, nullptr) << name << " holds instances but never settles";
      EXPECT_TRUE(kind->quota_counted) << name;
      EXPECT_TRUE(domain::HasInstanceQuotas(kind->kind))
          << name << " holds instances that no quota use counts";
    }
    if (kind->add_claims != nullptr) {
      EXPECT_NE(kind->add_holders, nullptr) << name << " claims instances it never holds";
    }
    if (domain::HasInstanceQuotas(kind->kind)) {
      EXPECT_NE(kind->add_holders, nullptr) << name << " has a quota use but holds nothing";
    }
    // The dashboard shows what a demo watches: everything that holds instances, and plans.
    EXPECT_EQ(kind->state_section == nullptr, kind->add_state == nullptr) << name;
    if (kind->add_holders != nullptr || kind->kind == ResourceKind::kTrainingPlan) {
      EXPECT_NE(kind->add_state, nullptr) << name << " does not show in the dashboard";
    }
  }
}

TEST(KindRegistry, SettleStagesComeInOrder) {
  // Every kInTimeOrder kind is settled before any kAfterReleases one, so jobs see what endpoints
  // and clusters gave back; the registry's order is the settle order.
  bool after_releases_seen = false;
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    if (kind->stage == ops::SettleStage::kAfterReleases) after_releases_seen = true;
    if (kind->stage == ops::SettleStage::kInTimeOrder) {
      EXPECT_FALSE(after_releases_seen) << domain::WireName(kind->kind) << " settles too late";
    }
  }
}

// Each kind with a state section shows there, and only there: a resource of each kind, in a
// fresh emulator, is one entry of its own section.
class KindState : public testing::EmulatorFixture {};

TEST_F(KindState, EveryKindWithASectionShowsItsResourcesThere) {
  Call("CreateModel", {{"ModelName", "m"},
                       {"PrimaryContainer", {{"Image", "i"}}},
                       {"ExecutionRoleArn", "arn:aws:iam::123456789012:role/r"}});
  Call("CreateEndpointConfig", {{"EndpointConfigName", "c"},
                                {"ProductionVariants",
                                 {{{"VariantName", "v"},
                                   {"ModelName", "m"},
                                   {"InstanceType", "ml.p5.48xlarge"},
                                   {"InitialInstanceCount", 1}}}}});
  Call("CreateEndpoint", {{"EndpointName", "e"}, {"EndpointConfigName", "c"}});
  const testing::json state = Admin("GET", "/_emulator/state");
  std::set<std::string> sections;
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    if (kind->state_section != nullptr) sections.insert(kind->state_section);
  }
  for (const std::string& section : sections) {
    ASSERT_TRUE(state.contains(section)) << section;
    EXPECT_TRUE(state[section].is_array()) << section;
  }
  ASSERT_EQ(state["endpoints"].size(), 1u);
  EXPECT_EQ(state["endpoints"][0]["name"], "e");
  EXPECT_EQ(state["endpoints"][0]["variants"][0]["on_demand"], true);
}

// Each kind's handlers are served, and every served operation belongs to a kind or to tags.
class KindOperations : public testing::EmulatorFixture {};

TEST_F(KindOperations, EveryKindsHandlersAreServed) {
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    ops::HandlerTable table;
    kind->add_handlers(table);
    EXPECT_FALSE(table.empty()) << domain::WireName(kind->kind);
    for (const auto& [operation, handler] : table) {
      EXPECT_TRUE(emulator_->Emulates(operation)) << operation;
    }
  }
}

TEST_F(KindOperations, EveryTaggableKindTakesTagsAndOthersAreNotFound) {
  // The descriptors say which kinds take tags; ListTags on a plan's reserved capacity ARN (not a
  // kind) is not found.
  const testing::json refused = Call(
      "ListTags",
      {{"ResourceArn", "arn:aws:sagemaker:us-west-2:123456789012:reserved-capacity/rc-1"}}, 400);
  EXPECT_EQ(refused["__type"], "ValidationException");
  for (const ops::KindDescriptor* kind : ops::Kinds()) {
    EXPECT_TRUE(kind->taggable) << domain::WireName(kind->kind)
                                << ": every kind served today takes tags";
  }
}

TEST_F(KindOperations, EachKindSaysAResourceIsMissingInItsOwnWords) {
  // AWS words "not found" differently per kind (docs/api-facts.md); the kind table holds each.
  struct Case {
    ResourceKind kind;
    const char* operation;
    const char* member;
    const char* type;
    const char* message;
  };
  const Case cases[] = {
      {ResourceKind::kModel, "DescribeModel", "ModelName", "ValidationException",
       "Could not find model \"arn:aws:sagemaker:us-west-2:123456789012:model/gone\"."},
      {ResourceKind::kEndpointConfig, "DescribeEndpointConfig", "EndpointConfigName",
       "ValidationException",
       "Could not find endpoint configuration "
       "\"arn:aws:sagemaker:us-west-2:123456789012:endpoint-config/gone\"."},
      {ResourceKind::kEndpoint, "DescribeEndpoint", "EndpointName", "ValidationException",
       "Could not find endpoint \"arn:aws:sagemaker:us-west-2:123456789012:endpoint/gone\"."},
      {ResourceKind::kTrainingPlan, "DescribeTrainingPlan", "TrainingPlanName", "ResourceNotFound",
       "Training plan Gone not found."},
      {ResourceKind::kTrainingJob, "DescribeTrainingJob", "TrainingJobName", "ValidationException",
       "Requested resource not found."},
      {ResourceKind::kProcessingJob, "DescribeProcessingJob", "ProcessingJobName",
       "ValidationException", "Could not find requested job with name Gone"},
      {ResourceKind::kCluster, "DescribeCluster", "ClusterName", "ResourceNotFound",
       "Cluster Gone not found."},
  };
  std::set<ResourceKind> covered;
  for (const Case& c : cases) {
    const testing::json answer = Call(c.operation, {{c.member, "Gone"}}, 400);
    EXPECT_EQ(answer["__type"], c.type) << c.operation;
    EXPECT_EQ(answer["message"], c.message) << c.operation;
    covered.insert(c.kind);
  }
  EXPECT_EQ(covered.size(), domain::kResourceKinds.size()) << "a kind without a case";
}

}  // namespace
}  // namespace smemu
