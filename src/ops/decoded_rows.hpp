// Values decoded from store rows, kept and reused while the row read is the same. A decoded
// value (an endpoint record, a model's container environment) is a function of its row alone, so
// an entry is used only for a row equal to the one it came from and nothing needs invalidating.
// DescribeEndpoint and every invocation decode the same few rows again and again; the JSON parse
// was the largest part of serving them.
#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>

#include "store/state_store.hpp"

namespace smemu::ops {

// `decode(row)`, or the value it gave for an equal row of the same ARN. Each call site (each
// `Decode` type) has its own entries, per thread (no lock), at most `kLimit`: a thread that saw
// more rows starts again empty.
template <class Decode>
auto DecodedFromRow(const store::ResourceRow& row, Decode decode) {
  using Value = decltype(decode(row));
  struct Entry {
    store::ResourceRow row;
    Value value;
  };
  constexpr std::size_t kLimit = 256;
  thread_local std::unordered_map<std::string, Entry> entries;
  if (const auto it = entries.find(row.arn); it != entries.end() && it->second.row == row) {
    return it->second.value;
  }
  if (entries.size() >= kLimit) entries.clear();
  Value value = decode(row);
  entries.insert_or_assign(row.arn, Entry{row, value});
  return value;
}

}  // namespace smemu::ops
