// domain::Excerpt and domain::Shortened: how messages quote what a caller sent, and cut text to a
// bound, counting characters (code points) as the service counts a string's length.
#include "domain/aws_error.hpp"

#include <gtest/gtest.h>

namespace smemu::domain {
namespace {

TEST(Excerpt, ShowsAValueInFullUpToTheLimitAndAPrefixWithAnEllipsisPastIt) {
  EXPECT_EQ(Excerpt(""), "");
  EXPECT_EQ(Excerpt("my-endpoint"), "my-endpoint");
  const std::string at_limit(kExcerptCharacters, 'a');
  EXPECT_EQ(Excerpt(at_limit), at_limit);
  const std::string past = at_limit + "b";
  EXPECT_EQ(Excerpt(past), std::string(kExcerptCharacters - 3, 'a') + "...");
  EXPECT_EQ(Excerpt(std::string(900000, 'x')).size(), kExcerptCharacters);
}

TEST(Shortened, CountsCharactersAndNeverSplitsOne) {
  // "é" is two bytes, "€" three: a text of 10 characters is not cut at 10, however many bytes.
  const std::string accents = "éééééééééé";
  EXPECT_EQ(Shortened(accents, 10), accents);
  EXPECT_EQ(Shortened(accents, 9), "éééééé...");
  EXPECT_EQ(Shortened("€€€€€", 4), "€...");
  EXPECT_EQ(Shortened("abcd", 3), "...");
  EXPECT_EQ(Shortened("abc", 3), "abc");
  // What a cut text holds is whole characters: valid UTF-8 in, valid UTF-8 out.
  const std::string mixed = "a€b€c€d€e€f€g€";
  for (std::size_t limit = 3; limit <= 15; ++limit) {
    const std::string cut = Shortened(mixed, limit);
    std::size_t characters = 0;
    for (const char c : cut) characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    EXPECT_LE(characters, limit) << limit;
    // Each "€" (E2 82 AC) is whole: a lead byte is followed by both its continuation bytes.
    for (std::size_t i = cut.find('\xE2'); i != std::string::npos; i = cut.find('\xE2', i + 1)) {
      EXPECT_EQ(cut.substr(i, 3), "€") << "a character was split at limit " << limit;
    }
  }
}

// Bytes that begin no valid UTF-8 sequence (a header can carry any) would each be rendered as
// U+FFFD: each counts as one character, so a message of them cannot outgrow its bound once
// rendered, and the text is valid UTF-8 from here on.
TEST(Shortened, ReplacesInvalidBytesAndCountsEachAsACharacter) {
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(Shortened(std::string("a") + '\xAD' + 'b', 10), "a" + replacement + "b");
  EXPECT_EQ(Shortened("\xE2\x82", 10), replacement + replacement);  // a "€" cut short
  EXPECT_EQ(Shortened("\xC0\xAF", 10), replacement + replacement);  // an overlong "/"
  std::string expected;
  for (int i = 0; i < 7; ++i) expected += replacement;
  EXPECT_EQ(Shortened(std::string(1000, '\xAD'), 10), expected + "...");
  EXPECT_EQ(Excerpt(std::string(100000, '\xAD')).size(), 253 * replacement.size() + 3);
}

}  // namespace
}  // namespace smemu::domain
