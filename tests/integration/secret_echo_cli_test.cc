// Through the ckptbench binary (issue 27, item 9): an S3 or GCS endpoint
// that answers 403 echoing the request's headers, literally, URL-encoded
// and JSON-escaped, puts no credential into stderr or result.json.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/secrets.h"
#include "tests/testing/stub_http_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

const char kSessionToken[] =
    "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+cli/echo=";
const char kSecretKey[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYCLISECRET+y";
const char kBearer[] = "ya29.a0AfB_byC+cli/bearer-token-0123456789abcdefgh==";

// The request's head three times: literally, URL-encoded, JSON-escaped.
std::string Echo(const StubRequest& r) {
  std::string url, json;
  for (unsigned char c : r.head) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      url += static_cast<char>(c);
    } else {
      char hex[4];
      snprintf(hex, sizeof(hex), "%%%02X", c);
      url += hex;
    }
    if (c == '"' || c == '\\' || c == '/') json += '\\';
    json += c == '\r'   ? std::string("\\r")
            : c == '\n' ? std::string("\\n")
                        : std::string(1, static_cast<char>(c));
  }
  return "You sent: " + r.head + " | " + url + " | " + json;
}

// Runs ckptbench against `env` (a failing save-only run) and checks that no
// form of any of `secrets` reaches its stderr, stdout or result.json.
void RunAndCheck(std::map<std::string, std::string> env,
                 const std::vector<std::string>& secrets,
                 const std::string& expected_error) {
  TempDir t;
  env["HOME"] = t.path();
  env["NUM_DEVICES"] = "1";
  env["NUM_LAYERS"] = "1";
  env["NUM_SAVE_CALLS"] = "1";
  auto r = RunProcess(
      {CkptbenchBinary(), "run", "--save-only", "--results-dir", t.Sub("res")},
      env);
  EXPECT_NE(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find(expected_error), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[redacted]"), std::string::npos) << r.err;
  const std::string result = ReadFile(t.Sub("res/result.json"));
  ASSERT_FALSE(result.empty()) << r.err;
  EXPECT_NE(result.find(expected_error), std::string::npos) << result;
  for (const std::string& secret : secrets) {
    for (const std::string& form : SecretForms(secret)) {
      EXPECT_EQ(r.err.find(form), std::string::npos) << form << " in stderr";
      EXPECT_EQ(r.out.find(form), std::string::npos) << form << " in stdout";
      EXPECT_EQ(result.find(form), std::string::npos)
          << form << " in result.json";
    }
  }
}

TEST(SecretEchoCli, AnS3SessionTokenEchoedBackReachesNoOutput) {
  StubHttpServer s3([](const StubRequest& r) {
    return StubResponse{403, "<Error><Code>AccessDenied</Code><Message>" +
                                 Echo(r) + "</Message></Error>"};
  });
  RunAndCheck({{"CKPT_DIR_PATH", "s3://bucket/run"},
               {"AWS_ENDPOINT_URL_S3", s3.url()},
               {"AWS_ACCESS_KEY_ID", "ASIACLIECHOTEST"},
               {"AWS_SECRET_ACCESS_KEY", kSecretKey},
               {"AWS_SESSION_TOKEN", kSessionToken},
               {"AWS_EC2_METADATA_DISABLED", "true"}},
              {kSessionToken, kSecretKey}, "HTTP 403 AccessDenied");
  ASSERT_FALSE(s3.requests().empty());
  EXPECT_NE(s3.requests()[0].head.find(kSessionToken), std::string::npos)
      << "sent, and so echoed";
}

TEST(SecretEchoCli, AGcsBearerTokenEchoedBackReachesNoOutput) {
  StubHttpServer gcs([](const StubRequest& r) {
    std::string message;
    for (char c : Echo(r)) {
      if (c == '"' || c == '\\') message += '\\';
      message += c == '\r'   ? std::string("\\r")
                 : c == '\n' ? std::string("\\n")
                             : std::string(1, c);
    }
    return StubResponse{
        403, "{\"error\": {\"code\": 403, \"message\": \"" + message +
                 "\", \"errors\": [{\"reason\": \"forbidden\"}]}}"};
  });
  RunAndCheck({{"CKPT_DIR_PATH", "gs://bucket/run"},
               {"CKPT_GCS_ENDPOINT", gcs.url()},
               {"GOOGLE_OAUTH_ACCESS_TOKEN", kBearer},
               {"NO_GCE_CHECK", "true"}},
              {kBearer}, "HTTP 403 forbidden");
  ASSERT_FALSE(gcs.requests().empty());
  EXPECT_NE(gcs.requests()[0].head.find(kBearer), std::string::npos);
}

}  // namespace
}  // namespace ckpt
