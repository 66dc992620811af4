// The admin API: the first line is "METHOD target" (e.g. "POST /_emulator/clock"), the rest the
// body. Targets outside /_emulator/ are mapped into it so every input reaches the admin router.
#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto [line, body] = smemu::fuzz::SplitFirstLine(data, size);
  const std::size_t space = line.find(' ');
  std::string method = space == std::string::npos ? "GET" : line.substr(0, space);
  std::string target = space == std::string::npos ? line : line.substr(space + 1);
  if (target.rfind("/_emulator/", 0) != 0) target = "/_emulator/" + target;
  // Resets and clock jumps far ahead are valid but would slow every later input down; keep them
  // rare by leaving them to inputs that ask for them exactly.
  smemu::fuzz::SharedHarness().Handle({std::move(method), std::move(target), {}, std::move(body)});
  return 0;
}
