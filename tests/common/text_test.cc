#include "common/text.h"

#include <gtest/gtest.h>

#include <string>

namespace ckpt {
namespace {

TEST(Utf8, WellFormedTextIsValidAndUnchanged) {
  for (std::string ok : {"", "plain", "caf\xC3\xA9", "\xE2\x82\xAC 5",
                         "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(IsValidUtf8(ok)) << ok;
    EXPECT_EQ(EscapeInvalidUtf8(ok), ok);
  }
}

TEST(Utf8, InvalidBytesAreEscapedOneByOne) {
  EXPECT_FALSE(IsValidUtf8("/tmp/\xFF"));
  EXPECT_EQ(EscapeInvalidUtf8("/tmp/\xFF/x"), "/tmp/\\xFF/x");
  // An overlong '/', a surrogate, past U+10FFFF, a cut-off sequence.
  EXPECT_EQ(EscapeInvalidUtf8("\xC0\xAF"), "\\xC0\\xAF");
  EXPECT_EQ(EscapeInvalidUtf8("\xED\xA0\x80"), "\\xED\\xA0\\x80");
  EXPECT_EQ(EscapeInvalidUtf8("\xF4\x90\x80\x80"), "\\xF4\\x90\\x80\\x80");
  EXPECT_EQ(EscapeInvalidUtf8("ok\xE2\x82"), "ok\\xE2\\x82");
  // Valid sequences around an invalid byte survive whole.
  EXPECT_EQ(EscapeInvalidUtf8("\xC3\xA9\x80\xC3\xA9"), "\xC3\xA9\\x80\xC3\xA9");
  EXPECT_TRUE(IsValidUtf8(EscapeInvalidUtf8("\xFF\xFE garbage \x80")));
}

}  // namespace
}  // namespace ckpt
