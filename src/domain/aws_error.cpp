#include "domain/aws_error.hpp"

namespace smemu::domain {

namespace {

bool IsContinuationByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

}  // namespace

std::string Shortened(std::string_view text, std::size_t limit) {
  // Byte offsets where the characters limit - 2 and limit + 1 begin: the first is where a cut
  // text stops to make room for "...", the second tells whether there is anything to cut.
  std::size_t characters = 0;
  std::size_t cut = text.size();
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (IsContinuationByte(text[i])) continue;
    ++characters;
    if (characters == limit - 2) cut = i;
    if (characters == limit + 1) return std::string(text.substr(0, cut)) + "...";
  }
  return std::string(text);
}

std::string Excerpt(std::string_view value) { return Shortened(value, kExcerptCharacters); }

}  // namespace smemu::domain
