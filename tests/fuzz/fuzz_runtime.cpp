// The runtime path: the first line is the request target (e.g. /endpoints/e/invocations), then
// header lines "Name: value" up to an empty line, then the raw body.
#include "fuzz_harness.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto [target, rest] = smemu::fuzz::SplitFirstLine(data, size);
  smemu::protocol::HttpRequest request{"POST", "/endpoints/" + target, {}, ""};
  std::string_view remaining = rest;
  while (!remaining.empty()) {
    const std::size_t newline = remaining.find('\n');
    const std::string_view line = remaining.substr(0, newline);
    remaining =
        newline == std::string_view::npos ? std::string_view() : remaining.substr(newline + 1);
    if (line.empty()) break;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    request.headers.emplace_back(std::string(line.substr(0, colon)),
                                 std::string(line.substr(colon + 1)));
  }
  request.body = std::string(remaining);
  smemu::fuzz::SharedHarness().Handle(request);
  return 0;
}
