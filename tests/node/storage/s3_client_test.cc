// S3 requests against a loopback stub: path-style addressing chosen
// automatically for localhost and IP endpoints, virtual-hosted for host
// names (<bucket>.s3.localhost, which libcurl resolves to loopback), the
// signing region from AWS_REGION unless s3.region is given; and uploads
// that reuse the client's buffers across objects.
#include "node/storage/s3_client.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

#include "absl/strings/match.h"
#include "node/storage/s3_upload.h"
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

// S3 uploads take their buffers from the client's pool: objects written
// one after another reuse the buffers of those before (single PUTs and
// multipart parts alike), and every byte still reaches the server in order.
// Enough of S3 for uploads: PUT, and the multipart calls; what each
// object received, its parts joined by number on completion.
class UploadStub {
 public:
  UploadStub() : server_([this](const StubRequest& r) { return Answer(r); }) {}
  int port() const { return server_.port(); }
  std::string Object(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_[key];
  }

 private:
  StubResponse Answer(const StubRequest& r) {
    const std::string key = r.target.substr(0, r.target.find('?'));
    std::lock_guard<std::mutex> lock(mu_);
    if (r.method == "POST" && absl::StrContains(r.target, "?uploads")) {
      return StubResponse(200, "<InitiateMultipartUploadResult><UploadId>u" +
                                   key +
                                   "</UploadId>"
                                   "</InitiateMultipartUploadResult>");
    }
    if (r.method == "PUT" && absl::StrContains(r.target, "partNumber=")) {
      const size_t at = r.target.find("partNumber=") + 11;
      const int number = std::stoi(r.target.substr(at));
      parts_[key][number] = r.body;
      return StubResponse(200, "", "ETag: \"p\"\r\n");
    }
    if (r.method == "POST" && absl::StrContains(r.target, "uploadId=")) {
      std::string whole;
      for (const auto& [n, b] : parts_[key]) whole += b;
      objects_[key] = whole;
      return StubResponse(200,
                          "<CompleteMultipartUploadResult>"
                          "</CompleteMultipartUploadResult>");
    }
    if (r.method == "PUT") objects_[key] = r.body;
    return StubResponse(200, "", "ETag: \"o\"\r\n");
  }

  std::mutex mu_;
  std::map<std::string, std::map<int, std::string>> parts_;
  std::map<std::string, std::string> objects_;
  StubHttpServer server_;  // last: stopped before the maps go
};

TEST(S3Upload, ObjectsWrittenInTurnReuseTheClientsBuffers) {
  UploadStub stub;
  S3Config cfg;
  cfg.endpoint = "http://127.0.0.1:" + std::to_string(stub.port());
  cfg.max_attempts = 1;
  cfg.part_size = BufferPool::kPooledFrom;
  cfg.multipart_threshold = BufferPool::kPooledFrom;
  cfg.parts_in_flight = 2;
  auto client = std::make_shared<S3Client>(cfg, Keys());
  std::map<std::string, std::string> written;
  for (int i = 0; i < 6; ++i) {
    // Three multipart objects (4 parts, the last short), three single PUTs.
    const size_t size = i % 2 == 0 ? 3 * cfg.part_size + 12345 : 100 * 1024;
    const std::string key = "obj-" + std::to_string(i);
    std::string data(size, '\0');
    for (size_t k = 0; k < size; ++k) data[k] = static_cast<char>(k * 31 + i);
    auto f = NewS3Upload(client, {"b", key});
    for (size_t at = 0; at < data.size(); at += 300 * 1024) {
      const size_t n = std::min<size_t>(300 * 1024, data.size() - at);
      ASSERT_TRUE(f->Append(data.data() + at, n).ok());
    }
    ASSERT_TRUE(f->Sync().ok());
    written["/b/" + key] = data;
  }
  for (const auto& [key, data] : written) {
    EXPECT_TRUE(stub.Object(key) == data) << key;
  }
  // An object holds parts_in_flight + 1 buffers at most; one after
  // another they are the same ones (each object's own: 3 x 3 + 3).
  EXPECT_LE(client->buffers().made_count(), 3u);
  EXPECT_EQ(client->buffers().lent_count(), 0u);
  EXPECT_EQ(client->buffers().free_count(), client->buffers().made_count());
}

}  // namespace
}  // namespace ckpt
