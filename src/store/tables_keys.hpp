// Private to the tables: how their keys are spelt. Each key is its fields in order, each followed
// by '\x1f' (unit separator, below every character an account id, region, kind, status or name
// holds), and times as 16 hexadecimal digits with the sign bit flipped, so that comparing two
// keys as strings compares their fields in order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "smemu/clock.hpp"

namespace smemu::store::keys {

inline constexpr char kEnd = '\x1f';
// Above every character a field holds: a prefix followed by it bounds the prefix's keys.
inline constexpr char kAfterAll = '\x7f';

inline void Field(std::string& key, std::string_view field) {
  key.append(field);
  key.push_back(kEnd);
}

// The characters Time appends.
inline constexpr std::size_t kTimeSize = 17;

inline void Time(std::string& key, int64_t ms) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto bits = static_cast<uint64_t>(ms) ^ (uint64_t{1} << 63);
  for (int shift = 60; shift >= 0; shift -= 4) key.push_back(kHex[(bits >> shift) & 0xF]);
  key.push_back(kEnd);
}

inline int64_t Millis(TimePoint t) { return t.time_since_epoch().count(); }

// The last field of `key` (a name key, in every key that ends with one).
inline std::string_view LastField(std::string_view key) {
  key.remove_suffix(1);
  return key.substr(key.rfind(kEnd) + 1);
}

inline bool StartsWith(std::string_view key, std::string_view prefix) {
  return key.substr(0, prefix.size()) == prefix;
}

}  // namespace smemu::store::keys
