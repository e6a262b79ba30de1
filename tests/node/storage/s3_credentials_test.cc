// The AWS credential chain, each source against files and a loopback stub
// standing in for STS, the container endpoint and IMDS (no real cloud
// endpoint is ever contacted).
#include "node/storage/s3_credentials.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <ctime>
#include <fstream>
#include <map>

#include "tests/testing/descriptors.h"
#include "tests/testing/fifo.h"
#include "tests/testing/stub_http_server.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

struct Env {
  std::map<std::string, std::string> vars = {
      {"AWS_EC2_METADATA_DISABLED", "true"}, {"HOME", "/nonexistent-home"}};
  EnvLookup Fn() {
    return [this](const char* n) -> const char* {
      auto it = vars.find(n);
      return it == vars.end() ? nullptr : it->second.c_str();
    };
  }
};

std::string Iso(int64_t unix_seconds) {
  std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm;
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

TEST(AwsCredentials, EnvironmentComesFirst) {
  Env env;
  env.vars["AWS_ACCESS_KEY_ID"] = "AKIDENV";
  env.vars["AWS_SECRET_ACCESS_KEY"] = "secret";
  env.vars["AWS_SESSION_TOKEN"] = "tok";
  AwsCredentialChain chain(env.Fn());
  auto c = chain.Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "AKIDENV");
  EXPECT_EQ(c->session_token, "tok");
  EXPECT_EQ(c->source, "environment");
}

TEST(AwsCredentials, SharedFileWithProfile) {
  TempDir t;
  std::ofstream(t.Sub("creds"))
      << "[default]\naws_access_key_id = AKIDDEF\n"
         "aws_secret_access_key = s1\n\n[prod]\n"
         "aws_access_key_id=AKIDPROD\naws_secret_access_key=s2\n";
  Env env;
  env.vars["AWS_SHARED_CREDENTIALS_FILE"] = t.Sub("creds");
  env.vars["AWS_PROFILE"] = "prod";
  auto c = AwsCredentialChain(env.Fn()).Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "AKIDPROD");
  env.vars["AWS_PROFILE"] = "nope";
  auto missing = AwsCredentialChain(env.Fn()).Get();
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(std::string(missing.status().message())
                .find("AWS_PROFILE=nope: no such profile"),
            std::string::npos);
}

TEST(AwsCredentials, WebIdentityThroughSts) {
  TempDir t;
  std::ofstream(t.Sub("token")) << "eyJ.jwt.token\n";
  int64_t exp = std::time(nullptr) + 3600;
  StubHttpServer sts([&](const StubRequest&) {
    return StubResponse{
        200,
        "<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult>"
        "<Credentials><AccessKeyId>ASIAWEB</AccessKeyId>"
        "<SecretAccessKey>websecret</SecretAccessKey>"
        "<SessionToken>websession</SessionToken><Expiration>" +
            Iso(exp) +
            "</Expiration></Credentials></AssumeRoleWithWebIdentityResult>"
            "</AssumeRoleWithWebIdentityResponse>"};
  });
  Env env;
  env.vars["AWS_WEB_IDENTITY_TOKEN_FILE"] = t.Sub("token");
  env.vars["AWS_ROLE_ARN"] = "arn:aws:iam::123456789012:role/ckpt";
  env.vars["AWS_ENDPOINT_URL_STS"] = sts.url();
  auto c = AwsCredentialChain(env.Fn()).Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "ASIAWEB");
  EXPECT_EQ(c->session_token, "websession");
  EXPECT_EQ(c->expires_unix, exp);
  auto reqs = sts.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].method, "POST");
  EXPECT_NE(reqs[0].body.find("Action=AssumeRoleWithWebIdentity"),
            std::string::npos);
  EXPECT_NE(reqs[0].body.find(
                "RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Fckpt"),
            std::string::npos)
      << reqs[0].body;
  EXPECT_NE(reqs[0].body.find("WebIdentityToken=eyJ.jwt.token"),
            std::string::npos);
}

