// Servers that echo the request back in a 403 (issue 27, item 9): the
// session token S3 requests carry (x-amz-security-token) and the bearer
// token of GCS requests (Authorization) came back in the error's text,
// and from there into stderr and result.json. Now every credential the
// node holds is scrubbed from errors built from a server's answer, and
// from every error that leaves the node, in every encoding.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/ascii.h"
#include "common/config_loader.h"
#include "common/secrets.h"
#include "node/storage/gcs_client.h"
#include "node/storage/gcs_credentials.h"
#include "node/storage/s3_client.h"
#include "tests/testing/stub_http_server.h"
#include "tests/testing/temp_dir.h"
#include "wire/error_kind.h"

namespace ckpt {
namespace {

// Long, with the characters whose encodings differ ('/', '+', '=').
const char kSessionToken[] =
    "IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD+sess/ion=";
const char kSecretKey[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY+x";
const char kBearer[] = "ya29.a0AfB_byC+bearer/token-0123456789abcdefghij==";

// `text` percent-encoded (uppercase hex; only A-Z a-z 0-9 - _ . ~ kept).
std::string UrlEncoded(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      char hex[4];
      snprintf(hex, sizeof(hex), "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

// `text` as a JSON string's inside, '/' escaped as some encoders do.
std::string JsonEscaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\' || c == '/') out += '\\';
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

// Every request echoed back: its head literally, URL-encoded and
// JSON-escaped, for a 403 in the store's own error format.
std::string Echo(const StubRequest& r) {
  return "You sent: " + r.head + " | " + UrlEncoded(r.head) + " | " +
         JsonEscaped(r.head);
}

void ExpectNoForm(const std::string& text, const std::string& secret) {
  for (const std::string& form : SecretForms(secret)) {
    EXPECT_EQ(text.find(form), std::string::npos)
        << "a form of a secret (" << form << ") in: " << text;
  }
  // And no long piece of it either (a token cut at a '/' or '=').
  EXPECT_EQ(text.find(secret.substr(0, 20)), std::string::npos) << text;
}

TEST(SecretEcho, AnS3SessionTokenEchoedInA403IsScrubbed) {
  StubHttpServer s3([](const StubRequest& r) {
    return StubResponse{
        403,
        "<Error><Code>AccessDenied</Code><Message>" + Echo(r) +
            "</Message></Error>",
        "x-amz-echo: " + r.head.substr(0, r.head.find("\r\n")) + "\r\n"};
  });
  std::map<std::string, std::string> env = {
      {"AWS_ACCESS_KEY_ID", "ASIAECHOTEST"},
      {"AWS_SECRET_ACCESS_KEY", kSecretKey},
      {"AWS_SESSION_TOKEN", kSessionToken},
      {"AWS_EC2_METADATA_DISABLED", "true"}};
  auto chain =
      std::make_shared<AwsCredentialChain>([env](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
      });
  S3Config config;
  config.endpoint = s3.url();
  S3Client client(config, chain);
  auto rep = client.Do(MakeS3Call(HttpMethod::kGet, "bucket", "key"));
  ASSERT_FALSE(rep.ok());
  ASSERT_EQ(s3.requests().size(), 1u);
  ASSERT_NE(s3.requests()[0].head.find(kSessionToken), std::string::npos)
      << "the token was sent, and so echoed";
  const std::string msg(rep.status().message());
  EXPECT_TRUE(absl::IsPermissionDenied(rep.status())) << rep.status();
  EXPECT_NE(msg.find("HTTP 403 AccessDenied: You sent: GET /bucket/key"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("x-amz-security-token: [redacted]"), std::string::npos)
      << msg;
  ExpectNoForm(msg, kSessionToken);
  ExpectNoForm(msg, kSecretKey);
}

// GCS credentials that hold kBearer (GOOGLE_OAUTH_ACCESS_TOKEN) and never
// ask a metadata server.
std::shared_ptr<GcsCredentials> BearerCredentials() {
  auto env = std::make_shared<std::map<std::string, std::string>>(
      std::map<std::string, std::string>{{"GOOGLE_OAUTH_ACCESS_TOKEN", kBearer},
                                         {"NO_GCE_CHECK", "true"}});
  return std::make_shared<GcsCredentials>([env](const char* n) -> const char* {
    auto it = env->find(n);
    return it == env->end() ? nullptr : it->second.c_str();
  });
}

TEST(SecretEcho, AGcsBearerTokenEchoedInA403IsScrubbed) {
  StubHttpServer gcs([](const StubRequest& r) {
    return StubResponse{403,
                        "{\"error\": {\"code\": 403, \"message\": \"" +
                            JsonEscaped(Echo(r)) +
                            "\", \"errors\": [{\"reason\": \"forbidden\"}]}}",
                        "Content-Type: application/json\r\n"};
  });
  auto creds = BearerCredentials();
  GcsConfig config;
  config.endpoint = gcs.url();
  GcsClient client(config, creds);
  GcsCall call;
  call.path = GcsClient::ObjectPath({"bucket", "dir/object"});
  auto rep = client.Do(call);
  ASSERT_FALSE(rep.ok());
  ASSERT_EQ(gcs.requests().size(), 1u);
  ASSERT_NE(gcs.requests()[0].head.find(std::string("Bearer ") + kBearer),
            std::string::npos);
  const std::string msg(rep.status().message());
  EXPECT_TRUE(absl::IsPermissionDenied(rep.status())) << rep.status();
  EXPECT_NE(msg.find("HTTP 403 forbidden: You sent: GET"), std::string::npos)
      << msg;
  EXPECT_NE(msg.find("Authorization: Bearer [redacted]"), std::string::npos)
      << msg;
  ExpectNoForm(msg, kBearer);
}

// Whatever built it, an error leaving the node (a reply's `error`, which
// the coordinator logs and writes to result.json) holds no registered
// secret.
// gcs.anonymous (what STORAGE_EMULATOR_HOST resolves to on the coordinator)
// sends no token to an emulator's plain-HTTP endpoint, even from a node
// whose own environment holds one.
TEST(SecretEcho, AnAnonymousGcsClientSendsNoTokenWhateverTheNodeHolds) {
  StubHttpServer gcs([](const StubRequest&) {
    return StubResponse{200, "{}", "Content-Type: application/json\r\n"};
  });
  auto creds = BearerCredentials();
  GcsConfig config;
  config.endpoint = gcs.url();
  config.anonymous = true;
  GcsClient client(config, creds);
  GcsCall call;
  call.path = GcsClient::ObjectPath({"bucket", "dir/object"});
  auto rep = client.Do(call);
  ASSERT_TRUE(rep.ok()) << rep.status();
  ASSERT_EQ(gcs.requests().size(), 1u);
  EXPECT_EQ(gcs.requests()[0].head.find(kBearer), std::string::npos);
  EXPECT_EQ(absl::AsciiStrToLower(gcs.requests()[0].head).find("authorization"),
            std::string::npos)
      << gcs.requests()[0].head;
  // The same client, not anonymous, sends it (the check above can fail).
  config.anonymous = false;
  GcsClient signed_client(config, creds);
  ASSERT_TRUE(signed_client.Do(call).ok());
  ASSERT_EQ(gcs.requests().size(), 2u);
  EXPECT_NE(gcs.requests()[1].head.find(std::string("Bearer ") + kBearer),
            std::string::npos);
}

TEST(SecretEcho, ErrorsLeavingTheNodeAreScrubbed) {
  const std::string token = "node-held-bearer-token/with+chars=0123456789";
  RegisterSecret(token);
  v1::PhaseReport report;
  SetError(absl::PermissionDeniedError("denied for Bearer " + token + " (" +
                                       UrlEncoded(token) + ")"),
           &report);
  EXPECT_EQ(report.error(), "denied for Bearer [redacted] ([redacted])");
  EXPECT_EQ(report.error_kind(), v1::ERROR_KIND_AUTH);
}

// A token endpoint whose error description quotes the form it was sent:
// the refresh token and client secret (URL-encoded there) are scrubbed.
TEST(SecretEcho, ATokenEndpointEchoingTheRefreshTokenIsScrubbed) {
  StubHttpServer token_server([](const StubRequest& r) {
    return StubResponse{400,
                        "{\"error\": \"invalid_grant\", "
                        "\"error_description\": \"bad grant in " +
                            r.body + "\"}"};
  });
  TempDir t;
  const std::string refresh = "1//0gRefresh-Token+With/Slashes=0123456789";
  const std::string client_secret = "GOCSPX-client-secret-0123456789";
  std::ofstream(t.Sub("user.json"))
      << "{\"type\": \"authorized_user\", \"client_id\": \"cid\", "
         "\"client_secret\": \""
      << client_secret << "\", \"refresh_token\": \"" << refresh
      << "\", \"token_uri\": \"" << token_server.url() << "/token\"}";
  auto env = std::make_shared<std::map<std::string, std::string>>(
      std::map<std::string, std::string>{
          {"GOOGLE_APPLICATION_CREDENTIALS", t.Sub("user.json")},
          {"HOME", t.path()},
          {"NO_GCE_CHECK", "true"}});
  GcsCredentials creds([env](const char* n) -> const char* {
    auto it = env->find(n);
    return it == env->end() ? nullptr : it->second.c_str();
  });
  auto tok = creds.Get();
  ASSERT_FALSE(tok.ok());
  const std::string msg(tok.status().message());
  EXPECT_NE(msg.find("invalid_grant: bad grant in grant_type=refresh_token"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("refresh_token=[redacted]"), std::string::npos) << msg;
  ExpectNoForm(msg, refresh);
  ExpectNoForm(msg, client_secret);
}

// The control channel's shared token is registered when the configuration
// is loaded (a key marked secret), wherever it was set.
TEST(SecretEcho, TheControlTokenIsRegisteredWhenTheConfigIsLoaded) {
  const std::string token = "control-token-for-nodes-0123456789";
  LoadOptions options;
  options.getenv = [&](const char* n) -> const char* {
    return std::string(n) == "CKPT_TOKEN" ? token.c_str() : nullptr;
  };
  ASSERT_TRUE(LoadConfig(options).ok());
  EXPECT_EQ(ScrubSecrets("register with " + token), "register with [redacted]");
}

}  // namespace
}  // namespace ckpt
