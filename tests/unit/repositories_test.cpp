// The Applier (ops/apply.hpp) is the only writer of the rows, and keeps the holdings in memory and
// the holdings log (the cost ledger's history) in step with every write.
// Handlers state their changes as an edit (ops/edit.hpp) that the Emulator applies, without HTTP
// here: an edit applies in order, an error drops it, and an edit that fails halfway leaves the
// store, the holdings and the log as they were.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/apply.hpp"
#include "ops/edit.hpp"
#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants

constexpr const char* kStoredEndpointArn = "arn:aws:sagemaker:us-west-2:123456789012:endpoint/e";
const store::ResourceKey kKey{"123456789012", "us-west-2", "endpoint", "e"};

domain::Endpoint InServiceEndpoint(int count) {
  domain::Endpoint endpoint;
  endpoint.arn = kStoredEndpointArn;
  endpoint.owner = {"123456789012", "us-west-2"};
  endpoint.status = domain::EndpointStatus::kInService;
  endpoint.config_name = "c";
  domain::Variant variant;
  variant.name = "AllTraffic";
  variant.instance_type = "ml.g5.xlarge";
  variant.desired_count = variant.current_count = count;
  endpoint.variants = {variant};
  return endpoint;
}

// An Applier over the fixture's store with holdings of its own.
class Repositories : public EmulatorFixture {
 protected:
  // The open stretches of the holdings log for `arn`, as "type x count from <ms>".
  std::vector<std::string> OpenStretches(const std::string& arn) {
    std::vector<std::string> open;
    for (const store::HeldStretch& stretch : store_.HeldNow()) {
      if (stretch.arn != arn) continue;
      open.push_back(stretch.instance_type + " x" + std::to_string(stretch.count) + " from " +
                     std::to_string((stretch.from - kStart).count()));
    }
    return open;
  }

  ops::Versioned<domain::CapacityLedger> ledger_;
  ops::Versioned<domain::Holdings> holdings_;
  domain::CapacityConfig capacity_config_;
  ops::Versioned<domain::QuotaTable> quotas_;
  ops::OfferingBook offerings_;
};

TEST_F(Repositories, EveryEndpointWriteKeepsTheHoldingsAndTheLogInStep) {
  ops::Applier applier(ops::Writer{store_, ledger_, holdings_, quotas_});
  applier.Apply(ops::Edit::InsertEndpoint{{kKey, kStart, InServiceEndpoint(2)}, {}}, kStart);
  ASSERT_TRUE(store_.Rows().Get(kKey));
  ASSERT_NE(holdings_.Read().Find(kStoredEndpointArn), nullptr);
  EXPECT_EQ(holdings_.Read().Find(kStoredEndpointArn)->holds,
            (std::vector<domain::Hold>{{"ml.g5.xlarge", "", 2}}));
  EXPECT_THAT(OpenStretches(kStoredEndpointArn), ::testing::ElementsAre("ml.g5.xlarge x2 from 0"));
  EXPECT_THROW(
      applier.Apply(ops::Edit::InsertEndpoint{{kKey, kStart, InServiceEndpoint(5)}, {}}, kStart),
      std::logic_error)
      << "a second insert of the same key is a defect, and writes nothing";
  EXPECT_EQ(holdings_.Read().Find(kStoredEndpointArn)->holds.front().count, 2);

  applier.Apply(ops::Edit::SaveEndpoint{{kKey, kStart, InServiceEndpoint(3)}},
                kStart + Millis{60'000});
  EXPECT_EQ(holdings_.Read().Find(kStoredEndpointArn)->holds.front().count, 3);
  EXPECT_THAT(OpenStretches(kStoredEndpointArn),
              ::testing::ElementsAre("ml.g5.xlarge x3 from 60000"));
  const auto history = store_.HeldBetween(kStart, kStart + Millis{120'000});
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].to, kStart + Millis{60'000})
      << "the first stretch ends where the next begins";

  applier.Apply(ops::Edit::EraseEndpoint{kKey, kStoredEndpointArn}, kStart + Millis{120'000});
  EXPECT_FALSE(store_.Rows().Get(kKey));
  EXPECT_EQ(holdings_.Read().Find(kStoredEndpointArn), nullptr);
  EXPECT_THAT(OpenStretches(kStoredEndpointArn), ::testing::IsEmpty());
}

// The coordinator applies a handler's edit after the handler answers, in order, and settles.
TEST_F(Repositories, TheEmulatorAppliesAHandlersEditInOrderAndDropsItOnAnError) {
  emulator_->SetHandlerForTest(
      "CreateModel", [](const json& in, ops::Context& ctx) -> domain::Result<json> {
        const std::string name = in.at("ModelName");
        const store::ResourceKey key{ctx.caller.account, ctx.caller.region, "model", name};
        ctx.edit.Add(ops::Edit::InsertModel{{key, "arn:" + name, ctx.now, json::object()}, {}});
        ctx.edit.Add(ops::Edit::PutTags{"arn:" + name, {{"k", "v"}}});
        EXPECT_FALSE(ctx.store.Get(key)) << "nothing is written while the handler runs";
        if (name == "refused") return domain::ValidationException("no");
        return json{{"ModelArn", "arn:" + name}};
      });
  const ops::Caller caller{"123456789012", "us-west-2", ""};
  ASSERT_TRUE(emulator_->Invoke("CreateModel", {{"ModelName", "kept"}}, caller));
  EXPECT_TRUE(store_.Rows().Get({"123456789012", "us-west-2", "model", "kept"}));
  EXPECT_EQ(store_.Rows().GetTags("arn:kept"), (store::Tags{{"k", "v"}}));
  EXPECT_FALSE(emulator_->Invoke("CreateModel", {{"ModelName", "refused"}}, caller));
  EXPECT_FALSE(store_.Rows().Get({"123456789012", "us-west-2", "model", "refused"}));
  EXPECT_TRUE(store_.Rows().GetTags("arn:refused").empty());
}

// An edit whose second change cannot apply (an insert of a key that exists) is rolled back whole:
// the endpoint its first change wrote is not in the store, the holdings or the log.
TEST_F(Repositories, AnEditThatFailsHalfwayLeavesTheStoreTheHoldingsAndTheLogUntouched) {
  Call("CreateModel", {{"ModelName", "m"}});
  emulator_->SetHandlerForTest(
      "DeleteModel", [](const json&, ops::Context& ctx) -> domain::Result<json> {
        ctx.edit.Add(ops::Edit::InsertEndpoint{{kKey, ctx.now, InServiceEndpoint(2)}, {}});
        const store::ResourceKey model{ctx.caller.account, ctx.caller.region, "model", "m"};
        ctx.edit.Add(ops::Edit::InsertModel{{model, "arn:m", ctx.now, json::object()}, {}});
        return json::object();
      });
  const json failed = Call("DeleteModel", {{"ModelName", "m"}}, 500);
  EXPECT_EQ(failed["__type"], "InternalFailure");
  EXPECT_FALSE(store_.Rows().Get(kKey));
  EXPECT_THAT(OpenStretches(kStoredEndpointArn), ::testing::IsEmpty());
  const json capacity = Admin("GET", "/_emulator/capacity");
  EXPECT_THAT(capacity["in_use"], ::testing::IsEmpty()) << capacity.dump();
}

}  // namespace
}  // namespace smemu
