// The store's settings: what the emulator keeps beside the resources (the virtual clock, the
// quotas as last changed, the pools' run-time changes), each under its name, and how the clock's
// is encoded. Written only as edits (ops/apply.cpp).
#pragma once

#include <string>

#include "smemu/clock.hpp"

namespace smemu::ops {

inline constexpr const char* kClockSetting = "virtual_clock";
inline constexpr const char* kQuotasSetting = "quotas";  // the table as last changed
inline constexpr const char* kPoolChangesSetting = "capacity_changes";

// The persisted clock: the virtual time and the base time it was read at, so a running clock keeps
// its offset across a restart and a frozen one stays where it was.
std::string EncodeClock(const VirtualClock::State& state, TimePoint base_now);
// The clock as it stands at `base_now`. A setting that cannot be read is a StoreFailure naming it.
VirtualClock::State DecodeClock(const std::string& text, TimePoint base_now);

}  // namespace smemu::ops
