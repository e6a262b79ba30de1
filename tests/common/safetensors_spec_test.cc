// ckptbench's safetensors files against a reader written from the format's
// specification alone, and a model written by that script (not by
// ckptbench) read by ckptbench (tests/scripts/safetensors_spec.py).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/model_presets.h"
#include "common/serving/model_files.h"
#include "common/serving/safetensors.h"
#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

const std::string kScript = SourceDir() + "/tests/scripts/safetensors_spec.py";

ProcessResult Spec(const std::string& mode, const std::string& dir) {
  const char* path = std::getenv("PATH");
  return RunProcess({"/usr/bin/python3", kScript, mode, dir},
                    {{"PATH", path ? path : "/usr/bin:/bin"}});
}

// A small Llama of the real shapes' form (bf16, grouped KV heads) in files
// of at most 64 KiB, written as ShardModel lays them out.
std::vector<ModelFile> WriteTinyLlama(const std::string& dir) {
  std::vector<StTensor> tensors = ModelTensors(
      LlamaTensors({/*hidden=*/64, /*ffn=*/160, /*layers=*/3, /*heads=*/4,
                    /*kv_heads=*/2, /*vocab=*/384},
                   kBf16),
      StDtype::kBf16);
  std::vector<ModelFile> files = ShardModel(tensors, 64 << 10);
  for (const ModelFile& f : files) {
    std::ofstream out(dir + "/" + f.name, std::ios::binary);
    out << f.header;
    const uint64_t data = f.Size() - f.header.size();
    for (uint64_t i = 0; i < data; ++i) out.put(static_cast<char>(i * 13));
  }
  std::ofstream(dir + "/" + kModelIndexName) << ModelIndexJson(files);
  return files;
}

TEST(SafetensorsSpec, ASpecReaderAcceptsTheFilesCkptbenchWrites) {
  TempDir d;
  const std::vector<ModelFile> files = WriteTinyLlama(d.path());
  ASSERT_GE(files.size(), 3u);  // sharded, with an index
  ProcessResult r = Spec("check", d.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr(std::to_string(files.size()) + " files, 30 tensors"));
  // The reader is not vacuous: a file one byte short, or an index naming
  // another file, fails it.
  std::string last = d.Sub(files.back().name);
  std::string bytes = ReadFile(last);
  std::ofstream(last, std::ios::binary) << bytes.substr(0, bytes.size() - 1);
  r = Spec("check", d.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("tensors end at"));
  std::ofstream(last, std::ios::binary) << bytes;
  std::string index = ReadFile(d.Sub(kModelIndexName));
  index.replace(index.find("model-00001-of"), 10, "model-00002-of");
  std::ofstream(d.Sub(kModelIndexName)) << index;
  r = Spec("check", d.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("weight_map"));
}

TEST(SafetensorsSpec, CkptbenchReadsAModelItDidNotWrite) {
  TempDir d;
  ProcessResult r = Spec("write", d.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json want = nlohmann::json::parse(r.out);
  auto index =
      ParseModelIndex(ReadFile(d.Sub(kModelIndexName)), d.Sub(kModelIndexName));
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->files.size(), 2u);
  size_t seen = 0;
  uint64_t total = 0;
  for (const std::string& name : index->files) {
    const std::string text = ReadFile(d.Sub(name));
    auto n = StHeaderLength(text, text.size(), name);
    ASSERT_TRUE(n.ok()) << n.status();
    auto h =
        ParseStHeader(std::string_view(text).substr(8, *n), text.size(), name);
    ASSERT_TRUE(h.ok()) << h.status();
    for (const StTensor& t : h->tensors) {
      SCOPED_TRACE(t.name);
      ASSERT_TRUE(want.contains(t.name));
      const auto& w = want[t.name];
      EXPECT_EQ(StDtypeName(t.dtype), w[0].get<std::string>());
      EXPECT_EQ(t.shape, w[1].get<std::vector<uint64_t>>());
      EXPECT_EQ(name, w[2].get<std::string>());
      EXPECT_EQ(t.begin, w[3].get<uint64_t>());
      EXPECT_EQ(t.end, w[4].get<uint64_t>());
      // Its bytes, where the header says they are.
      const uint64_t at = h->DataStart() + t.begin;
      EXPECT_EQ(static_cast<unsigned char>(text[at]), (t.begin * 7) % 251);
      total += t.Bytes();
      ++seen;
    }
  }
  EXPECT_EQ(seen, want.size());
  EXPECT_EQ(total, index->total_size);
}

}  // namespace
}  // namespace ckpt
