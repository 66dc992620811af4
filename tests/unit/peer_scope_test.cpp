// http::ScopeOf places a caller's address for the admin API's --admin-from rule: loopback, a
// network of one of this machine's interfaces, or elsewhere.
#include "http/peer_scope.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <memory>
#include <optional>
#include <string>

namespace smemu::http {
namespace {

using protocol::PeerScope;

// Another address on the network of this machine's first non-loopback IPv4 interface with room
// for two hosts (the interface's own address with its lowest bit flipped).
std::optional<std::string> NeighbourOnALocalNetwork() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  const std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> owned(list, freeifaddrs);
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_netmask == nullptr || i->ifa_addr->sa_family != AF_INET) {
      continue;
    }
    const in_addr own = reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr;
    const in_addr mask = reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr;
    if ((ntohl(own.s_addr) >> 24) == 127 || (~ntohl(mask.s_addr) & 1u) == 0) continue;
    in_addr neighbour{htonl(ntohl(own.s_addr) ^ 1u)};
    char text[INET_ADDRSTRLEN];
    return std::string(inet_ntop(AF_INET, &neighbour, text, sizeof text));
  }
  return std::nullopt;
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