TEST(AwsCredentials, StsFailureNamesRoleNotToken) {
  TempDir t;
  std::ofstream(t.Sub("token")) << "very-secret-jwt";
  StubHttpServer sts([](const StubRequest&) {
    return StubResponse{
        400,
        "<ErrorResponse><Error><Code>InvalidIdentityToken</Code>"
        "</Error></ErrorResponse>"};
  });
  Env env;
  env.vars["AWS_WEB_IDENTITY_TOKEN_FILE"] = t.Sub("token");
  env.vars["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
  env.vars["AWS_ENDPOINT_URL_STS"] = sts.url();
  auto c = AwsCredentialChain(env.Fn()).Get();
  ASSERT_FALSE(c.ok());
  std::string msg(c.status().message());
  EXPECT_NE(msg.find("InvalidIdentityToken"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("very-secret-jwt"), std::string::npos) << msg;
}

TEST(AwsCredentials, ContainerEndpointWithTokenFileAndRefreshBeforeExpiry) {
  TempDir t;
  std::ofstream(t.Sub("podtoken")) << "pod-identity-token\n";
  int64_t exp = std::time(nullptr) + 120;  // within the 5-minute refresh window
  StubHttpServer agent([&](const StubRequest&) {
    return StubResponse{
        200,
        "{\"AccessKeyId\": \"ASIAPOD\", \"SecretAccessKey\": \"podsecret\","
        " \"Token\": \"podsession\", \"AccountId\": \"1\", \"Expiration\": \"" +
            Iso(exp) + "\"}"};
  });
  Env env;
  env.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] =
      agent.url() + "/v1/credentials";
  env.vars["AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"] = t.Sub("podtoken");
  AwsCredentialChain chain(env.Fn());
  auto c = chain.Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "ASIAPOD");
  EXPECT_EQ(c->session_token, "podsession");
  auto reqs = agent.requests();
  ASSERT_EQ(reqs.size(), 1u);
  EXPECT_EQ(reqs[0].target, "/v1/credentials");
  EXPECT_NE(reqs[0].head.find("Authorization: pod-identity-token"),
            std::string::npos);
  ASSERT_TRUE(chain.Get().ok());
  EXPECT_EQ(agent.requests().size(), 2u) << "expiring soon: fetched again";
  exp = std::time(nullptr) + 3600;
  AwsCredentialChain fresh(env.Fn());
  ASSERT_TRUE(fresh.Get().ok());
  ASSERT_TRUE(fresh.Get().ok());
  EXPECT_EQ(agent.requests().size(), 3u) << "valid for an hour: cached";
}

TEST(AwsCredentials, InstanceMetadataV2) {
  StubHttpServer imds([](const StubRequest& r) {
    if (r.method == "PUT" && r.target == "/latest/api/token")
      return StubResponse{200, "imdstok"};
    if (r.head.find("X-aws-ec2-metadata-token: imdstok") == std::string::npos) {
      return StubResponse{401, ""};
    }
    if (r.target == "/latest/meta-data/iam/security-credentials/") {
      return StubResponse{200, "ckpt-role"};
    }
    if (r.target == "/latest/meta-data/iam/security-credentials/ckpt-role") {
      return StubResponse{
          200,
          "{\"Code\":\"Success\",\"AccessKeyId\":\"ASIAEC2\","
          "\"SecretAccessKey\":\"ec2secret\",\"Token\":\"ec2tok\","
          "\"Expiration\":\"2099-01-01T00:00:00Z\"}"};
    }
    return StubResponse{404, ""};
  });
  Env env;
  env.vars.erase("AWS_EC2_METADATA_DISABLED");
  env.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  auto c = AwsCredentialChain(env.Fn()).Get();
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->access_key, "ASIAEC2");
  EXPECT_EQ(c->source, "instance metadata role ckpt-role");
  EXPECT_EQ(imds.requests().size(), 3u);
}

