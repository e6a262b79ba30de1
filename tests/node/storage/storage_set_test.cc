// StorageSet: the backends one node holds for a run (storage_factory.h).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "node/storage/buffer_pool.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/stub_http_server.h"

namespace ckpt {
namespace {

// STORAGE_EMULATOR_HOST for the test's lifetime: anonymous credentials (no
// token server, no metadata server). The endpoint is the options' (the
// configuration resolves the variable into gcs.endpoint; the backend never
// reads it).
class EmulatorHost {
 public:
  explicit EmulatorHost(const std::string& url) {
    setenv("STORAGE_EMULATOR_HOST", url.c_str(), 1);
  }
  ~EmulatorHost() { unsetenv("STORAGE_EMULATOR_HOST"); }
};

// Test keys in the environment for the test's lifetime (no metadata
// server asked), the variables as they were afterwards.
class AwsKeys {
 public:
  AwsKeys() {
    for (const auto& [name, value] : kKeys) {
      const char* was = getenv(name);
      saved_.emplace_back(name,
                          was ? std::optional<std::string>(was) : std::nullopt);
      setenv(name, value, 1);
    }
  }
  ~AwsKeys() {
    for (const auto& [name, was] : saved_) {
      if (was) {
        setenv(name, was->c_str(), 1);
      } else {
        unsetenv(name);
      }
    }
  }

 private:
  static constexpr std::pair<const char*, const char*> kKeys[] = {
      {"AWS_ACCESS_KEY_ID", "AKIDTEST"},
      {"AWS_SECRET_ACCESS_KEY", "secret"},
      {"AWS_EC2_METADATA_DISABLED", "true"}};
  std::vector<std::pair<const char*, std::optional<std::string>>> saved_;
};

TEST(StorageSet, KeepsOneObjectStoreBackendPerOptionSetCountingItsOwnRequests) {
  // No such object, and nothing under its name: Exists asks for both.
  StubHttpServer stub([](const StubRequest& r) {
    if (r.target.find("/o?") != std::string::npos) {
      return StubResponse(200, R"({"kind":"storage#objects"})");
    }
    return StubResponse(404);
  });
  EmulatorHost emulator(stub.url());
  BackendOptions options;
  options.gcs.endpoint = stub.url();
  BackendOptions two_attempts = options;
  two_attempts.gcs.max_attempts = 2;
  StorageSet run, other_run;
  auto step = run.Open("gs://bucket/run/step-1", options);
  auto result = run.Open("gs://bucket/results/r1", options);
  auto retried = run.Open("gs://bucket/run/step-1", two_attempts);
  auto other = other_run.Open("gs://bucket/run/step-1", options);
  auto once = OpenStorage("gs://bucket/run/step-1", options);
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(result.ok() && retried.ok() && other.ok() && once.ok());
  // One backend (its connection pool and credentials) for the run's
  // locations with the same options; another for other options, another
  // run, or a one-off open.
  EXPECT_EQ(step->storage, result->storage);
  EXPECT_NE(step->storage, retried->storage);
  EXPECT_NE(step->storage, other->storage);
  EXPECT_NE(step->storage, once->storage);
  EXPECT_EQ(step->path, "gs://bucket/run/step-1");

  auto exists = step->storage->Exists("gs://bucket/run/step-1");
  ASSERT_TRUE(exists.ok()) << exists.status();
  EXPECT_FALSE(*exists);
  EXPECT_EQ(stub.requests().size(), 2u);
  EXPECT_EQ(run.counters().requests, 2u);
  EXPECT_GT(run.counters().new_connections, 0u);
  EXPECT_EQ(other_run.counters().requests, 0u);
  EXPECT_EQ(other_run.counters().new_connections, 0u);
  ASSERT_TRUE(retried->storage->Exists("gs://bucket/run/step-1").ok());
  EXPECT_EQ(run.counters().requests, 4u);  // both backends are the run's
  EXPECT_EQ(other_run.counters().requests, 0u);
}

// An S3 backend is kept by its own options (s3.*): the GCS ones do not
// make another, an s3.* that differs does. Nothing is sent to open one.
TEST(StorageSet, KeepsOneS3BackendPerS3Options) {
  StorageSet run;
  BackendOptions options;
  options.s3.endpoint = "http://127.0.0.1:9";
  BackendOptions gcs_differs = options;
  gcs_differs.gcs.max_attempts = 2;
  BackendOptions s3_differs = options;
  s3_differs.s3.max_attempts = 2;
  auto step = run.Open("s3://bucket/run/step-1", options);
  auto same = run.Open("s3://bucket/run/step-2", gcs_differs);
  auto other = run.Open("s3://bucket/run/step-1", s3_differs);
  ASSERT_TRUE(step.ok()) << step.status();
  ASSERT_TRUE(same.ok() && other.ok());
  EXPECT_EQ(step->storage, same->storage);
  EXPECT_NE(step->storage, other->storage);
  EXPECT_EQ(run.counters().requests, 0u);
}

// The buffers a run's object-store backends keep for reuse across files
// are freed when the node trims them (after each phase): those of every
// backend, once.
TEST(StorageSet, TrimsTheBuffersItsBackendsKeep) {
  StubHttpServer stub([](const StubRequest&) {
    return StubResponse(200, "", "ETag: \"e\"\r\n");
  });
  AwsKeys keys;
  StorageSet run;
  BackendOptions options;
  options.s3.endpoint = stub.url();
  options.s3.part_size = options.s3.multipart_threshold =
      BufferPool::kPooledFrom;  // a small object's buffer is a pooled one
  BackendOptions other = options;
  other.s3.max_attempts = 2;
  const std::string data(100 * 1024, 'x');
  for (const BackendOptions* o : {&options, &other, &options}) {
    auto loc = run.Open("s3://bucket/run/step-1", *o);
    ASSERT_TRUE(loc.ok()) << loc.status();
    auto f = loc->storage->OpenWrite("s3://bucket/run/step-1/f", {});
    ASSERT_TRUE(f.ok()) << f.status();
    ASSERT_TRUE((*f)->Append(data.data(), data.size()).ok());
    ASSERT_TRUE((*f)->Sync().ok());
  }
  EXPECT_EQ(stub.requests().size(), 3u);
  EXPECT_EQ(run.TrimBuffers(), 2u);  // one per backend: the third reused
  EXPECT_EQ(run.TrimBuffers(), 0u);
}

TEST(StorageSet, BadLocationsAreRefusedNamingThem) {
  // A flavour outside local, fuse and auto cannot reach the set: the wire
  // refuses its number (NodeService.ReceivedBackendOptionsAreChecked...).
  StorageSet set;
  auto scheme = set.Open("ftp://host/dir");
  ASSERT_FALSE(scheme.ok());
  EXPECT_NE(scheme.status().message().find("unknown URI scheme"),
            std::string::npos);
  EXPECT_FALSE(set.Open("s3://").ok());
  EXPECT_FALSE(set.Open("gs://").ok());
  EXPECT_FALSE(set.Open("").ok());
  // A refused open keeps nothing: the next good one still works.
  BackendOptions local;
  local.flavour = StorageFlavour::kLocal;
  EXPECT_TRUE(set.Open("/tmp/ckpt", local).ok());
}

}  // namespace
}  // namespace ckpt
