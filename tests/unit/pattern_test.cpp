#include "apimodel/pattern.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace smemu::apimodel {
namespace {

TEST(Pattern, MatchesWholeStringOnly) {
  Pattern name("[a-zA-Z0-9]([\\-a-zA-Z0-9]*[a-zA-Z0-9])?");
  EXPECT_TRUE(name.Matches("my-model"));
  EXPECT_TRUE(name.Matches("A"));
  EXPECT_FALSE(name.Matches("-model"));
  EXPECT_FALSE(name.Matches("model-"));
  EXPECT_FALSE(name.Matches("my model"));
  EXPECT_FALSE(name.Matches(""));
}

// The first match compiles the pattern to machine code; threads racing to it must all wait for it.
TEST(Pattern, FirstMatchesFromManyThreadsAgree) {
  const Pattern name("[a-z]+(-[a-z]+)*");
  std::atomic<int> agreed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      if (name.Matches("my-model") && !name.Matches("My-model")) ++agreed;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(agreed, 8);
}

TEST(Pattern, TranslatesJavaPosixClassesOutsideAndInsideBrackets) {
  EXPECT_EQ(TranslateJavaPattern("\\p{Alnum}+"), "[a-zA-Z0-9]+");
  EXPECT_EQ(TranslateJavaPattern("[\\p{Alnum}_-]+"), "[a-zA-Z0-9_-]+");
  EXPECT_EQ(TranslateJavaPattern("\\p{L}\\d"), "\\p{L}\\d");
  EXPECT_EQ(TranslateJavaPattern("\\[\\p{Print}"), "\\[[ -~]");
}

TEST(Pattern, SupportsUnicodePropertiesAndJavaAnchors) {
  Pattern letters("[\\p{L}\\p{M}\\p{Z}\\p{S}\\p{N}\\p{P}]*");
  EXPECT_TRUE(letters.Matches("Grüße, 世界!"));
  Pattern printable("\\A\\S[\\p{Print}]*\\z");
  EXPECT_TRUE(printable.Matches("abc def"));
  EXPECT_FALSE(printable.Matches(" abc"));
  Pattern ascii("\\p{ASCII}*");
  EXPECT_TRUE(ascii.Matches("text/csv"));
  EXPECT_FALSE(ascii.Matches("tëxt"));
}

TEST(Pattern, InvalidUtf8NeverMatches) {
  Pattern any(".*");
  EXPECT_TRUE(any.Matches("ok"));
  EXPECT_FALSE(any.Matches(std::string("\xff\xfe", 2)));
}

TEST(Pattern, BadPatternThrowsAtConstruction) {
  EXPECT_THROW(Pattern("([a-z"), std::runtime_error);
}

}  // namespace
}  // namespace smemu::apimodel

namespace smemu::apimodel {
namespace {

// The model's XML-character pattern (HyperParameters values and others) spells code points as Java
// \uXXXX escapes, with the supplementary planes as a surrogate-pair range.
TEST(Pattern, TranslatesJavaUnicodeEscapesAndSurrogatePairs) {
  const char* xml_chars = "[\\u0020-\\uD7FF\\uE000-\\uFFFD\\uD800\\uDC00-\\uDBFF\\uDFFF\\t]*";
  EXPECT_EQ(TranslateJavaPattern(xml_chars),
            "[\\x{20}-\\x{D7FF}\\x{E000}-\\x{FFFD}\\x{10000}-\\x{10FFFF}\\t]*");
  Pattern text(xml_chars);
  EXPECT_TRUE(text.Matches("learning_rate=0.1\tGrüße 😀"));
  EXPECT_FALSE(text.Matches("bell\x07"));
  EXPECT_FALSE(text.Matches("line\nbreak"));
  EXPECT_EQ(TranslateJavaPattern("\\u00e9\\uZZZZ"), "\\x{E9}\\uZZZZ");  // not hex: kept as is
}

}  // namespace
}  // namespace smemu::apimodel
