// What the libFuzzer targets share: one Router over an Emulator with the built-in capacity, an
// in-memory store and a frozen clock, and the rule that decides what counts as a finding. Every
// input must get an answer; a 5xx (an exception the router caught, or an answer outside its shape
// in the model) or a malformed response body is a defect, so the target traps and libFuzzer keeps
// the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "apimodel/embedded_models.hpp"
#include "config/capacity_config.hpp"
#include "log/log.hpp"
#include "ops/emulator.hpp"
#include "protocol/router.hpp"
#include "store/state_store.hpp"

namespace smemu::fuzz {

class Harness {
 public:
  Harness()
      : clock_(TimePoint{Millis{1800835200000}}),
        store_(":memory:"),
        emulator_(store_, clock_, ops::ClockStart{TimePoint{Millis{1800835200000}}, true},
                  config::LoadCapacityConfig(std::nullopt)),
        router_(emulator_, apimodel::ControlPlaneModel(), apimodel::RuntimeModel(),
                CheckingConfig()) {
    log::Configure(log::Format::kText, spdlog::level::off);
  }

  protocol::HttpResponse Handle(const protocol::HttpRequest& request) {
    // Keep the state small so the run stays fast; a reset is itself worth exercising.
    if (++requests_ % 5000 == 0) emulator_.Reset();
    // A fault rule an input adds lasts for that input only: a later input answered a 5xx on
    // purpose is no finding (fuzz_fault_rules covers the rule documents themselves).
    emulator_.faults().Clear();
    protocol::HttpResponse response = router_.Handle(request);
    Check(response);
    return response;
  }

 private:
  // Every answer is checked against the model (--check-responses): one that departs from its
  // shape, such as an error message longer than the shape allows, becomes a 500, and so a finding.
  static protocol::RouterConfig CheckingConfig() {
    protocol::RouterConfig config;
    config.check_responses = true;
    // A latency rule's answer goes at once: the fuzzer measures the emulator, not the rule.
    config.after = [](Millis, std::function<void()> then) { then(); };
    return config;
  }

  static void Check(const protocol::HttpResponse& response) {
    if (response.status >= 500) __builtin_trap();
    const std::string* type = protocol::FindHeader(response.headers, "Content-Type");
    const bool json_body = type != nullptr && type->find("json") != std::string::npos;
    if (response.status >= 400 && json_body &&
        !nlohmann::json::accept(response.body)) {  // error bodies must parse
      __builtin_trap();
    }
  }

  ManualClock clock_;
  store::StateStore store_;
  ops::Emulator emulator_;
  protocol::Router router_;
  std::uint64_t requests_ = 0;
};

inline Harness& SharedHarness() {
  static Harness harness;
  return harness;
}

// Splits "first line\nrest" (no newline: all of it is the first line).
inline std::pair<std::string, std::string> SplitFirstLine(const std::uint8_t* data,
                                                          std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::size_t newline = text.find('\n');
  if (newline == std::string_view::npos) return {std::string(text), ""};
  return {std::string(text.substr(0, newline)), std::string(text.substr(newline + 1))};
}

}  // namespace smemu::fuzz
