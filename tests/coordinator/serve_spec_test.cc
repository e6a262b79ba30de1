// The serve workload against a safetensors reader and writer written from
// the format's specification alone (tests/scripts/safetensors_spec.py): a
// model the workload generated on a local disk is accepted by the reader,
// and a "user's own" model the writer made (not ckptbench) is loaded by
// replicas of 2 and 4 ranks, whole files and tensor-parallel, unverified
// and said so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"
#include "coordinator/serving/serve_results.h"
#include "coordinator/summary.h"
#include "node/storage/memory_storage.h"
#include "tests/testing/inprocess_run.h"
#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

ProcessResult SpecScript(const std::string& mode, const std::string& dir) {
  const char* path = std::getenv("PATH");
  return RunProcess(
      {"/usr/bin/python3", SourceDir() + "/tests/scripts/safetensors_spec.py",
       mode, dir},
      {{"PATH", path ? path : "/usr/bin:/bin"}});
}

Config LocalServe(const std::string& dir, int ranks, ServeSplit split) {
  Config c;
  c.run.workload = kServeWorkload;
  c.model.name = "llama-3-tiny";
  c.cluster.num_devices = std::to_string(ranks);
  c.io.cache_mode = CacheMode::kNone;  // no root needed to drop caches
  ServeOf(c).path = dir;
  ServeOf(c).file_bytes = 1 << 20;
  ServeOf(c).chunk_bytes = 16 << 10;
  ServeOf(c).split = split;
  return c;
}

TEST(ServeSpec, AGeneratedModelOnDiskIsWhatTheSpecificationSays) {
  TempDir d;
  const std::string dir = d.Sub("model");
  Config c = LocalServe(dir, 2, ServeSplit::kTp);
  InProcessRun h(nullptr, c);
  ASSERT_TRUE(h.Run().ok());
  ASSERT_NE(ServingModelOf(h.result), nullptr);
  const uint64_t files = ServingModelOf(h.result)->written_files;
  ASSERT_GE(files, 4u);
  // The manifest is ckptbench's, beside the model: the reader reads only
  // *.safetensors, the index and config.json.
  ProcessResult r = SpecScript("check", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 2 layers x 9 tensors, the embeddings, the final norm and lm_head.
  EXPECT_THAT(r.out, HasSubstr(std::to_string(files) + " files, 21 tensors"));
  EXPECT_THAT(r.out, HasSubstr("config.json: LlamaForCausalLM, 2 layers, "
                               "bfloat16, as the tensors are"));
  // A config.json that says otherwise is caught by the reader (what makes
  // the line above worth asserting).
  {
    std::ofstream f(dir + "/config.json", std::ios::trunc);
    f << R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama",
             "hidden_size": 256, "intermediate_size": 512,
             "num_hidden_layers": 3, "num_attention_heads": 4,
             "num_key_value_heads": 2, "vocab_size": 2048,
             "torch_dtype": "bfloat16"})";
  }
  r = SpecScript("check", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("model.layers.2."));
}

// mmap (through page faults, one thread a rank) and direct (O_DIRECT,
// aligned runs around unaligned tensor slices) read the same bytes as
// stream, every one verified, whole files and tensor-parallel.
TEST(ServeSpec, MmapAndDirectReadEveryByteOfTheirPlan) {
  TempDir d;
  const std::string dir = d.Sub("model");
  uint64_t read_tp = 0;
  {
    Config c = LocalServe(dir, 4, ServeSplit::kTp);
    InProcessRun h(nullptr, c);
    ASSERT_TRUE(h.Run().ok());
    ASSERT_NE(ReplicaLoadOf(h.result.rounds.back()), nullptr);
    read_tp = ReplicaLoadOf(h.result.rounds.back())->read_bytes;
  }
  for (const ServeReadMode mode :
       {ServeReadMode::kMmap, ServeReadMode::kDirect}) {
    for (const ServeSplit split : {ServeSplit::kFiles, ServeSplit::kTp}) {
      SCOPED_TRACE(absl::StrCat(std::string(Name(mode)), ", ",
                                std::string(Name(split))));
      Config c = LocalServe(dir, 4, split);
      ServeOf(c).read_mode = mode;
      InProcessRun h(nullptr, c);
      const absl::Status s = h.Run();
      if (mode == ServeReadMode::kDirect && !s.ok() &&
          absl::StrContains(h.result.rounds.back().error, "direct I/O")) {
        GTEST_SKIP() << "this file system has no O_DIRECT: "
                     << h.result.rounds.back().error;
      }
      ASSERT_TRUE(s.ok()) << h.result.rounds.back().error;
      const ReplicaLoadResult* load = ReplicaLoadOf(h.result.rounds.back());
      ASSERT_NE(load, nullptr);
      EXPECT_EQ(load->read_mode, mode);
      EXPECT_TRUE(load->verified);
      if (split == ServeSplit::kTp) {
        EXPECT_EQ(load->read_bytes, read_tp);
      }
      EXPECT_EQ(load->replicas[0].bytes, load->read_bytes);
      EXPECT_THAT(SummaryTable(h.result),
                  HasSubstr(absl::StrCat(std::string(Name(mode)), ", ",
                                         std::string(Name(split)), " x 4")));
    }
  }
}

TEST(ServeSpec, AUsersOwnModelIsLoadedUnverifiedInEverySplit) {
  TempDir d;
  const std::string dir = d.Sub("own");
  ProcessResult w = SpecScript("write", dir);
  ASSERT_EQ(w.exit_code, 0) << w.err;
  uint64_t file_bytes = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".safetensors") file_bytes += e.file_size();
  }
  for (const int ranks : {2, 4}) {
    for (const ServeSplit split : {ServeSplit::kFiles, ServeSplit::kTp}) {
      SCOPED_TRACE(absl::StrCat(ranks, " ranks, ", std::string(Name(split))));
      Config c = LocalServe(dir, ranks, split);
      ServeOf(c).source = DatasetSource::kListed;
      InProcessRun h(nullptr, c);
      ASSERT_TRUE(h.Run().ok());
      ASSERT_EQ(h.result.rounds.size(), 1u);  // no make: not ckptbench's
      const ReplicaLoadResult* load = ReplicaLoadOf(h.result.rounds[0]);
      ASSERT_NE(load, nullptr);
      EXPECT_FALSE(load->verified);
      EXPECT_FALSE(h.result.rounds[0].verified);
      EXPECT_EQ(load->model_bytes, file_bytes);
      ASSERT_EQ(load->replicas.size(), 1u);
      EXPECT_EQ(load->replicas[0].bytes, load->read_bytes);
      if (split == ServeSplit::kFiles) {
        EXPECT_EQ(load->read_bytes, file_bytes);  // headers included
      } else {
        // Tensor bytes only (939 of them), each once but the layer norm's
        // 32, which every rank reads: the unknown tensors (rotary.inv_freq,
        // position_ids, mask) by one rank each, the 16-row vocabulary
        // (padded to 64) all on rank 0.
        EXPECT_EQ(load->read_bytes, 939u + (ranks - 1) * 32u);
      }
      const ServingModelResult* m = ServingModelOf(h.result);
      ASSERT_NE(m, nullptr);
      EXPECT_EQ(m->files, 2u);
      EXPECT_EQ(m->tensors, 8u);
      EXPECT_THAT(SummaryTable(h.result), HasSubstr("not verified"));
    }
  }
}

}  // namespace
}  // namespace ckpt
