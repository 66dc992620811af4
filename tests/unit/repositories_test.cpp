// The repositories (each kind's record file) are the only writers of their rows, and keep the
// holdings in memory and the holdings log (the cost ledger's history) in step with every write;
// a request that fails after writing leaves the store, the holdings and the log as they were.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ops/kinds.hpp"
#include "ops/lifecycle_records.hpp"
#include "unit/emulator_fixture.hpp"

namespace smemu {
namespace {

using namespace smemu::testing;  // the fixture and its constants

constexpr const char* kArn = "arn:aws:sagemaker:us-west-2:123456789012:endpoint/e";
const store::ResourceKey kKey{"123456789012", "us-west-2", "endpoint", "e"};

domain::Endpoint InService(int count) {
  domain::Endpoint endpoint;
  endpoint.arn = kArn;
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

// A Context over the fixture's store with holdings of its own, at a moment the test moves.
class Repositories : public EmulatorFixture {
 protected:
  ops::Context At(TimePoint now) {
    return ops::Context{{"123456789012", "us-west-2", ""},
                        now,
                        store_,
                        ledger_,
                        holdings_,
                        capacity_config_,
                        quotas_,
                        offerings_,
                        hosting_};
  }

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

  domain::CapacityLedger ledger_;
  domain::Holdings holdings_;
  domain::CapacityConfig capacity_config_;
  domain::QuotaTable quotas_;
  ops::OfferingBook offerings_;
};

TEST_F(Repositories, EveryEndpointWriteKeepsTheHoldingsAndTheLogInStep) {
  ops::Context ctx = At(kStart);
  ASSERT_TRUE(ops::InsertEndpoint(ctx, {kKey, kStart, InService(2)}, {}));
  ASSERT_TRUE(store_.Get(kKey));
  ASSERT_NE(holdings_.Find(kArn), nullptr);
  EXPECT_EQ(holdings_.Find(kArn)->holds, (std::vector<domain::Hold>{{"ml.g5.xlarge", "", 2}}));
  EXPECT_THAT(OpenStretches(kArn), ::testing::ElementsAre("ml.g5.xlarge x2 from 0"));
  EXPECT_FALSE(ops::InsertEndpoint(ctx, {kKey, kStart, InService(5)}, {}))
      << "a second insert of the same key writes nothing";
  EXPECT_EQ(holdings_.Find(kArn)->holds.front().count, 2);

  ctx.now = kStart + Millis{60'000};
  ops::SaveEndpoint(ctx, {kKey, kStart, InService(3)});
  EXPECT_EQ(holdings_.Find(kArn)->holds.front().count, 3);
  EXPECT_THAT(OpenStretches(kArn), ::testing::ElementsAre("ml.g5.xlarge x3 from 60000"));
  const auto history = store_.HeldBetween(kStart, kStart + Millis{120'000});
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].to, kStart + Millis{60'000})
      << "the first stretch ends where the next begins";

  ctx.now = kStart + Millis{120'000};
  ops::EraseEndpoint(ctx, {kKey, kStart, InService(3)});
  EXPECT_FALSE(store_.Get(kKey));
  EXPECT_EQ(holdings_.Find(kArn), nullptr);
  EXPECT_THAT(OpenStretches(kArn), ::testing::IsEmpty());
}

// The coordinator: a handler that writes through a repository and then fails leaves nothing
// behind, in the store, in the holdings or in the log (the holdings are rebuilt from the store).
TEST_F(Repositories, AFailedRequestLeavesTheStoreTheHoldingsAndTheLogUntouched) {
  emulator_->SetHandlerForTest("CreateModel",
                               [](const json&, ops::Context& ctx) -> domain::Result<json> {
                                 if (!ops::InsertEndpoint(ctx, {kKey, ctx.now, InService(2)}, {})) {
                                   return domain::ValidationException("exists");
                                 }
                                 throw std::runtime_error("failing after the write");
                               });
  const json failed = Call("CreateModel", {{"ModelName", "m"}}, 500);
  EXPECT_EQ(failed["__type"], "InternalFailure");
  EXPECT_FALSE(store_.Get(kKey));
  EXPECT_THAT(OpenStretches(kArn), ::testing::IsEmpty());
  const json capacity = Admin("GET", "/_emulator/capacity");
  EXPECT_THAT(capacity["in_use"], ::testing::IsEmpty()) << capacity.dump();
}

}  // namespace
}  // namespace smemu
