// Helpers shared by the unit and end-to-end tests.
#pragma once

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>

namespace smemu::testing {

// A fresh path in the temp directory, removed (with its -wal/-shm files) when the object dies.
class TempDbPath {
 public:
  TempDbPath() {
    std::random_device random;
    path_ = (std::filesystem::temp_directory_path() /
             ("smemu-test-" + std::to_string(getpid()) + "-" + std::to_string(random()) + ".db"))
                .string();
  }
  ~TempDbPath() {
    for (const char* suffix : {"", "-wal", "-shm"}) {
      std::error_code ignored;
      std::filesystem::remove(path_ + suffix, ignored);
    }
  }
  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

// This machine's first IPv4 interface besides loopback (host byte order), read independently of
// the code under test; nullopt when it has none.
struct OwnIpv4Interface {
  std::uint32_t address;
  std::uint32_t netmask;
};
inline std::optional<OwnIpv4Interface> FirstOwnIpv4Interface() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return std::nullopt;
  const std::unique_ptr<ifaddrs, void (*)(ifaddrs*)> owned(list, freeifaddrs);
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_netmask == nullptr || i->ifa_addr->sa_family != AF_INET) {
      continue;
    }
    const std::uint32_t address =
        ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
    if ((address >> 24) == 127) continue;
    return OwnIpv4Interface{
        address, ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_netmask)->sin_addr.s_addr)};
  }
  return std::nullopt;
}

inline std::string Ipv4Text(std::uint32_t address) {
  const in_addr in{htonl(address)};
  char text[INET_ADDRSTRLEN];
  return inet_ntop(AF_INET, &in, text, sizeof text);
}

// A fresh empty folder under the temp directory, removed with everything in it.
class TempDir {
 public:
  TempDir() : path_(TempDbPath().str() + ".d") { std::filesystem::create_directory(path_); }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A file under the temp directory holding `text`, removed with the object.
class TempFile {
 public:
  explicit TempFile(const std::string& text) { std::ofstream(path_.str()) << text; }
  const std::string& str() const { return path_.str(); }

 private:
  TempDbPath path_;
};

}  // namespace smemu::testing
