// What each rank of a serving replica reads of a model
// (common/serving/replica_plan.h).
#include "common/serving/replica_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/model_presets.h"
#include "common/serving/model_files.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

// A small Llama (bf16), plus one tensor of no known role, split into files
// of at most `max` bytes, as the plan takes them.
std::vector<PlannedFile> TinyLlama(uint64_t max, uint64_t kv_heads = 4) {
  std::vector<StTensor> ts = ModelTensors(
      LlamaTensors({64, 160, 2, 4, kv_heads, 384}, kBf16), StDtype::kBf16);
  StTensor extra;
  extra.name = "model.rotary_emb.inv_freq";
  extra.dtype = StDtype::kF32;
  extra.shape = {16};
  ts.push_back(extra);
  std::vector<PlannedFile> out;
  for (ModelFile& f : ShardModel(ts, max)) {
    PlannedFile p;
    p.name = f.name;
    p.size = f.Size();
    p.header.length = f.header.size() - 8;
    p.header.tensors = std::move(f.tensors);
    out.push_back(std::move(p));
  }
  return out;
}

TEST(ReplicaPlan, WholeFilesAreEachReadByOneRank) {
  const auto files = TinyLlama(64 << 10);
  ASSERT_GE(files.size(), 4u);
  auto plan = PlanReplica(files, ReplicaSplit::kWholeFiles, 2);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->read_bytes, plan->model_bytes);
  std::vector<int> read(files.size(), 0);
  for (const RankReads& r : plan->ranks) {
    EXPECT_GT(r.bytes, 0u);
    for (const FileReads& f : r.files) {
      ++read[f.file];
      EXPECT_EQ(f.ranges, (std::vector<ByteRange>{{0, files[f.file].size}}));
    }
  }
  EXPECT_EQ(read, std::vector<int>(files.size(), 1));
}

TEST(ReplicaPlan, TensorParallelRanksReadTheirSlicesAndTheNormsEach) {
  const auto files = TinyLlama(64 << 10);
  uint64_t headers = 0, norms = 0;
  for (const auto& f : files) {
    headers += f.header.DataStart();
    for (const auto& t : f.header.tensors) {
      if (TpRoleOf(t.name, t.shape.size()) == TpRole::kReplicated) {
        norms += t.Bytes();
      }
    }
  }
  for (int tp : {2, 4}) {
    SCOPED_TRACE(tp);
    auto plan = PlanReplica(files, ReplicaSplit::kTensorParallel, tp);
    ASSERT_TRUE(plan.ok()) << plan.status();
    // Every tensor byte once, the norms once more per further rank; no
    // header byte.
    EXPECT_EQ(plan->read_bytes, plan->model_bytes - headers + norms * (tp - 1));
    EXPECT_EQ(plan->role_tensors[static_cast<int>(TpRole::kUnknown)], 1u);
    EXPECT_EQ(plan->role_tensors[static_cast<int>(TpRole::kRow)], 4u);
    // The strided o/down slices make many more ranges than files.
    EXPECT_GT(plan->ranks[0].ranges, 64u * 2);
    for (const RankReads& r : plan->ranks) {
      for (const FileReads& f : r.files) {
        for (size_t i = 0; i < f.ranges.size(); ++i) {
          EXPECT_GE(f.ranges[i].offset, files[f.file].header.DataStart());
          EXPECT_LE(f.ranges[i].offset + f.ranges[i].length,
                    files[f.file].size);
          if (i > 0) {
            EXPECT_GT(f.ranges[i].offset,
                      f.ranges[i - 1].offset + f.ranges[i - 1].length);
          }
        }
      }
    }
  }
}

// Grouped-query attention with more ranks than KV heads: each k and v head
// read by tp / heads ranks, as vLLM replicates them.
TEST(ReplicaPlan, KvHeadsReplicatedPastTheirCountAreReadOncePerRank) {
  const auto files = TinyLlama(1 << 20, /*kv_heads=*/2);  // head_dim 16
  uint64_t headers = 0, norms = 0, kv = 0;
  for (const auto& f : files) {
    headers += f.header.DataStart();
    for (const auto& t : f.header.tensors) {
      const TpRole role = TpRoleOf(t.name, t.shape.size());
      if (role == TpRole::kReplicated) norms += t.Bytes();
      if (role == TpRole::kKv) kv += t.Bytes();
    }
  }
  auto by_heads = PlanReplica(files, ReplicaSplit::kTensorParallel, 4, 16);
  ASSERT_TRUE(by_heads.ok()) << by_heads.status();
  // 2 heads over 4 ranks: every k/v byte twice.
  EXPECT_EQ(by_heads->read_bytes,
            by_heads->model_bytes - headers + norms * 3 + kv);
  auto by_rows = PlanReplica(files, ReplicaSplit::kTensorParallel, 4);
  ASSERT_TRUE(by_rows.ok()) << by_rows.status();
  EXPECT_EQ(by_rows->read_bytes, by_rows->model_bytes - headers + norms * 3);
}

TEST(ReplicaPlan, ATensorThatDoesNotSplitNamesItsFile) {
  // Hidden 64 and ffn 160 do not split over 3 ranks.
  auto plan =
      PlanReplica(TinyLlama(1 << 20, 2), ReplicaSplit::kTensorParallel, 3);
  ASSERT_FALSE(plan.ok());
  EXPECT_THAT(plan.status().message(), HasSubstr("model.safetensors: "));
  EXPECT_THAT(plan.status().message(), HasSubstr("over 3 ranks"));
  EXPECT_FALSE(PlanReplica({}, ReplicaSplit::kWholeFiles, 0).ok());
}

}  // namespace
}  // namespace ckpt
