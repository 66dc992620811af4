#include "domain/aws_error.hpp"

#include <boost/locale/utf.hpp>

namespace smemu::domain {

namespace {

// U+FFFD REPLACEMENT CHARACTER, in UTF-8.
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

}  // namespace

std::string Shortened(std::string_view text, std::size_t limit) {
  using Utf8 = boost::locale::utf::utf_traits<char>;
  // Decoded as it goes, so that the result is valid UTF-8 whatever the input (a header's bytes,
  // say) and its characters are counted as the client will count them: each byte that does not
  // begin a valid sequence becomes one U+FFFD, as the JSON writer would render it anyway.
  std::string out;
  std::size_t characters = 0;
  std::size_t cut = 0;  // out's size when it held limit - 3 characters: room for "..."
  const char* next = text.data();
  const char* const end = next + text.size();
  while (next != end) {
    if (characters + 3 == limit) cut = out.size();
    if (characters == limit) {
      out.resize(cut);
      return out + "...";
    }
    const char* const start = next;
    const boost::locale::utf::code_point c = Utf8::decode(next, end);
    if (c == boost::locale::utf::illegal || c == boost::locale::utf::incomplete) {
      out += kReplacement;
      next = start + 1;
    } else {
      out.append(start, next);
    }
    ++characters;
  }
  return out;
}

std::string Excerpt(std::string_view value) { return Shortened(value, kExcerptCharacters); }

}  // namespace smemu::domain
