// --rate-limits: a token bucket per account, region and operation, filled on the injected
// monotonic clock, refusing with AWS's ThrottlingException (400, "Rate exceeded") when empty.
#include "protocol/rate_limits.hpp"

#include <atomic>
#include <thread>
#include <vector>

#include "emulator_fixture.hpp"

namespace smemu::testing {
namespace {

// A monotonic clock the test moves; any thread may read it.
class ManualMonotonicClock final : public MonotonicClock {
 public:
  SteadyTime Now() const override { return SteadyTime{std::chrono::nanoseconds{now_.load()}}; }
  void Advance(std::chrono::nanoseconds by) { now_ += by.count(); }

 private:
  std::atomic<long long> now_{1'000'000'000};
};

TEST(RateLimiter, ABucketHoldsItsBurstThenFillsAtItsRate) {
  ManualMonotonicClock clock;
  protocol::RateLimiter limiter({{"List*", 2, 2, "test"}});
  auto admit = [&](const char* operation, const char* account = "111111111111") {
    return limiter.Admit(operation, account, "us-west-2", clock.Now());
  };
  EXPECT_TRUE(admit("ListModels"));
  EXPECT_TRUE(admit("ListModels"));
  EXPECT_FALSE(admit("ListModels"));
  EXPECT_TRUE(admit("ListEndpoints"));               // a bucket per operation
  EXPECT_TRUE(admit("ListModels", "222222222222"));  // and per account
  EXPECT_TRUE(admit("DescribeEndpoint"));            // no limit matches it
  clock.Advance(std::chrono::milliseconds(499));
  EXPECT_FALSE(admit("ListModels"));
  clock.Advance(std::chrono::milliseconds(1));
  EXPECT_TRUE(admit("ListModels"));
  clock.Advance(std::chrono::seconds(60));  // never more than the burst
  EXPECT_TRUE(admit("ListModels"));
  EXPECT_TRUE(admit("ListModels"));
  EXPECT_FALSE(admit("ListModels"));
}

// Eight clients as fast as they can for ten seconds of the injected clock: what gets through is
// the burst plus ten seconds at the rate, within 10%.
TEST(RateLimiter, EightConcurrentClientsGetTheConfiguredRate) {
  ManualMonotonicClock clock;
  protocol::RateLimiter limiter({{"ListTrainingJobs", 20, 5, "test"}});
  std::atomic<int> admitted{0};
  std::atomic<bool> stop{false};
  std::vector<std::thread> clients;
  for (int i = 0; i < 8; ++i) {
    clients.emplace_back([&] {
      while (!stop) {
        if (limiter.Admit("ListTrainingJobs", "123456789012", "us-west-2", clock.Now())) {
          ++admitted;
        }
      }
    });
  }
  for (int step = 0; step < 1000; ++step) {
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    clock.Advance(std::chrono::milliseconds(10));
  }
  stop = true;
  for (std::thread& client : clients) client.join();
  const double expected = 5 + 20 * 10.0;
  EXPECT_NEAR(admitted.load(), expected, expected * 0.1);
}

TEST(RateLimiter, AwsTableCitesWhereEachRateComesFrom) {
  const auto limits = protocol::AwsRateLimits();
  ASSERT_FALSE(limits.empty());
  EXPECT_EQ(limits[0].operation, "ListTrainingJobs");
  EXPECT_EQ(limits[0].per_second, 2);  // Service Quotas: 2 per second, not adjustable
  for (const auto& limit : limits) EXPECT_FALSE(limit.source.empty()) << limit.operation;
}

TEST(RateLimiter, AFileIsCheckedEntryByEntry) {
  EXPECT_TRUE(protocol::ReadRateLimits(
                  json::parse(R"({"limits": [{"operation": "Describe*", "per_second": 3}]})"))
                  .ok());
  const auto refused = protocol::ReadRateLimits(
      json::parse(R"({"limits": [{"operation": "Describe*", "per_second": 0}]})"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "Rate limit 1 'per_second' must be a number above 0 and at most 1000000.");
}

class RateLimitedRouterTest : public EmulatorFixture {
 protected:
  RateLimitedRouterTest() {
    router_.reset();
    emulator_.reset();
    router_config_.monotonic_clock = &clock_;
    router_config_.rate_limiter =
        std::make_shared<protocol::RateLimiter>(protocol::AwsRateLimits());
    Open();
  }
  ManualMonotonicClock clock_;
};

TEST_F(RateLimitedRouterTest, ListTrainingJobsIsRefusedPastTwoPerSecond) {
  Call("ListTrainingJobs", json::object());
  Call("ListTrainingJobs", json::object());
  const json throttled = Call("ListTrainingJobs", json::object(), 400);
  EXPECT_EQ(throttled["__type"], "ThrottlingException");
  EXPECT_EQ(throttled["message"], "Rate exceeded");
  clock_.Advance(std::chrono::milliseconds(500));
  Call("ListTrainingJobs", json::object());
  const std::string metrics = router_->Handle({"GET", "/_emulator/metrics", {}, ""}).body;
  EXPECT_THAT(metrics, ::testing::HasSubstr(
                           "sagemaker_emulator_throttled_total{operation=\"ListTrainingJobs\"} 1"));
}

}  // namespace
}  // namespace smemu::testing
