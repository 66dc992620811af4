// http::ScopeOf places a caller's address for the admin API's --admin-from rule: loopback, a
// network of one of this machine's interfaces, or elsewhere.
#include "http/peer_scope.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "test_support.hpp"

namespace smemu::http {
namespace {

using protocol::PeerScope;

// Another address on the network of this machine's first IPv4 interface, when the network has
// room for two hosts (the interface's own address with its lowest bit flipped).
std::optional<std::string> NeighbourOnALocalNetwork() {
  const auto own = testing::FirstOwnIpv4Interface();
  if (!own || (~own->netmask & 1u) == 0) return std::nullopt;
  return testing::Ipv4Text(own->address ^ 1u);
}

TEST(PeerScopeTest, LoopbackInEveryForm) {
  EXPECT_EQ(ScopeOf("127.0.0.1"), PeerScope::kLoopback);
  EXPECT_EQ(ScopeOf("127.8.9.10"), PeerScope::kLoopback);
  EXPECT_EQ(ScopeOf("::1"), PeerScope::kLoopback);
  EXPECT_EQ(ScopeOf("::ffff:127.0.0.1"), PeerScope::kLoopback) << "a dual-stack listener's form";
}

TEST(PeerScopeTest, AnAddressOnOneOfThisMachinesNetworksIsLocal) {
  const std::optional<std::string> neighbour = NeighbourOnALocalNetwork();
  if (!neighbour) GTEST_SKIP() << "no IPv4 interface besides loopback";
  EXPECT_EQ(ScopeOf(*neighbour), PeerScope::kLocalNetwork) << *neighbour;
  EXPECT_EQ(ScopeOf("::ffff:" + *neighbour), PeerScope::kLocalNetwork) << *neighbour;
}

TEST(PeerScopeTest, EverythingElseIsElsewhere) {
  // TEST-NET-3 and the IPv6 documentation prefix: on no machine's networks.
  EXPECT_EQ(ScopeOf("203.0.113.7"), PeerScope::kElsewhere);
  EXPECT_EQ(ScopeOf("2001:db8::7"), PeerScope::kElsewhere);
  EXPECT_EQ(ScopeOf(""), PeerScope::kElsewhere);
  EXPECT_EQ(ScopeOf("unknown"), PeerScope::kElsewhere);
  EXPECT_EQ(ScopeOf("127.0.0.1.evil"), PeerScope::kElsewhere);
}

}  // namespace
}  // namespace smemu::http
