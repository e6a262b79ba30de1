// A rank's ranges read in `stream` mode (node/serving/range_stream.h):
// every byte where it is, in chunks, with at most concurrency buffers.
#include "node/serving/range_stream.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "node/storage/forwarding_storage.h"
#include "node/storage/memory_storage.h"
#include "node/storage/posix_storage.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

std::string Bytes(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i)
    s[i] = static_cast<char>((i * 31 + seed) % 251);
  return s;
}

// Counts the readers opened.
class CountingStorage : public ForwardingStorage {
 public:
  using ForwardingStorage::ForwardingStorage;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override {
    ++opens;
    return ForwardingStorage::OpenRead(path, options);
  }
  std::atomic<int> opens{0};
};

struct Fixture {
  std::shared_ptr<MemoryStore> store = std::make_shared<MemoryStore>();
  std::unique_ptr<Storage> storage = MemoryStorage::Make(store);
  std::map<std::string, std::string> content;
  StreamedFile File(const std::string& path, size_t size, int seed,
                    std::vector<ByteRange> ranges) {
    content[path] = Bytes(size, seed);
    store->Put(path, content[path]);
    return {path, size, std::move(ranges)};
  }
};

TEST(RangeStream, EveryRangeIsReadInChunksAndHandedOnWhereItIs) {
  Fixture fx;
  std::vector<StreamedFile> files = {
      fx.File("b/m/a.safetensors", 10000, 1, {{0, 2500}, {4000, 10}}),
      fx.File("b/m/b.safetensors", 7000, 2, {{100, 6900}})};
  std::mutex mu;
  uint64_t seen = 0;
  std::vector<std::string> errors;
  auto sink = [&](size_t f, uint64_t off, const unsigned char* data,
                  size_t len) {
    std::lock_guard<std::mutex> lock(mu);
    const std::string& want = fx.content[files[f].path];
    if (std::string(reinterpret_cast<const char*>(data), len) !=
        want.substr(off, len)) {
      errors.push_back(files[f].path + "@" + std::to_string(off));
    }
    EXPECT_LE(len, 1000u);
    seen += len;
    return absl::OkStatus();
  };
  StreamOptions options;
  options.concurrency = 3;
  options.chunk_bytes = 1000;
  CountingStorage counting(*fx.storage);
  auto tally = StreamRanges(counting, files, options, sink, nullptr);
  ASSERT_TRUE(tally.ok()) << tally.status();
  // An object store's reader is opened on each chunk alone.
  EXPECT_EQ(counting.opens.load(), 11);
  EXPECT_TRUE(errors.empty()) << errors.front();
  EXPECT_EQ(seen, 2500u + 10 + 6900);
  EXPECT_EQ(tally->bytes, seen);
  EXPECT_EQ(tally->chunks, 3u + 1 + 7);
  EXPECT_EQ(tally->threads, 3);
  EXPECT_EQ(tally->buffer_bytes, 3000u);
  EXPECT_GE(tally->first_byte_seconds, 0);
  EXPECT_GE(tally->last_byte_seconds, tally->first_byte_seconds);
}

TEST(RangeStream, AFileShorterThanItsListingStopsTheReadsNamingIt) {
  Fixture fx;
  std::vector<StreamedFile> files = {
      fx.File("b/m/a.safetensors", 1000, 1, {{0, 1000}})};
  files[0].size = 2000;
  files[0].ranges = {{0, 2000}};
  StreamOptions options;
  options.chunk_bytes = 512;
  auto tally = StreamRanges(
      *fx.storage, files, options,
      [](size_t, uint64_t, const unsigned char*, size_t) {
        return absl::OkStatus();
      },
      nullptr);
  ASSERT_FALSE(tally.ok());
  EXPECT_THAT(tally.status().message(), HasSubstr("b/m/a.safetensors"));
}

TEST(RangeStream, TheSinksErrorAndAnAbortStopTheReads) {
  Fixture fx;
  std::vector<StreamedFile> files = {
      fx.File("b/m/a.safetensors", 100000, 1, {{0, 100000}})};
  StreamOptions options;
  options.concurrency = 2;
  options.chunk_bytes = 100;
  std::atomic<int> calls{0};
  auto tally = StreamRanges(
      *fx.storage, files, options,
      [&](size_t, uint64_t off, const unsigned char*, size_t) {
        ++calls;
        return off == 300 ? absl::DataLossError("byte 300 differs")
                          : absl::OkStatus();
      },
      nullptr);
  ASSERT_FALSE(tally.ok());
  EXPECT_THAT(tally.status().message(), HasSubstr("byte 300 differs"));
  EXPECT_LT(calls.load(), 1000);  // not every chunk
  std::atomic<bool> abort{true};
  auto stopped = StreamRanges(
      *fx.storage, files, options,
      [](size_t, uint64_t, const unsigned char*, size_t) {
        return absl::OkStatus();
      },
      &abort);
  ASSERT_FALSE(stopped.ok());
  EXPECT_TRUE(absl::IsAborted(stopped.status()));
  StreamOptions none;
  none.concurrency = 0;
  EXPECT_FALSE(StreamRanges(*fx.storage, files, none, nullptr, nullptr).ok());
}

// A file system's reader stays open across a thread's chunks of one file;
// the bytes are the same.
TEST(RangeStream, AFileSystemsFilesAreReadThroughOnePreadEach) {
  TempDir d;
  const std::string bytes = Bytes(50000, 7);
  { std::ofstream(d.Sub("m.safetensors"), std::ios::binary) << bytes; }
  std::shared_ptr<Storage> posix = PosixStorage::Make().value();
  CountingStorage storage(posix);
  std::vector<StreamedFile> files = {
      {d.Sub("m.safetensors"), bytes.size(), {{10, 20000}, {30000, 5}}}};
  std::string got(bytes.size(), '\0');
  std::mutex mu;
  StreamOptions options;
  options.concurrency = 2;
  options.chunk_bytes = 4096;
  auto tally = StreamRanges(
      storage, files, options,
      [&](size_t, uint64_t off, const unsigned char* data, size_t len) {
        std::lock_guard<std::mutex> lock(mu);
        got.replace(off, len, reinterpret_cast<const char*>(data), len);
        return absl::OkStatus();
      },
      nullptr);
  ASSERT_TRUE(tally.ok()) << tally.status();
  EXPECT_EQ(got.substr(10, 20000), bytes.substr(10, 20000));
  EXPECT_EQ(got.substr(30000, 5), bytes.substr(30000, 5));
  EXPECT_EQ(tally->chunks, 5u + 1);
  // One per thread that took a chunk, not one per chunk.
  EXPECT_GE(storage.opens.load(), 1);
  EXPECT_LE(storage.opens.load(), 2);
}

}  // namespace
}  // namespace ckpt
