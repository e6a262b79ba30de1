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
StubRequest OneGet(const std::string& host, S3Addressing addressing) {
  StubHttpServer stub([](const StubRequest&) { return StubResponse{}; });
  S3Config cfg;
  cfg.endpoint = "http://" + host + ":" + std::to_string(stub.port());
  cfg.addressing = addressing;
  cfg.max_attempts = 1;
  S3Client client(cfg, Keys());
  auto rep = client.Do(MakeS3Call(HttpMethod::kGet, "b", "k"));
  EXPECT_TRUE(rep.ok()) << rep.status();
  auto reqs = stub.requests();
  return reqs.empty() ? StubRequest{} : reqs[0];
}

TEST(S3Addressing, AutoIsPathStyleForLocalhostAndIpVirtualForHostNames) {
  auto local = OneGet("localhost", S3Addressing::kAuto);
  EXPECT_EQ(local.target, "/b/k");
  EXPECT_EQ(HeaderValue(local.head, "host").rfind("localhost:", 0), 0u);
  auto ip = OneGet("127.0.0.1", S3Addressing::kAuto);
  EXPECT_EQ(ip.target, "/b/k");
  auto named = OneGet("s3.localhost", S3Addressing::kAuto);
  EXPECT_EQ(named.target, "/k");
  EXPECT_EQ(HeaderValue(named.head, "host").rfind("b.s3.localhost:", 0), 0u)
      << named.head;
  auto forced = OneGet("s3.localhost", S3Addressing::kPath);
  EXPECT_EQ(forced.target, "/b/k");
}

// Where the region comes from (AWS_REGION, AWS_DEFAULT_REGION, s3.region)
// is the configuration's business: ConfigLoader.BackendSettingsFrom...
TEST(S3Region, IsTheSignaturesCredentialScope) {
  StubHttpServer stub([](const StubRequest&) { return StubResponse{}; });
  S3Config cfg;
  cfg.region = "eu-west-3";
  cfg.endpoint = stub.url();
  S3Client client(cfg, Keys());
  ASSERT_TRUE(client.Do(MakeS3Call(HttpMethod::kGet, "b", "k")).ok());
  EXPECT_NE(HeaderValue(stub.requests().at(0).head, "authorization")
                .find("/eu-west-3/s3/aws4_request"),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// Issue 27: keys come back XML-escaped; the key decoded is the key. A key
// holding a carriage return ("&#13;") was aborted under its escaped
// spelling, another key.
TEST(XmlText, EntityAndCharacterReferencesAreDecoded) {
  EXPECT_EQ(XmlText("a&amp;b&lt;c&gt;&quot;&apos;"), "a&b<c>\"'");
  EXPECT_EQ(XmlText("cr&#13;X.distcp"), "cr\rX.distcp");
  EXPECT_EQ(XmlText("&#x263A;&#233;"), "\xE2\x98\xBA\xC3\xA9");
  EXPECT_EQ(XmlText("&#x1F600;"), "\xF0\x9F\x98\x80");
  // Not references: kept as they are.
  for (const char* kept : {"&", "&;", "&#;", "&#x;", "&#0;", "&#xD800;",
                           "&#x110000;", "&bogus;", "a & b", "&#12a;"}) {
    EXPECT_EQ(XmlText(kept), kept) << kept;
  }
  EXPECT_EQ(XmlValue("<Key>s&amp;p/step-1</Key>", "Key"), "s&p/step-1");
  EXPECT_EQ(XmlTexts("<Key>a&#47;b</Key><Key>c</Key>", "Key"),
            (std::vector<std::string>{"a/b", "c"}));
}

}  // namespace
}  // namespace ckpt
