// serve.read_mode=download's copy: a model's files copied whole from
// storage to a fresh directory inside the user's, byte for byte, with
// concurrency x chunk reads; removed with exactly what it wrote. A name
// that is not one path component, and a download path that is not a
// directory or lacks room are refused, each naming what.
#include "node/serving/model_download.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "node/storage/memory_storage.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Content(size_t n, int seed) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) {
    s[i] = static_cast<char>((i * 13 + static_cast<size_t>(seed)) % 256);
  }
  return s;
}

TEST(ModelDownload, CopiesEveryFileWholeAndRemovesOnlyItsCopy) {
  auto memory = std::make_shared<MemoryStore>();
  const std::string a = Content(300000, 1), b = Content(70001, 2);
  memory->Put("mem://bucket/m/model-00001-of-00002.safetensors", a);
  memory->Put("mem://bucket/m/model-00002-of-00002.safetensors", b);
  StorageSet set(memory);
  auto loc = set.Open("mem://bucket/m");
  ASSERT_TRUE(loc.ok()) << loc.status();
  TempDir local;
  std::ofstream(local.Sub("keep.txt")) << "the user's";
  ModelDownload d(local.path(), "copy-");
  ASSERT_TRUE(d.Check(a.size() + b.size()).ok());
  StreamOptions options;
  options.concurrency = 3;
  options.chunk_bytes = 65536;
  auto tally = d.Copy(*loc->storage, loc->path,
                      {{"model-00001-of-00002.safetensors", a.size()},
                       {"model-00002-of-00002.safetensors", b.size()}},
                      options, nullptr);
  ASSERT_TRUE(tally.ok()) << tally.status();
  EXPECT_EQ(tally->bytes, a.size() + b.size());
  EXPECT_EQ(tally->chunks, 5u + 2u);  // ceil(300000 / 64 Ki) + ceil(70001 / ..)
  ASSERT_EQ(d.dir().rfind(local.Sub("copy-"), 0), 0u) << d.dir();
  EXPECT_EQ(d.dir().size(), local.Sub("copy-").size() + 6);
  EXPECT_EQ(Slurp(d.dir() + "/model-00001-of-00002.safetensors"), a);
  EXPECT_EQ(Slurp(d.dir() + "/model-00002-of-00002.safetensors"), b);
  // Made for this copy alone; a second with the same prefix gets its own.
  EXPECT_EQ(std::filesystem::status(d.dir()).permissions() &
                std::filesystem::perms::all,
            std::filesystem::perms::owner_all);
  ModelDownload second(local.path(), "copy-");
  ASSERT_TRUE(second
                  .Copy(*loc->storage, loc->path,
                        {{"model-00002-of-00002.safetensors", b.size()}},
                        options, nullptr)
                  .ok());
  EXPECT_NE(second.dir(), d.dir());
  ASSERT_TRUE(d.Remove().ok());
  EXPECT_FALSE(std::filesystem::exists(d.dir()));
  EXPECT_EQ(Slurp(second.dir() + "/model-00002-of-00002.safetensors"), b);
  ASSERT_TRUE(second.Remove().ok());
  EXPECT_EQ(CountFiles(local.path()), 1u);
  EXPECT_EQ(Slurp(local.Sub("keep.txt")), "the user's");
}

TEST(ModelDownload, RefusesWhatWouldLeaveItsDirectoryOrWriteOverAnother) {
  auto memory = std::make_shared<MemoryStore>();
  memory->Put("mem://bucket/m/a.safetensors", "x");
  StorageSet set(memory);
  auto loc = set.Open("mem://bucket/m");
  ASSERT_TRUE(loc.ok());
  TempDir local;
  StreamOptions options;
  for (const std::string bad : {"../a.safetensors", "..", "."}) {
    ModelDownload d(local.path(), "copy-");
    auto t = d.Copy(*loc->storage, loc->path, {{bad, 1}}, options, nullptr);
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_THAT(t.status().message(), HasSubstr("not a plain file name"));
    EXPECT_FALSE(std::filesystem::exists(local.Sub("a.safetensors")));
  }  // each one's directory removed as it goes
  EXPECT_TRUE(std::filesystem::is_empty(local.path()));

  std::ofstream(local.Sub("file")) << "not a directory";
  ModelDownload f(local.Sub("file"), "copy");
  EXPECT_THAT(f.Check(1).message(),
              HasSubstr("serve.download_path (CKPT_SERVE_DOWNLOAD_PATH) = " +
                        local.Sub("file") + ": expected a local directory"));
  ModelDownload missing(local.Sub("missing"), "copy");
  EXPECT_THAT(missing.Check(1).message(), HasSubstr("No such file"));
  ModelDownload big(local.path(), "copy");
  const absl::Status room = big.Check(1ull << 62);
  EXPECT_TRUE(absl::IsResourceExhausted(room)) << room;
  EXPECT_THAT(room.message(), HasSubstr("Expected a directory with room"));
}

}  // namespace
}  // namespace ckpt
