// One home for an enum's names on the wire (and in the store): a table of (value, name) pairs,
// read both ways. Every status, phase, outcome and target the domain names is such a table, so a
// value and its name are written once, next to each other.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace smemu::domain {

template <class Enum, std::size_t N>
class WireNames {
 public:
  struct Entry {
    Enum value;
    std::string_view name;
  };

  constexpr explicit WireNames(const std::array<Entry, N>& entries) : entries_(entries) {}

  // The name of `value`. Every value has one when the table is complete (Complete()).
  constexpr std::string_view NameOf(Enum value) const {
    for (const Entry& entry : entries_) {
      if (entry.value == value) return entry.name;
    }
    return {};
  }

  // The value named `name` exactly; nullopt for a name no value has.
  constexpr std::optional<Enum> Find(std::string_view name) const {
    for (const Entry& entry : entries_) {
      if (entry.name == name) return entry.value;
    }
    return std::nullopt;
  }

  // Every value 0..N-1 of the enum appears once, with a name of its own: for a static_assert
  // beside each table.
  constexpr bool Complete() const {
    for (std::size_t i = 0; i < N; ++i) {
      if (static_cast<std::size_t>(entries_[i].value) >= N || entries_[i].name.empty()) {
        return false;
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (entries_[j].value == entries_[i].value || entries_[j].name == entries_[i].name) {
          return false;
        }
      }
    }
    return true;
  }

  constexpr const std::array<Entry, N>& entries() const { return entries_; }

 private:
  std::array<Entry, N> entries_;
};

}  // namespace smemu::domain
