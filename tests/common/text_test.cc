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

TEST(Terminal, PrintableTextIsUnchanged) {
  for (std::string ok :
       {"", "node 1 (host-a.example)", "caf\xC3\xA9 \xE2\x82\xAC",
        "s3://b/p/step-1/__0_0.distcp", "back\\slash"}) {
    EXPECT_EQ(EscapeForTerminal(ok), ok);
  }
}

TEST(Terminal, ControlsAndEscapeSequencesCannotForgeLinesOrColours) {
  // A host name that would end the log line and start a forged one, with
  // a colour escape sequence and a bell.
  EXPECT_EQ(EscapeForTerminal("evil\nI 12:00:00.000 node 0 registered\r"),
            "evil\\nI 12:00:00.000 node 0 registered\\r");
  EXPECT_EQ(EscapeForTerminal("\x1B[31mred\x1B[0m\x07\t\x7F"),
            "\\x1B[31mred\\x1B[0m\\x07\\t\\x7F");
  EXPECT_EQ(EscapeForTerminal(std::string("a\0b", 3)), "a\\x00b");
  // C1 controls (CSI as U+009B), line separators, a bidi override.
  EXPECT_EQ(EscapeForTerminal("\xC2\x9B"
                              "31m"),
            "\\u{009B}31m");
  EXPECT_EQ(EscapeForTerminal("a\xE2\x80\xA8"
                              "b\xE2\x80\xAE"
                              "c"),
            "a\\u{2028}b\\u{202E}c");
  // Invalid UTF-8 stays visible byte by byte.
  EXPECT_EQ(EscapeForTerminal("x\xFF"), "x\\xFF");
  const std::string all = [] {
    std::string s;
    for (int c = 0; c < 256; ++c) s += static_cast<char>(c);
    return s;
  }();
  const std::string escaped = EscapeForTerminal(all);
  for (char c : escaped) {
    const auto u = static_cast<unsigned char>(c);
    EXPECT_TRUE(u >= 0x20 && u != 0x7F) << static_cast<int>(u);
  }
  EXPECT_TRUE(IsValidUtf8(escaped));
}

}  // namespace
}  // namespace ckpt
