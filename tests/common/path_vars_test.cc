#include "common/path_vars.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

namespace ckpt {
namespace {

// Sets NAME for the test's lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    setenv(name, value, 1);
  }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(ExpandPathVars, NamesAreReplacedByTheirValues) {
  ScopedEnv n("CKPT_TEST_JS_NAME", "ckptbench-b");
  ScopedEnv u("CKPT_TEST_JS_UID", "0f6c1e9a-73a4-4c2b-9d7e-2a1b3c4d5e6f");
  auto r = ExpandPathVars("/results/${CKPT_TEST_JS_NAME}-${CKPT_TEST_JS_UID}",
                          "--results-dir");
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(*r, "/results/ckptbench-b-0f6c1e9a-73a4-4c2b-9d7e-2a1b3c4d5e6f");
  // No ${: unchanged, '$' included.
  EXPECT_EQ(*ExpandPathVars("out/$x/a$", "d"), "out/$x/a$");
  EXPECT_EQ(*ExpandPathVars("s3://b/${CKPT_TEST_JS_NAME}", "d"),
            "s3://b/ckptbench-b");
}

TEST(ExpandPathVars, AnUnsetOrEmptyVariableIsNamed) {
  unsetenv("CKPT_TEST_UNSET");
  auto r = ExpandPathVars("/results/${CKPT_TEST_UNSET}", "--results-dir");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "--results-dir /results/${CKPT_TEST_UNSET}: the environment "
            "variable CKPT_TEST_UNSET it names is not set");
  ScopedEnv e("CKPT_TEST_EMPTY", "");
  r = ExpandPathVars("${CKPT_TEST_EMPTY}", "--results-dir");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("CKPT_TEST_EMPTY it names is empty"),
            std::string::npos);
}

TEST(ExpandPathVars, AValueCannotLeaveItsComponent) {
  for (const char* bad : {"..", ".", "a/b", "../etc", "x\n", "a b",
                          "\x1b[31mred", "caf\xC3\xA9"}) {
    ScopedEnv v("CKPT_TEST_BAD", bad);
    auto r = ExpandPathVars("/results/${CKPT_TEST_BAD}", "--results-dir");
    ASSERT_FALSE(r.ok()) << bad;
    const std::string msg(r.status().message());
    EXPECT_NE(msg.find("CKPT_TEST_BAD ("), std::string::npos) << msg;
    EXPECT_NE(msg.find("is not one path component"), std::string::npos);
    // The value itself never reaches the message.
    EXPECT_EQ(msg.find('\x1b'), std::string::npos);
    EXPECT_EQ(msg.find('\n'), std::string::npos);
  }
  ScopedEnv v("CKPT_TEST_LONG", std::string(254, 'a').c_str());
  EXPECT_FALSE(ExpandPathVars("${CKPT_TEST_LONG}", "d").ok());
}

TEST(ExpandPathVars, AMalformedReferenceSaysWhere) {
  for (const char* bad :
       {"/r/${", "/r/${}", "/r/${A", "/r/${1A}", "/r/${A-B}"}) {
    auto r = ExpandPathVars(bad, "--results-dir");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("expected ${NAME}"), std::string::npos)
        << r.status();
    EXPECT_NE(r.status().message().find("at character 4"), std::string::npos)
        << r.status();
  }
}

}  // namespace
}  // namespace ckpt
