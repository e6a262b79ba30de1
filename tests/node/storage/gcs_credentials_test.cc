// GCS credentials from each source, against loopback stubs standing in for
// the OAuth token endpoint and the metadata server (tests never reach the
// real ones): the service-account JWT is checked with openssl and the
// public key, tokens refresh before they expire, and errors name the
// sources tried without any secret.
#include "node/storage/gcs_credentials.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "absl/strings/str_split.h"
#include "tests/testing/base64url.h"
#include "tests/testing/certs.h"
#include "tests/testing/fifo.h"
#include "tests/testing/stub_http_server.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

EnvLookup EnvOf(std::shared_ptr<std::map<std::string, std::string>> env) {
  return [env](const char* n) -> const char* {
    auto it = env->find(n);
    return it == env->end() ? nullptr : it->second.c_str();
  };
}

// An environment with nothing set but a HOME without gcloud files and the
// metadata server pointed at a closed loopback port.
std::shared_ptr<std::map<std::string, std::string>> BareEnv(const TempDir& t) {
  return std::make_shared<std::map<std::string, std::string>>(
      std::map<std::string, std::string>{
          {"HOME", t.path()},
          {"GCE_METADATA_HOST", "127.0.0.1:" + std::to_string(FreePort())}});
}

std::string FormValue(const std::string& body, const std::string& key) {
  for (auto kv : absl::StrSplit(body, '&')) {
    std::string s(kv);
    if (s.rfind(key + "=", 0) == 0) return s.substr(key.size() + 1);
  }
  return "";
}

TEST(GcsCredentials, EmulatorHostMeansNoAuthorization) {
  TempDir t;
  auto env = BareEnv(t);
  (*env)["STORAGE_EMULATOR_HOST"] = "http://127.0.0.1:4443";
  (*env)["GOOGLE_OAUTH_ACCESS_TOKEN"] = "ya29.unused";
  GcsCredentials c(EnvOf(env));
  auto tok = c.Get();
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->access_token, "");
  EXPECT_EQ(tok->source, "emulator");
}

TEST(GcsCredentials, AccessTokenFromTheEnvironment) {
  TempDir t;
  auto env = BareEnv(t);
  (*env)["GOOGLE_OAUTH_ACCESS_TOKEN"] = "ya29.from-env";
  GcsCredentials c(EnvOf(env));
  auto tok = c.Get();
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->access_token, "ya29.from-env");
  EXPECT_EQ(tok->source, "environment");
}

TEST(GcsCredentials, ServiceAccountJwtIsSignedExchangedAndRefreshed) {
  TempDir t;
  ASSERT_TRUE(MakeRsaKeyPair(t.path()));
  int issued = 0;
  StubHttpServer token_server([&](const StubRequest&) {
    // A one-second token: refreshed once half its life is gone.
    return StubResponse{
        200, json({{"access_token", "ya29.t" + std::to_string(++issued)},
                   {"expires_in", 1},
                   {"token_type", "Bearer"}})
                 .dump()};
  });
  const std::string token_uri = token_server.url() + "/token";
  json key = {{"type", "service_account"},
              {"project_id", "p"},
              {"private_key_id", "kid-123"},
              {"private_key", ReadFile(t.Sub("key.pem"))},
              {"client_email", "bench@p.iam.gserviceaccount.com"},
              {"token_uri", token_uri}};
  std::ofstream(t.Sub("sa.json")) << key.dump();
  auto env = BareEnv(t);
  (*env)["GOOGLE_APPLICATION_CREDENTIALS"] = t.Sub("sa.json");
  GcsCredentials c(EnvOf(env));
  auto tok = c.Get();
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->access_token, "ya29.t1");
  EXPECT_EQ(tok->source, "service account bench@p.iam.gserviceaccount.com");
  EXPECT_EQ(c.Get()->access_token, "ya29.t1");  // cached

  auto reqs = token_server.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_EQ(reqs[0].target, "/token");
  EXPECT_EQ(FormValue(reqs[0].body, "grant_type"),
            "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer");
  std::vector<std::string> jwt =
      absl::StrSplit(FormValue(reqs[0].body, "assertion"), '.');
  ASSERT_EQ(jwt.size(), 3u);
  json header = json::parse(Base64UrlDecode(jwt[0]));
  json claims = json::parse(Base64UrlDecode(jwt[1]));
  EXPECT_EQ(header["alg"], "RS256");
  EXPECT_EQ(header["kid"], "kid-123");
  EXPECT_EQ(claims["iss"], "bench@p.iam.gserviceaccount.com");
  EXPECT_EQ(claims["aud"], token_uri);
  EXPECT_EQ(claims["scope"], GcsCredentials::kScope);
  EXPECT_EQ(claims["exp"].get<int64_t>() - claims["iat"].get<int64_t>(), 3600);
  EXPECT_TRUE(OpensslVerifiesSha256(t.path(), jwt[0] + "." + jwt[1],
                                    Base64UrlDecode(jwt[2])));

  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  auto again = c.Get();
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->access_token, "ya29.t2");
  EXPECT_EQ(token_server.requests().size(), 2u);
}

