#include "http/peer_scope.hpp"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>

#include "http/net.hpp"

namespace smemu::http {
namespace {

using Bytes16 = std::array<unsigned char, 16>;

// An address as 16 bytes, IPv4 as IPv4-mapped IPv6, so one comparison serves both families.
Bytes16 AsV6Bytes(const net::ip::address& address) {
  if (address.is_v4()) {
    return net::ip::make_address_v6(net::ip::v4_mapped, address.to_v4()).to_bytes();
  }
  return address.to_v6().to_bytes();
}

std::optional<Bytes16> BytesOf(const sockaddr* socket_address) {
  if (socket_address == nullptr) return std::nullopt;
  if (socket_address->sa_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(socket_address);
    net::ip::address_v4::bytes_type bytes;
    std::memcpy(bytes.data(), &in->sin_addr, bytes.size());
    return AsV6Bytes(net::ip::address_v4(bytes));
  }
  if (socket_address->sa_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(socket_address);
    Bytes16 bytes;
    std::memcpy(bytes.data(), &in6->sin6_addr, bytes.size());
    return bytes;
  }
  return std::nullopt;
}

bool SameNetwork(const Bytes16& a, const Bytes16& b, const Bytes16& mask) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    if ((a[i] & mask[i]) != (b[i] & mask[i])) return false;
  }
  return true;
}

// An IPv4 netmask as a 16-byte mask over the IPv4-mapped form: the 96-bit prefix must match too.
Bytes16 MaskOf(const ifaddrs& interface) {
  Bytes16 mask = *BytesOf(interface.ifa_netmask);
  if (interface.ifa_addr->sa_family == AF_INET) std::fill(mask.begin(), mask.begin() + 12, 0xff);
  return mask;
}

bool OnALocalNetwork(const Bytes16& peer) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return false;
  const std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> owned(list, freeifaddrs);
  for (const ifaddrs* interface = list; interface != nullptr; interface = interface->ifa_next) {
    const std::optional<Bytes16> own = BytesOf(interface->ifa_addr);
    if (!own || !BytesOf(interface->ifa_netmask)) continue;
    if (SameNetwork(peer, *own, MaskOf(*interface))) return true;
  }
  return false;
}

}  // namespace

protocol::PeerScope ScopeOf(const std::string& address) {
  boost::system::error_code ec;
  net::ip::address parsed = net::ip::make_address(address, ec);
  if (ec) return protocol::PeerScope::kElsewhere;
  if (parsed.is_v6() && parsed.to_v6().is_v4_mapped()) {
    parsed = net::ip::make_address_v4(net::ip::v4_mapped, parsed.to_v6());
  }
  if (parsed.is_loopback()) return protocol::PeerScope::kLoopback;
  return OnALocalNetwork(AsV6Bytes(parsed)) ? protocol::PeerScope::kLocalNetwork
                                            : protocol::PeerScope::kElsewhere;
}

}  // namespace smemu::http
