// The capacity configuration parser (--capacity FILE): any text either parses or is refused with
// a std::runtime_error naming the field; nothing else may escape and nothing may crash.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "config/capacity_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    smemu::config::ParseCapacityConfig(std::string_view(reinterpret_cast<const char*>(data), size),
                                       "fuzz");
  } catch (const std::runtime_error&) {
    // a clear refusal
  }
  return 0;
}