TEST(GcsCredentials, MetadataServerAtGceMetadataHost) {
  StubHttpServer metadata([](const StubRequest& r) {
    if (r.head.find("Metadata-Flavor: Google") == std::string::npos)
      return StubResponse{403, "missing Metadata-Flavor"};
    return StubResponse{
        200,
        R"({"access_token":"ya29.md","expires_in":3599,"token_type":"Bearer"})"};
  });
  TempDir t;
  auto env = BareEnv(t);
  (*env)["GCE_METADATA_HOST"] = "127.0.0.1:" + std::to_string(metadata.port());
  GcsCredentials c(EnvOf(env));
  auto tok = c.Get();
  ASSERT_TRUE(tok.ok()) << tok.status();
  EXPECT_EQ(tok->access_token, "ya29.md");
  EXPECT_EQ(tok->source, "metadata");
  ASSERT_EQ(metadata.requests().size(), 1u);
  EXPECT_EQ(metadata.requests()[0].target,
            "/computeMetadata/v1/instance/service-accounts/default/token");
}

// NO_GCE_CHECK in any of the configuration's true spellings, or
// METADATA_SERVER_DETECTION=none, keeps the chain off the metadata server;
// a false value does not.
TEST(GcsCredentials, TheMetadataServerSwitchesOffInEverySpelling) {
  StubHttpServer metadata([](const StubRequest&) {
    return StubResponse{
        200,
        R"({"access_token":"ya29.md","expires_in":3599,"token_type":"Bearer"})"};
  });
  TempDir t;
  const std::vector<std::pair<std::string, std::string>> off = {
      {"NO_GCE_CHECK", "true"},
      {"NO_GCE_CHECK", "True"},
      {"NO_GCE_CHECK", "TRUE"},
      {"NO_GCE_CHECK", "1"},
      {"NO_GCE_CHECK", "yes"},
      {"METADATA_SERVER_DETECTION", "none"},
      {"METADATA_SERVER_DETECTION", "NONE"}};
  for (const auto& [name, value] : off) {
    auto env = BareEnv(t);
    (*env)["GCE_METADATA_HOST"] =
        "127.0.0.1:" + std::to_string(metadata.port());
    (*env)[name] = value;
    GcsCredentials c(EnvOf(env));
    auto tok = c.Get();
    EXPECT_FALSE(tok.ok()) << name << "=" << value;
    EXPECT_NE(tok.status().message().find("off"), std::string::npos)
        << tok.status();
  }
  EXPECT_EQ(metadata.requests().size(), 0u);
  auto env = BareEnv(t);
  (*env)["GCE_METADATA_HOST"] = "127.0.0.1:" + std::to_string(metadata.port());
  (*env)["METADATA_SERVER_DETECTION"] = "assume-present";
  // A false value, or one that is no boolean, leaves it on.
  for (const char* value : {"false", "0", "maybe"}) {
    (*env)["NO_GCE_CHECK"] = value;
    GcsCredentials on(EnvOf(env));
    auto tok = on.Get();
    EXPECT_TRUE(tok.ok()) << value << ": " << tok.status();
  }
  EXPECT_EQ(metadata.requests().size(), 3u);
}

