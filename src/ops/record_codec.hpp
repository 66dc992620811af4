// What every codec of a stored record shares (the endpoint, job, cluster, plan, model and
// endpoint-config records, and the settings): times as epoch milliseconds, optional members, and
// the one way a stored value that cannot be read fails. A row whose document does not parse, lacks
// a member, has one of the wrong type or names a status this release does not know is a
// store::StoreFailure naming the row, never a silent default: the request that met it answers
// 500 InternalFailure (and the log names the row), a start that meets it stops with the message.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "smemu/clock.hpp"
#include "store/state_store.hpp"

namespace smemu::ops::codec {

using nlohmann::json;

inline int64_t Ms(TimePoint time) { return time.time_since_epoch().count(); }
inline TimePoint At(const json& value) { return TimePoint{Millis{value.get<int64_t>()}}; }

inline std::optional<TimePoint> OptionalAt(const json& doc, const char* member) {
  if (!doc.contains(member)) return std::nullopt;
  return At(doc[member]);
}
inline void PutOptional(json& doc, const char* member, const std::optional<TimePoint>& at) {
  if (at) doc[member] = Ms(*at);
}
inline std::optional<std::string> OptionalText(const json& doc, const char* member) {
  if (!doc.contains(member)) return std::nullopt;
  return doc[member].get<std::string>();
}

// A stored value that cannot be read. `what` says which.
class Unreadable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `parsed`, or Unreadable naming `what` and the text that was stored.
template <class Enum>
Enum Known(std::optional<Enum> parsed, std::string_view what, std::string_view stored) {
  if (!parsed) {
    throw Unreadable("unknown " + std::string(what) + " '" + std::string(stored) + "'");
  }
  return *parsed;
}

// The row's document as JSON.
json Document(const store::ResourceRow& row);

// The StoreFailure for a row that cannot be read: its kind, its ARN and why.
[[noreturn]] void FailOn(const store::ResourceRow& row, const std::string& why);

// `decode(row)`, with every failure to read it (a JSON error, Unreadable) turned into FailOn.
template <class Decode>
auto Decoding(const store::ResourceRow& row, Decode decode) -> decltype(decode(row)) {
  try {
    return decode(row);
  } catch (const json::exception& e) {
    FailOn(row, e.what());
  } catch (const Unreadable& e) {
    FailOn(row, e.what());
  }
}

// The StoreFailure for a setting (the clock, the quotas, pool changes) that cannot be read.
[[noreturn]] void FailOnSetting(const std::string& key, const std::string& why);

// `decode(document)` of the setting `key` stored as `text`, with every failure to read it turned
// into FailOnSetting.
template <class Decode>
auto DecodingSetting(const std::string& key, const std::string& text, Decode decode)
    -> decltype(decode(std::declval<const json&>())) {
  try {
    return decode(json::parse(text));
  } catch (const json::exception& e) {
    FailOnSetting(key, e.what());
  } catch (const Unreadable& e) {
    FailOnSetting(key, e.what());
  }
}

}  // namespace smemu::ops::codec
