// The storage conformance suite (tests/testing/storage_conformance.cc) on
// S3: Swift's s3api behind the conditional-PUT proxy, whose S3 behaviour
// the AWS CLI checks in s3_claim_test.cc, so step claims use
// If-None-Match as on AWS. Each case gets a prefix of its own in one bucket.
// Also: reads given the object's size.
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "node/storage/s3_storage.h"
#include "tests/testing/conditional_put_proxy.h"
#include "tests/testing/storage_conformance.h"
#include "tests/testing/swift_server.h"

namespace ckpt {
namespace {

absl::StatusOr<StorageLocation> OpenS3(TempDir&) {
  SwiftServer& swift = SwiftServer::Get();
  if (swift.endpoint().empty()) return absl::UnavailableError(swift.error());
  // Credentials for the backend's own chain (the environment's keys).
  for (const auto& [k, v] : swift.Env()) setenv(k.c_str(), v.c_str(), 1);
  static const std::string bucket = SwiftServer::UniqueBucket("conform");
  static const std::string made = swift.MakeBucket(bucket);
  if (!made.empty()) return absl::UnavailableError("make bucket: " + made);
  const std::string& e = swift.endpoint();
  static ConditionalPutProxy* proxy = new ConditionalPutProxy(
      std::stoi(e.substr(e.rfind(':') + 1)), "test:tester", "testing");
  static int n = 0;
  BackendOptions options;
  options.s3.endpoint = absl::StrCat("http://127.0.0.1:", proxy->port());
  options.s3.region = "us-east-1";
  options.s3.claim = S3Claim::kIfNoneMatch;
  return OpenStorage(absl::StrCat("s3://", bucket, "/root-", n++), options);
}

INSTANTIATE_TEST_SUITE_P(S3, StorageConformance,
                         ::testing::Values(ConformanceBackend{
                             "s3_swift", OpenS3, /*object_store=*/true}),
                         ConformanceName);

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// Reads `len` bytes at 0 of `path` opened with `options`.
absl::StatusOr<std::string> ReadFront(Storage& s, const std::string& path,
                                      const ReadOptions& options, size_t len) {
  auto f = s.OpenRead(path, options);
  if (!f.ok()) return f.status();
  std::string out(len, '\0');
  size_t at = 0;
  while (at < len) {
    auto n = (*f)->Read(at, out.data() + at, len - at);
    if (!n.ok()) return n.status();
    if (*n == 0) break;
    at += *n;
  }
  out.resize(at);
  return out;
}

// Issue 29: a reader that knows the object's size (a load: the checkpoint's
// .metadata) sends no HEAD; the size is checked on every ranged answer, so
// an object of another size fails naming both sizes.
TEST(S3Read, AGivenSizeSkipsTheHeadAndAWrongOneIsNamed) {
  TempDir tmp;
  auto loc = OpenS3(tmp);
  ASSERT_TRUE(loc.ok()) << loc.status();
  const std::string path = loc->path + "/obj";
  std::string data(300 * 1024, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  ASSERT_TRUE(loc->storage->WriteAtomic(path, data).ok());
  auto* s3 = dynamic_cast<S3Storage*>(loc->storage.get());
  ASSERT_NE(s3, nullptr);
  ReadOptions sized;
  sized.size = data.size();
  uint64_t before = s3->counters().requests;
  auto back = ReadFront(*loc->storage, path, sized, data.size());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, data);
  // 300 KiB in the default ranges: one GET, no HEAD.
  EXPECT_EQ(s3->counters().requests - before, 1u);
  before = s3->counters().requests;
  ASSERT_TRUE(ReadFront(*loc->storage, path, {}, data.size()).ok());
  EXPECT_EQ(s3->counters().requests - before, 2u);  // HEAD, GET

  for (uint64_t wrong : {uint64_t{200 * 1024}, uint64_t{400 * 1024}}) {
    ReadOptions o;
    o.size = wrong;
    auto bad = ReadFront(*loc->storage, path, o, wrong);
    ASSERT_FALSE(bad.ok()) << wrong;
    EXPECT_TRUE(absl::IsDataLoss(bad.status())) << bad.status();
    EXPECT_NE(bad.status().message().find(absl::StrCat(
                  "/obj is 307200 bytes; the reader expected ", wrong)),
              std::string::npos)
        << bad.status();
  }
  // An empty object read as a 300 KiB one: the range is refused (416), and
  // a HEAD then names the size.
  ASSERT_TRUE(loc->storage->WriteAtomic(loc->path + "/empty", "").ok());
  auto empty = ReadFront(*loc->storage, loc->path + "/empty", sized, 10);
  ASSERT_FALSE(empty.ok());
  EXPECT_TRUE(absl::IsDataLoss(empty.status())) << empty.status();
  EXPECT_NE(empty.status().message().find(
                "/empty is 0 bytes; the reader expected 307200"),
            std::string::npos)
      << empty.status();
}

}  // namespace
}  // namespace ckpt