TEST(GcsCredentials, RefusedCredentialsNameTheServersErrorNeverTheSecret) {
  StubHttpServer token_server([](const StubRequest&) {
    return StubResponse{
        400, R"({"error":"invalid_grant","error_description":"Bad Request"})"};
  });
  TempDir t;
  json user = {{"type", "authorized_user"},
               {"client_id", "cid"},
               {"client_secret", "csecret-do-not-print"},
               {"refresh_token", "1//refresh-do-not-print"},
               {"token_uri", token_server.url() + "/token"}};
  std::ofstream(t.Sub("user.json")) << user.dump();
  auto env = BareEnv(t);
  (*env)["GOOGLE_APPLICATION_CREDENTIALS"] = t.Sub("user.json");
  GcsCredentials c(EnvOf(env));
  auto tok = c.Get();
  ASSERT_FALSE(tok.ok());
  const std::string msg(tok.status().message());
  EXPECT_NE(msg.find("invalid_grant"), std::string::npos) << msg;
  EXPECT_NE(msg.find("HTTP 400"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("do-not-print"), std::string::npos) << msg;
  EXPECT_NE(token_server.requests()[0].body.find("refresh_token=1%2F%2F"),
            std::string::npos);
}

TEST(GcsCredentials, NothingFoundNamesEverySourceTried) {
  TempDir t;
  auto env = BareEnv(t);
  GcsCredentials c(EnvOf(env));
  auto tok = c.Get();
  ASSERT_FALSE(tok.ok());
  EXPECT_TRUE(absl::IsUnauthenticated(tok.status())) << tok.status();
  const std::string msg(tok.status().message());
  for (const char* s :
       {"STORAGE_EMULATOR_HOST", "GOOGLE_OAUTH_ACCESS_TOKEN",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "application_default_credentials.json", "metadata server"}) {
    EXPECT_NE(msg.find(s), std::string::npos) << s << " in " << msg;
  }
  (*env)["NO_GCE_CHECK"] = "true";
  GcsCredentials off(EnvOf(env));
  EXPECT_NE(off.Get().status().message().find("off"), std::string::npos);
  (*env)["GOOGLE_APPLICATION_CREDENTIALS"] = t.Sub("missing.json");
  GcsCredentials missing(EnvOf(env));
  EXPECT_NE(missing.Get().status().message().find("cannot be read"),
            std::string::npos);
}

// Issue 27, items 3 and 4: a key file that is a device or a FIFO, or far
// too large, is refused at once by kind or size, naming where it came from.
TEST(GcsCredentials, AKeyFileThatIsADeviceAFifoOrHugeIsRefusedAtOnce) {
  TempDir t;
  auto env = BareEnv(t);
  (*env)["NO_GCE_CHECK"] = "true";
  (*env)["GOOGLE_APPLICATION_CREDENTIALS"] = "/dev/zero";
  auto device = GcsCredentials(EnvOf(env)).Get();
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.status().message().find(
                "(GOOGLE_APPLICATION_CREDENTIALS) /dev/zero is a character "
                "device: expected a regular file"),
            std::string::npos)
      << device.status();

  std::ofstream(t.Sub("huge.json")) << std::string((1 << 20) + 1, ' ');
  (*env)["GOOGLE_APPLICATION_CREDENTIALS"] = t.Sub("huge.json");
  auto huge = GcsCredentials(EnvOf(env)).Get();
  ASSERT_FALSE(huge.ok());
  EXPECT_NE(huge.status().message().find("more than the 1.00 MiB allowed"),
            std::string::npos)
      << huge.status();

  // gcloud's application-default file, found under HOME, as a FIFO.
  env->erase("GOOGLE_APPLICATION_CREDENTIALS");
  const std::string dir = t.Sub(".config/gcloud");
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/application_default_credentials.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  bool blocked = false;
  auto adc = CallBesideFifo(fifo, 5, &blocked,
                            [&] { return GcsCredentials(EnvOf(env)).Get(); });
  ASSERT_FALSE(blocked) << "the lookup blocked opening the FIFO";
  ASSERT_FALSE(adc.ok());
  EXPECT_NE(
      adc.status().message().find(fifo + " is a FIFO: expected a regular file"),
      std::string::npos)
      << adc.status();
}

}  // namespace
}  // namespace ckpt
