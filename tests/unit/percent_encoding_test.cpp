// The one %XX decoder and its three policies: strict for REST path labels, lenient for SigV4's
// canonical query, and form decoding for admin query strings.
#include "protocol/percent_encoding.hpp"

#include <gtest/gtest.h>

namespace smemu::protocol {
namespace {

TEST(PercentEncoding, StrictDecodingRefusesAMalformedEscape) {
  EXPECT_EQ(PercentDecode("my%2Dendpoint"), "my-endpoint");
  EXPECT_EQ(PercentDecode("a%2fb%2Fc"), "a/b/c");
  EXPECT_EQ(PercentDecode("plus+stays"), "plus+stays");
  EXPECT_EQ(PercentDecode(""), "");
  EXPECT_FALSE(PercentDecode("%"));
  EXPECT_FALSE(PercentDecode("%4"));
  EXPECT_FALSE(PercentDecode("%zz"));
  EXPECT_FALSE(PercentDecode("ok%4"));
}

TEST(PercentEncoding, LenientDecodingKeepsWhatItCannotDecode) {
  EXPECT_EQ(PercentDecodeLenient("a%20b"), "a b");
  EXPECT_EQ(PercentDecodeLenient("100%"), "100%");
  EXPECT_EQ(PercentDecodeLenient("%zz%41"), "%zzA");
  EXPECT_EQ(PercentDecodeLenient("a+b"), "a+b");
}

TEST(PercentEncoding, FormDecodingTakesPlusForASpace) {
  EXPECT_EQ(FormDecode("2027-01-25T00%3A00%3A00Z"), "2027-01-25T00:00:00Z");
  EXPECT_EQ(FormDecode("a+b%2Bc"), "a b+c");
  EXPECT_EQ(FormDecode("%"), "%");
}

}  // namespace
}  // namespace smemu::protocol
