// S3 request addressing and region against a loopback stub: path-style
// chosen automatically for localhost and IP endpoints, virtual-hosted for
// host names (<bucket>.s3.localhost, which libcurl resolves to loopback),
// and the signing region from AWS_REGION unless s3.region is given.
#include "node/storage/s3_client.h"

#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/testing/http_wire.h"
#include "tests/testing/stub_http_server.h"

namespace ckpt {
namespace {

std::shared_ptr<AwsCredentialChain> Keys() {
  return std::make_shared<AwsCredentialChain>([](const char* n) -> const char* {
    std::string name = n;
    if (name == "AWS_ACCESS_KEY_ID") return "AKIDTEST";
    if (name == "AWS_SECRET_ACCESS_KEY") return "secret";
    if (name == "AWS_EC2_METADATA_DISABLED") return "true";
    return nullptr;
  });
}

// Sends one GET of bucket "b", key "k" through a client whose endpoint is
// http://<host>:<the stub's port> and returns what the stub saw.
StubRequest OneGet(const std::string& host, const std::string& addressing) {
  StubHttpServer stub([](const StubRequest&) { return StubResponse{}; });
  S3Config cfg;
  cfg.endpoint = "http://" + host + ":" + std::to_string(stub.port());
  cfg.addressing = addressing;
  cfg.max_attempts = 1;
  S3Client client(cfg, Keys());
  auto rep = client.Do(MakeS3Call("GET", "b", "k"));
  EXPECT_TRUE(rep.ok()) << rep.status();
  auto reqs = stub.requests();
  return reqs.empty() ? StubRequest{} : reqs[0];
}

TEST(S3Addressing, AutoIsPathStyleForLocalhostAndIpVirtualForHostNames) {
  auto local = OneGet("localhost", "auto");
  EXPECT_EQ(local.target, "/b/k");
  EXPECT_EQ(HeaderValue(local.head, "host").rfind("localhost:", 0), 0u);
  auto ip = OneGet("127.0.0.1", "auto");
  EXPECT_EQ(ip.target, "/b/k");
  auto named = OneGet("s3.localhost", "auto");
  EXPECT_EQ(named.target, "/k");
  EXPECT_EQ(HeaderValue(named.head, "host").rfind("b.s3.localhost:", 0), 0u)
      << named.head;
  auto forced = OneGet("s3.localhost", "path");
  EXPECT_EQ(forced.target, "/b/k");
}

TEST(S3Region, FromAwsRegionUnlessConfigured) {
  setenv("AWS_REGION", "eu-west-3", 1);
  auto from_env = S3ConfigFromOptions({});
  auto configured = S3ConfigFromOptions({{"s3.region", "ap-south-1"}});
  unsetenv("AWS_REGION");
  ASSERT_TRUE(from_env.ok() && configured.ok());
  EXPECT_EQ(from_env->region, "eu-west-3");
  EXPECT_EQ(configured->region, "ap-south-1");
  // The region is in the signature's credential scope.
  StubHttpServer stub([](const StubRequest&) { return StubResponse{}; });
  S3Config cfg = *from_env;
  cfg.endpoint = stub.url();
  S3Client client(cfg, Keys());
  ASSERT_TRUE(client.Do(MakeS3Call("GET", "b", "k")).ok());
  EXPECT_NE(HeaderValue(stub.requests().at(0).head, "authorization")
                .find("/eu-west-3/s3/aws4_request"),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt
