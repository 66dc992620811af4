// Where a caller's address is: loopback, on one of this machine's own networks, or elsewhere. The
// admin API's access rule (--admin-from) uses it; in a container, "this machine's own networks"
// are the container's, so the host (through a published port) and the containers beside it are
// local, while a caller elsewhere on the host's network is not.
#pragma once

#include <string>

#include "protocol/http_types.hpp"

namespace smemu::http {

// `address` is an IPv4 or IPv6 address as text (an IPv4-mapped IPv6 address counts as IPv4).
// Text that is not an address is kElsewhere. Reads the interfaces at each call, so networks
// attached after start count too.
protocol::PeerScope ScopeOf(const std::string& address);

}  // namespace smemu::http
