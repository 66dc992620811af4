// Fault rule documents (--faults FILE, POST /_emulator/faults): any text is refused with a clear
// ValidationException or read into rules that the service model then accepts or refuses; a rule
// read and written back (FaultRuleJson) reads back the same. Nothing may crash or throw.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "apimodel/embedded_models.hpp"
#include "ops/fault_document.hpp"
#include "protocol/fault_rules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto doc = nlohmann::json::parse(
      std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (doc.is_discarded()) return 0;
  auto rules = smemu::ops::ReadFaultRules(doc);
  if (!rules) return 0;
  if (!smemu::protocol::CompleteFaultRules(*rules, smemu::apimodel::ControlPlaneModel(),
                                           smemu::apimodel::RuntimeModel(),
                                           [](const std::string&) { return true; })) {
    return 0;
  }
  for (smemu::domain::FaultRule& rule : *rules) {
    if (rule.id.empty()) rule.id = "rule";
    const nlohmann::json written = smemu::ops::FaultRuleJson(rule);
    auto again = smemu::ops::ReadFaultRules(written);
    if (!again || again->size() != 1) __builtin_trap();
    if (smemu::ops::FaultRuleJson(again->front()) != written) __builtin_trap();
  }
  return 0;
}
