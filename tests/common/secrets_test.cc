// The process-wide secret registry: every registered value is scrubbed
// from text in each form it takes on the wire (literal, URL-encoded in
// either hex case with '/' kept or encoded and a space as %20 or '+',
// JSON- and XML-escaped), wherever it stands; short values are ignored.
#include "common/secrets.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "common/log.h"

namespace ckpt {
namespace {

class SecretsTest : public ::testing::Test {
 protected:
  void SetUp() override { ClearSecretsForTesting(); }
  void TearDown() override { ClearSecretsForTesting(); }
};

// A session token as STS issues them: base64 with '/', '+' and '='.
const std::string kToken =
    "FwoGZXIvYXdzEJr//////////wEaDH+q3/ab+cd=Zx9kLmN0pQrS==";

TEST_F(SecretsTest, NothingRegisteredLeavesTextAlone) {
  EXPECT_EQ(ScrubSecrets("HTTP 403 AccessDenied: " + kToken),
            "HTTP 403 AccessDenied: " + kToken);
}

TEST_F(SecretsTest, ValuesShorterThanEightCharactersAreIgnored) {
  RegisterSecret("testing");  // 7: Swift's test secret, an ordinary word
  RegisterSecret("");
  EXPECT_EQ(ScrubSecrets("user test:tester, secret testing"),
            "user test:tester, secret testing");
  RegisterSecret("12345678");  // 8: registered
  EXPECT_EQ(ScrubSecrets("pin 12345678."), "pin [redacted].");
}

TEST_F(SecretsTest, LiteralAnywhereInTheText) {
  RegisterSecret(kToken);
  EXPECT_EQ(ScrubSecrets(kToken), "[redacted]");
  EXPECT_EQ(ScrubSecrets("x-amz-security-token: " + kToken + "\r\nHost: h"),
            "x-amz-security-token: [redacted]\r\nHost: h");
  EXPECT_EQ(ScrubSecrets("a" + kToken + "b" + kToken),
            "a[redacted]b[redacted]");
}

TEST_F(SecretsTest, UrlEncodedInEveryCommonForm) {
  RegisterSecret(kToken);
  // '/' -> %2F or kept, '+' -> %2B, '=' -> %3D; hex in either case.
  std::string upper, lower, slash_kept;
  for (char c : kToken) {
    if (c == '/') {
      upper += "%2F", lower += "%2f", slash_kept += "/";
    } else if (c == '+') {
      upper += "%2B", lower += "%2b", slash_kept += "%2B";
    } else if (c == '=') {
      upper += "%3D", lower += "%3d", slash_kept += "%3D";
    } else {
      upper += c, lower += c, slash_kept += c;
    }
  }
  for (const std::string& form : {upper, lower, slash_kept}) {
    EXPECT_EQ(ScrubSecrets("?X-Amz-Security-Token=" + form + "&x=1"),
              "?X-Amz-Security-Token=[redacted]&x=1")
        << form;
  }
  RegisterSecret("pass phrase with spaces");
  EXPECT_EQ(ScrubSecrets("p=pass+phrase+with+spaces&q=pass%20phrase%20with"
                         "%20spaces"),
            "p=[redacted]&q=[redacted]");
}

TEST_F(SecretsTest, JsonAndXmlEscaped) {
  const std::string key =
      "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\"kq/hkiG9w0\n-----END "
      "PRIVATE KEY-----\n";
  RegisterSecret(key);
  EXPECT_EQ(ScrubSecrets("{\"private_key\": \"-----BEGIN PRIVATE "
                         "KEY-----\\nMIIEvQIBADANBg\\\"kq/hkiG9w0\\n-----END "
                         "PRIVATE KEY-----\\n\"}"),
            "{\"private_key\": \"[redacted]\"}");
  EXPECT_EQ(ScrubSecrets("\"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\\""
                         "kq\\/hkiG9w0\\n-----END PRIVATE KEY-----\\n\""),
            "\"[redacted]\"");
  RegisterSecret("a<b&c>d\"e'f");
  EXPECT_EQ(ScrubSecrets("<Message>a&lt;b&amp;c&gt;d&quot;e&apos;f</Message>"),
            "<Message>[redacted]</Message>");
}

TEST_F(SecretsTest, SeveralOverlappingAndNestedSecretsBecomeOneMarkerEach) {
  RegisterSecret("abcdefgh12345678");
  RegisterSecret("12345678zyxwvuts");  // overlaps the first's tail
  RegisterSecret("cdefgh12");          // inside the first
  RegisterSecret("ya29.bearer-token-value");
  EXPECT_EQ(ScrubSecrets("[abcdefgh12345678zyxwvuts]"), "[[redacted]]");
  EXPECT_EQ(ScrubSecrets("x cdefgh12 y abcdefgh12345678 z"),
            "x [redacted] y [redacted] z");
  EXPECT_EQ(ScrubSecrets("Bearer ya29.bearer-token-value, key "
                         "12345678zyxwvuts"),
            "Bearer [redacted], key [redacted]");
  // Touching occurrences are one run of secret bytes: one marker.
  EXPECT_EQ(ScrubSecrets("abcdefgh12345678ya29.bearer-token-value"),
            "[redacted]");
}

TEST_F(SecretsTest, RegisteringAndScrubbingFromManyThreads) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 200; ++i) {
        const std::string s =
            "secret-" + std::to_string(t) + "-" + std::to_string(i);
        RegisterSecret(s);
        EXPECT_EQ(ScrubSecrets("[" + s + "]"), "[[redacted]]");
      }
    });
  }
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// Log lines and printed errors are scrubbed where they are written, so a
// secret quoted by any code path never reaches stderr.
TEST(SecretsInLogs, LogLinesAndPrintedErrorsAreScrubbed) {
  ClearSecretsForTesting();
  const std::string token = "FwoGZXIvYXdzEJr//////////wEaDLog+Token/Value==";
  RegisterSecret(token);
  ::testing::internal::CaptureStderr();
  LOG_WARN("server said: x-amz-security-token: %s", token);
  PrintError("echoed " + token);
  const std::string err = ::testing::internal::GetCapturedStderr();
  ClearSecretsForTesting();
  EXPECT_EQ(err.find("Log+Token"), std::string::npos) << err;
  EXPECT_NE(err.find("x-amz-security-token: [redacted]"), std::string::npos)
      << err;
  EXPECT_NE(err.find("ckptbench: echoed [redacted]"), std::string::npos) << err;
}

}  // namespace
}  // namespace ckpt
