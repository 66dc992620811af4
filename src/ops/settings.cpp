#include "ops/settings.hpp"

#include <nlohmann/json.hpp>

#include "ops/record_codec.hpp"

namespace smemu::ops {

std::string EncodeClock(const VirtualClock::State& state, TimePoint base_now) {
  return nlohmann::json{{"now_ms", state.now.time_since_epoch().count()},
                        {"base_ms", base_now.time_since_epoch().count()},
                        {"frozen", state.frozen}}
      .dump();
}

VirtualClock::State DecodeClock(const std::string& text, TimePoint base_now) {
  return codec::DecodingSetting(kClockSetting, text, [base_now](const nlohmann::json& doc) {
    const TimePoint saved_now = codec::At(doc.at("now_ms"));
    const TimePoint saved_base = codec::At(doc.at("base_ms"));
    const bool frozen = doc.at("frozen").get<bool>();
    return VirtualClock::State{frozen ? saved_now : saved_now + (base_now - saved_base), frozen};
  });
}

}  // namespace smemu::ops