TEST(AwsCredentials, NothingConfiguredListsEverySource) {
  Env env;  // metadata disabled, no files, no env keys
  auto c = AwsCredentialChain(env.Fn()).Get();
  ASSERT_FALSE(c.ok());
  std::string msg(c.status().message());
  for (const char* s :
       {"AWS_ACCESS_KEY_ID", "AWS_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI", "instance metadata"}) {
    EXPECT_NE(msg.find(s), std::string::npos) << s;
  }
}

// Issue 47: keys that should come from a Kubernetes Secret (s3.keys_secret)
// and are not in the pod (its optional Secret is missing) fail at once,
// naming the Secret and how to make it, as input to fix; an instance role
// that would answer is never asked (the run would go on as someone else).
TEST(AwsCredentials, KeysThatShouldComeFromASecretFailNamingItAndNothingElse) {
  StubHttpServer imds([](const StubRequest& r) {
    if (r.method == "PUT") return StubResponse{200, "imdstok"};
    if (r.target == "/latest/meta-data/iam/security-credentials/") {
      return StubResponse{200, "node-role"};
    }
    return StubResponse{200,
                        "{\"Code\":\"Success\",\"AccessKeyId\":\"ASIAEC2\","
                        "\"SecretAccessKey\":\"ec2secret\",\"Token\":\"t\","
                        "\"Expiration\":\"2099-01-01T00:00:00Z\"}"};
  });
  Env env;
  env.vars.erase("AWS_EC2_METADATA_DISABLED");
  env.vars["AWS_EC2_METADATA_SERVICE_ENDPOINT"] = imds.url();
  // Without the Secret's name the chain reaches the instance role.
  auto role = AwsCredentialChain(env.Fn()).Get();
  ASSERT_TRUE(role.ok()) << role.status();
  EXPECT_EQ(role->access_key, "ASIAEC2");
  const size_t asked = imds.requests().size();

  auto c = AwsCredentialChain(env.Fn(), "ckptbench-s3").Get();
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(c.status())) << c.status();
  std::string msg(c.status().message());
  for (const char* s :
       {"s3.keys_secret (CKPT_S3_KEYS_SECRET)",
        "Kubernetes Secret 'ckptbench-s3'",
        "neither of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY",
        "kubectl create secret generic ckptbench-s3 "
        "--from-literal=AWS_ACCESS_KEY_ID=... "
        "--from-literal=AWS_SECRET_ACCESS_KEY=..."}) {
    EXPECT_NE(msg.find(s), std::string::npos) << s << " in: " << msg;
  }
  EXPECT_EQ(imds.requests().size(), asked) << "asked the instance metadata";

  // A Secret with one of the two keys.
  env.vars["AWS_ACCESS_KEY_ID"] = "AKIDONLY";
  auto half = AwsCredentialChain(env.Fn(), "ckptbench-s3").Get();
  ASSERT_FALSE(half.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(half.status())) << half.status();
  EXPECT_NE(
      std::string(half.status().message())
          .find("only one of AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
      std::string::npos)
      << half.status();

  // Both there: they are the credentials.
  env.vars["AWS_SECRET_ACCESS_KEY"] = "fromsecret";
  auto keys = AwsCredentialChain(env.Fn(), "ckptbench-s3").Get();
  ASSERT_TRUE(keys.ok()) << keys.status();
  EXPECT_EQ(keys->access_key, "AKIDONLY");
  EXPECT_EQ(keys->source, "environment");
  EXPECT_EQ(imds.requests().size(), asked);
}

