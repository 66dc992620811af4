// Every status, phase, outcome and target the domain names reads back as itself: ToString and
// Parse are the two directions of one table (domain/wire_names.hpp), and a name no value has is
// not read as any value.
#include "domain/wire_names.hpp"

#include <gtest/gtest.h>

#include "domain/cluster.hpp"
#include "domain/endpoint.hpp"
#include "domain/job.hpp"
#include "domain/training_plan.hpp"

namespace smemu {
namespace {

template <class Enum, class Parse>
void ExpectRoundTrips(int count, Parse parse) {
  for (int i = 0; i < count; ++i) {
    const auto value = static_cast<Enum>(i);
    const std::string_view name = domain::ToString(value);
    EXPECT_FALSE(name.empty()) << i;
    EXPECT_EQ(parse(name), value) << name;
  }
  EXPECT_EQ(parse("NoSuchName"), std::nullopt);
  EXPECT_EQ(parse(""), std::nullopt);
}

TEST(WireNames, EveryDomainEnumReadsBackAsItself) {
  ExpectRoundTrips<domain::EndpointStatus>(5, &domain::ParseEndpointStatus);
  ExpectRoundTrips<domain::JobStatus>(5, &domain::ParseJobStatus);
  ExpectRoundTrips<domain::JobPhase>(3, &domain::ParseJobPhase);
  ExpectRoundTrips<domain::JobOutcome>(8, &domain::ParseJobOutcome);
  ExpectRoundTrips<domain::ClusterStatus>(5, &domain::ParseClusterStatus);
  ExpectRoundTrips<domain::GroupStatus>(5, &domain::ParseGroupStatus);
  ExpectRoundTrips<domain::NodeStatus>(3, &domain::ParseNodeStatus);
  // Names are exact: the store and the wire never change their case.
  EXPECT_EQ(domain::ParseEndpointStatus("inservice"), std::nullopt);
}

TEST(WireNames, ATableThatMissesOrRepeatsAValueIsIncomplete) {
  enum class Three { kA, kB, kC };
  using Names = domain::WireNames<Three, 3>;
  EXPECT_TRUE(Names({{{Three::kA, "A"}, {Three::kB, "B"}, {Three::kC, "C"}}}).Complete());
  EXPECT_FALSE(Names({{{Three::kA, "A"}, {Three::kB, "B"}, {Three::kB, "C"}}}).Complete());
  EXPECT_FALSE(Names({{{Three::kA, "A"}, {Three::kB, "B"}, {Three::kC, "B"}}}).Complete());
  EXPECT_FALSE(Names({{{Three::kA, "A"}, {Three::kB, "B"}, {Three::kC, ""}}}).Complete());
}

}  // namespace
}  // namespace smemu
