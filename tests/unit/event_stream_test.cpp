// The event stream encoding of streamed answers, against messages encoded by an implementation of
// the format's rules written apart from ours (Python's struct and zlib.crc32) and read back by
// botocore's own decoder (botocore.eventstream.EventStreamBuffer).
#include "protocol/event_stream.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace smemu::protocol {
namespace {

std::string Hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  for (const char c : bytes) {
    const auto byte = static_cast<unsigned char>(c);
    hex += kDigits[byte >> 4];
    hex += kDigits[byte & 0xf];
  }
  return hex;
}

TEST(EventStream, APayloadPartIsFramedAsBotocoreReadsIt) {
  EXPECT_EQ(Hex(EventOf("PayloadPart", "application/octet-stream", "hi\n")),
            "0000006c000000592b57ac750b3a6576656e742d7479706507000b5061796c6f6164506172740d3a636f"
            "6e74656e742d747970650700186170706c69636174696f6e2f6f637465742d73747265616d0d3a6d6573"
            "736167652d747970650700056576656e7468690a1afd11e3");
}

TEST(EventStream, AModelStreamErrorIsAnExceptionMessage) {
  EXPECT_EQ(
      Hex(ExceptionEventOf("ModelStreamError", R"({"Message":"m","ErrorCode":"StreamBroken"})")),
      "000000980000005e0887cf4b0f3a657863657074696f6e2d747970650700104d6f64656c53747265616d"
      "4572726f720d3a636f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d65"
      "73736167652d74797065070009657863657074696f6e7b224d657373616765223a226d222c224572726f"
      "72436f6465223a2253747265616d42726f6b656e227d5d2db3a1");
}

TEST(EventStream, TheEchoModelStreamsAPartPerLineAndCutsLongLines) {
  EXPECT_EQ(PartsOf("a\nbc\n\nd"), (std::vector<std::string_view>{"a\n", "bc\n", "\n", "d"}));
  EXPECT_TRUE(PartsOf("").empty());
  // The parts are views into the answer, which must outlive them.
  const std::string long_line = std::string(kMaxPartBytes * 2 + 5, 'x') + "\n";
  const std::vector<std::string_view> parts = PartsOf(long_line);
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].size(), kMaxPartBytes);
  EXPECT_EQ(parts[1].size(), kMaxPartBytes);
  EXPECT_EQ(parts[2], std::string(5, 'x') + "\n");
}

TEST(EventStream, AHeaderOrMessageOverTheFormatsLimitsIsRefused) {
  EXPECT_THROW((void)EventMessage({{std::string(256, 'n'), "v"}}, ""), std::length_error);
  EXPECT_THROW((void)EventOf("PayloadPart", "a", std::string(16 * 1024 * 1024, 'x')),
               std::length_error);
}

}  // namespace
}  // namespace smemu::protocol
