#include "config/capacity_config.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace smemu::config {
namespace {

using ::testing::HasSubstr;

std::string ErrorOf(const std::string& text) {
  try {
    ParseCapacityConfig(text, "cap.json");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(CapacityConfig, TheDefaultCoversFourRegionsAndEveryReservedInstanceType) {
  const domain::CapacityConfig config = LoadCapacityConfig(std::nullopt);
  std::set<std::string> regions;
  std::map<std::string, std::set<std::string>> types_by_region;
  for (const auto& pool : config.pools) {
    regions.insert(pool.key.region);
    types_by_region[pool.key.region].insert(pool.key.instance_type);
    EXPECT_EQ(pool.key.availability_zone.rfind(pool.key.region, 0), 0u);
    if (pool.key.instance_type == "ml.p5.48xlarge") {
      EXPECT_GE(pool.reservable, 2);
      EXPECT_LE(pool.reservable, 8);
    }
  }
  EXPECT_EQ(regions, (std::set<std::string>{"eu-west-1", "us-east-1", "us-east-2", "us-west-2"}));
  for (const auto& [region, types] : types_by_region) EXPECT_EQ(types.size(), 11u) << region;
  EXPECT_EQ(config.prices.size(), 11u);
  EXPECT_DOUBLE_EQ(config.prices.at("ml.p5.48xlarge").plan_hourly, 55.0);
}

TEST(CapacityConfig, ParsesTheDocumentedShape) {
  const auto config = ParseCapacityConfig(
      R"({"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge": {"reservable": 2,
          "on_demand": 1}}}}, "prices": {"ml.p5.48xlarge": {"on_demand_hourly": 98.32,
          "plan_hourly": 55.0}}})",
      "cap.json");
  ASSERT_EQ(config.pools.size(), 1u);
  EXPECT_EQ(config.pools[0].key.availability_zone, "us-west-2a");
  EXPECT_EQ(config.pools[0].reservable, 2);
  EXPECT_EQ(config.pools[0].on_demand, 1);
}

TEST(CapacityConfig, ErrorsNameTheFileAndTheField) {
  const std::string prices =
      R"("prices": {"ml.p5.48xlarge": {"on_demand_hourly": 1, "plan_hourly": 1}})";
  EXPECT_THAT(ErrorOf("{"), HasSubstr("cap.json: not valid JSON"));
  EXPECT_THAT(ErrorOf(R"({"regions": {}})"), HasSubstr("cap.json: prices: is required"));
  EXPECT_THAT(ErrorOf(R"({"regions": {"us-west-2": {"us-west-2a": {"ml.p5.48xlarge":
                {"reservable": -1}}}}, )" +
                      prices + "}"),
              HasSubstr("regions.us-west-2.us-west-2a.ml.p5.48xlarge.reservable: must be an "
                        "integer from 0 to 100000"));
  EXPECT_THAT(ErrorOf(R"({"regions": {"us-west-2": {"eu-west-1a": {}}}, )" + prices + "}"),
              HasSubstr("regions.us-west-2.eu-west-1a: an availability zone name must start"));
  EXPECT_THAT(ErrorOf(R"({"regions": {"us-west-2": {"us-west-2a": {"ml.g5.xlarge":
                {"reservable": 1}}}}, )" +
                      prices + "}"),
              HasSubstr("regions.us-west-2.us-west-2a.ml.g5.xlarge.reservable: must be 0: "
                        "training plans cannot reserve ml.g5.xlarge"));
  EXPECT_THAT(ErrorOf(R"({"regions": {"us-west-2": {"us-west-2a": {"ml.nope.xlarge": {}}}}, )" +
                      prices + "}"),
              HasSubstr("regions.us-west-2.us-west-2a.ml.nope.xlarge: not a SageMaker instance "
                        "type"));
  EXPECT_THAT(ErrorOf(R"({"regions": {"us-west-2": {"us-west-2a": {"ml.trn1.32xlarge":
                {"reservable": 2}}}}, )" +
                      prices + "}"),
              HasSubstr("ml.trn1.32xlarge: has reservable instances but no entry in prices"));
  // On-demand pools of any type need no prices.
  EXPECT_EQ(ParseCapacityConfig(R"({"regions": {"us-west-2": {"us-west-2a": {"ml.m5.xlarge":
                {"on_demand": 3}}}}, "prices": {}})",
                                "cap.json")
                .pools.size(),
            1u);
  EXPECT_THAT(ErrorOf(R"({"regions": {}, "prices": {"ml.p5.48xlarge": {"plan_hourly": 1}}})"),
              HasSubstr("prices.ml.p5.48xlarge.on_demand_hourly: is required"));
  EXPECT_THAT(ErrorOf(R"({"regions": {}, "prices": {}, "extra": 1})"),
              HasSubstr("extra: unknown field"));
}

TEST(CapacityConfig, AMissingFileIsAStartupError) {
  EXPECT_THROW(LoadCapacityConfig(std::string("/nonexistent/cap.json")), std::runtime_error);
}

}  // namespace
}  // namespace smemu::config
