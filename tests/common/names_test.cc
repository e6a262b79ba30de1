#include "common/names.h"

#include <gtest/gtest.h>

#include <string>

namespace ckpt {
namespace {

TEST(PathIsUnder, WholeComponentsOnly) {
  EXPECT_TRUE(
      PathIsUnder("p/checkpoints/step-1/__0_0.distcp", "p/checkpoints/step-1"));
  EXPECT_TRUE(PathIsUnder("p/checkpoints/step-1", "p/checkpoints/step-1"));
  EXPECT_TRUE(PathIsUnder("p/checkpoints/step-1/x", "p/checkpoints/step-1/"));
  // The sibling that shares the string is another step.
  EXPECT_FALSE(PathIsUnder("p/checkpoints/step-10/__0_0.distcp",
                           "p/checkpoints/step-1"));
  EXPECT_FALSE(PathIsUnder("ul64/x", "ul6"));
  EXPECT_FALSE(PathIsUnder("p", "p/q"));
  EXPECT_TRUE(PathIsUnder("anything", ""));
}

TEST(CheckRelativeName, PlainNamesPass) {
  for (const char* ok :
       {"__0_0.distcp", ".metadata", "a/b.tar", "..x", "x..", "caf\xC3\xA9"}) {
    EXPECT_TRUE(CheckRelativeName(ok, "name").ok()) << ok;
  }
}

TEST(CheckRelativeName, EscapesAreRefusedNamingTheEntry) {
  auto s = CheckRelativeName("../../../victim/secret.distcp",
                             "file name in s3://b/step-1/.metadata");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "file name in s3://b/step-1/.metadata "
            "'../../../victim/secret.distcp': a '..' component; expected a "
            "relative name inside its directory");
  for (const char* bad : {"", "/etc/passwd", "a/../../b", "a//b", "./a", "a/.",
                          "a/", "a\nb", "a\x1B[31m"}) {
    EXPECT_FALSE(CheckRelativeName(bad, "name").ok()) << bad;
  }
  EXPECT_FALSE(CheckRelativeName(std::string(2000, 'a'), "name").ok());
  EXPECT_FALSE(CheckRelativeName(std::string("a\0b", 3), "name").ok());
  // The refused name reaches the message escaped.
  auto esc = CheckRelativeName("a\nforged line", "name");
  EXPECT_NE(esc.message().find("a\\nforged line"), std::string::npos);
}

TEST(CheckEntryName, OneComponent) {
  EXPECT_TRUE(CheckEntryName("step-3", "entry").ok());
  EXPECT_FALSE(CheckEntryName("a/b", "entry").ok());
  EXPECT_FALSE(CheckEntryName("..", "entry").ok());
}

TEST(WithDefaultPort, AddsThePortOnlyWhereNoneIsGiven) {
  EXPECT_EQ(WithDefaultPort("ckptbench-coordinator-0-0.ckptbench", 50051),
            "ckptbench-coordinator-0-0.ckptbench:50051");
  EXPECT_EQ(WithDefaultPort("host:7000", 50051), "host:7000");
  EXPECT_EQ(WithDefaultPort("[::1]", 50051), "[::1]:50051");
  EXPECT_EQ(WithDefaultPort("[::1]:7000", 50051), "[::1]:7000");
  EXPECT_EQ(WithDefaultPort("::1", 50051), "::1");
  EXPECT_EQ(WithDefaultPort("dns:///h:1", 50051), "dns:///h:1");
  EXPECT_EQ(WithDefaultPort("", 50051), "");
}

}  // namespace
}  // namespace ckpt
