#include "domain/aws_error.hpp"

namespace smemu::domain {

namespace {

// U+FFFD REPLACEMENT CHARACTER, in UTF-8.
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// The length of the well-formed UTF-8 sequence at the start of `text` (not empty), or 0 when it
// begins none (RFC 3629): an ASCII byte, or a lead byte C2-F4 and the continuation bytes
// (10xxxxxx) it announces, encoding in the fewest bytes possible a code point that is neither a
// surrogate (D800-DFFF) nor beyond 10FFFF.
std::size_t SequenceLength(std::string_view text) {
  const auto byte = [&text](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  const std::size_t length = lead < 0xC2    ? 0
                             : lead < 0xE0  ? 2
                             : lead < 0xF0  ? 3
                             : lead <= 0xF4 ? 4
                                            : 0;
  if (length == 0 || text.size() < length) return 0;
  char32_t code_point = lead & (0x7Fu >> length);
  for (std::size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
    code_point = (code_point << 6) | (byte(i) & 0x3Fu);
  }
  const char32_t least = length == 2 ? 0x80 : length == 3 ? 0x800 : 0x10000;
  if (code_point < least || code_point > 0x10FFFF) return 0;
  if (code_point >= 0xD800 && code_point <= 0xDFFF) return 0;
  return length;
}

}  // namespace

std::string Shortened(std::string_view text, std::size_t limit) {
  // Decoded as it goes, so that the result is valid UTF-8 whatever the input (a header's bytes,
  // say) and its characters are counted as the client will count them: each byte that does not
  // begin a valid sequence becomes one U+FFFD, as the JSON writer would render it anyway.
  std::string out;
  std::size_t characters = 0;
  std::size_t cut = 0;  // out's size when it held limit - 3 characters: room for "..."
  std::size_t next = 0;
  while (next != text.size()) {
    if (characters + 3 == limit) cut = out.size();
    if (characters == limit) {
      out.resize(cut);
      return out + "...";
    }
    const std::size_t length = SequenceLength(text.substr(next));
    if (length == 0) {
      out += kReplacement;
      next += 1;
    } else {
      out.append(text.substr(next, length));
      next += length;
    }
    ++characters;
  }
  return out;
}

std::string Excerpt(std::string_view value) { return Shortened(value, kExcerptCharacters); }

}  // namespace smemu::domain