// Issue 27, item 4: a token file of unbounded size (/dev/zero) ended in
// std::bad_alloc. Now it is refused by kind, naming the variable and file.
TEST(AwsCredentials, ATokenFileThatIsADeviceIsRefusedNamingTheVariable) {
  StubHttpServer endpoint([](const StubRequest&) { return StubResponse{}; });
  for (const char* var : {"AWS_WEB_IDENTITY_TOKEN_FILE",
                          "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"}) {
    Env env;
    env.vars[var] = "/dev/zero";
    env.vars["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
    env.vars["AWS_ENDPOINT_URL_STS"] = endpoint.url();
    env.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = endpoint.url() + "/creds";
    auto c = AwsCredentialChain(env.Fn()).Get();
    ASSERT_FALSE(c.ok()) << var;
    const std::string msg(c.status().message());
    EXPECT_NE(msg.find(std::string("(") + var +
                       ") /dev/zero is a character "
                       "device: expected a regular file"),
              std::string::npos)
        << msg;
  }
  EXPECT_TRUE(endpoint.requests().empty()) << "no token, nothing sent";
}

// A larger token file is refused naming the bound, without reading it all.
TEST(AwsCredentials, AnOversizedTokenOrCredentialsFileIsRefusedNamingTheBound) {
  TempDir t;
  std::ofstream(t.Sub("token")) << std::string(65 * 1024, 'j');
  StubHttpServer sts([](const StubRequest&) { return StubResponse{400}; });
  Env env;
  env.vars["AWS_WEB_IDENTITY_TOKEN_FILE"] = t.Sub("token");
  env.vars["AWS_ROLE_ARN"] = "arn:aws:iam::1:role/r";
  env.vars["AWS_ENDPOINT_URL_STS"] = sts.url();
  auto token = AwsCredentialChain(env.Fn()).Get();
  ASSERT_FALSE(token.ok());
  EXPECT_TRUE(sts.requests().empty());
  EXPECT_NE(token.status().message().find(
                "(AWS_WEB_IDENTITY_TOKEN_FILE) " + t.Sub("token") +
                " is 65.00 KiB, more than the 64.00 KiB allowed"),
            std::string::npos)
      << token.status();
  std::ofstream(t.Sub("creds")) << "[default]\n" << std::string(1 << 20, '#');
  Env shared;
  shared.vars["AWS_SHARED_CREDENTIALS_FILE"] = t.Sub("creds");
  auto creds = AwsCredentialChain(shared.Fn()).Get();
  ASSERT_FALSE(creds.ok());
  EXPECT_NE(creds.status().message().find("more than the 1.00 MiB allowed"),
            std::string::npos)
      << creds.status();
}

// Issue 27, item 3: a shared credentials file that is a FIFO hung in
// open() for as long as no one wrote to it. Now the lookup returns at once.
TEST(AwsCredentials, AFifoAsTheSharedCredentialsFileReturnsAtOnce) {
  TempDir t;
  const std::string fifo = t.Sub("credentials");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Env env;
  env.vars["AWS_SHARED_CREDENTIALS_FILE"] = fifo;
  bool blocked = false;
  auto c = CallBesideFifo(fifo, 5, &blocked,
                          [&] { return AwsCredentialChain(env.Fn()).Get(); });
  ASSERT_FALSE(blocked) << "the lookup blocked opening the FIFO";
  ASSERT_FALSE(c.ok());
  EXPECT_NE(
      c.status().message().find("(AWS_SHARED_CREDENTIALS_FILE, profile "
                                "default) " +
                                fifo + " is a FIFO: expected a regular file"),
      std::string::npos)
      << c.status();
}

// Issue 27, item 7, for the credential endpoints: with no descriptor
// left, the container endpoint's failure names the shortage, not a server
// that did not answer.
TEST(AwsCredentials, AnEndpointNotReachedForWantOfDescriptorsSaysSo) {
  StubHttpServer agent([](const StubRequest&) { return StubResponse{}; });
  Env env;
  env.vars.erase("HOME");  // no shared credentials file to open first
  env.vars["AWS_CONTAINER_CREDENTIALS_FULL_URI"] = agent.url() + "/creds";
  absl::StatusOr<AwsCredentials> c;
  {
    DescriptorsExhausted exhausted;
    c = AwsCredentialChain(env.Fn()).Get();
  }
  ASSERT_FALSE(c.ok());
  const std::string msg(c.status().message());
  EXPECT_NE(msg.find("failed: this process is out of file descriptors: "
                     "socket(): Too many open files (EMFILE"),
            std::string::npos)
      << msg;
  EXPECT_EQ(msg.find("connect to server"), std::string::npos) << msg;
  EXPECT_TRUE(agent.requests().empty());
}

}  // namespace
}  // namespace ckpt
