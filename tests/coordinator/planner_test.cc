#include "coordinator/checkpoint/planner.h"

#include <gtest/gtest.h>

#include <map>

#include "common/model_presets.h"

namespace ckpt {
namespace {

PlanOptions Opts(const std::string& model, int nodes, int ranks,
                 int threads = 1) {
  PlanOptions o;
  o.model = model;
  o.num_nodes = nodes;
  o.ranks_per_node = ranks;
  o.thread_count = threads;
  return o;
}

// Lightning demo Transformer, d=200, ff=200, vocab V=33278, L layers:
//   embedding V*d = 6,655,600; decoder Linear V*d + V = 6,688,878;
//   encoder layer: in_proj 3d*d+3d (120,600) + out_proj d*d+d (40,200)
//     + linear1 (40,200) + linear2 (40,200) + 2 norms (800) = 242,000;
//   decoder layer: 2 attentions (321,600) + linears (80,400) + 3 norms
//     (1,200) = 403,200; final norms 2 x 400 = 800.
//   params = 13,345,278 + 645,200 L.  Adam: 4 B weight + 8 B moments.
TEST(Planner, TransformerByteTotalsByHand) {
  auto p = MakePlan(Opts("transformer", 1, 1));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->parameters, 19'797'278u);  // L = 10
  EXPECT_EQ(p->total_bytes, 12u * 19'797'278u);
  EXPECT_EQ(p->weight_bytes, 4u * 19'797'278u);
  PlanOptions o = Opts("transformer", 1, 2);
  o.num_layers = 4;
  p = MakePlan(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->parameters, 15'926'078u);
  EXPECT_EQ(p->total_bytes, 191'112'936u);
}

// Llama-7b (DCP benchmark shape): h=4096, ffn=11008, 32 layers, vocab 50432.
//   per layer 4 h^2 + 3 h ffn + 2 h = 67,108,864 + 135,266,304 + 8,192
//   = 202,383,360; x32 = 6,476,267,520; embed + lm_head 2*50432*4096 =
//   413,138,944; final norm 4,096 -> 6,889,410,560 (with vocab 32000 this is
//   the familiar 6,738,415,616).
TEST(Planner, Llama7bByHand) {
  auto p = MakePlan(Opts("llama-7b", 2, 4));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->parameters, 6'889'410'560u);
  EXPECT_EQ(p->total_bytes, 12u * 6'889'410'560u);
  EXPECT_EQ(p->world_size, 8);
  EXPECT_EQ(p->tensors.size(), 3u * (2 + 32 * 9 + 1));
}

// ViT-B/16: patch conv 768*3*16*16 + 768, cls 768, pos 197*768 = 151,296;
//   block: 2 norms 3,072 + qkv 1,771,776 + proj 590,592 + fc1 2,362,368 +
//   fc2 2,360,064 = 7,087,872; x12 = 85,054,464; norm 1,536;
//   head 769,000 -> 86,567,656.
TEST(Planner, VitBaseByHandWithOptimizerChoices) {
  PlanOptions o = Opts("vit-base", 1, 1);
  o.optimizer = Optimizer::kSgd;
  auto p = MakePlan(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->parameters, 86'567'656u);
  EXPECT_EQ(p->total_bytes, 8u * 86'567'656u);
  o.optimizer = Optimizer::kNone;
  EXPECT_EQ(MakePlan(o)->total_bytes, 4u * 86'567'656u);
}

// MLPerf llama3-8b: 105 GiB = 112,742,891,520 B, ZeRO-3 over 8 ranks ->
// 14,092,861,440 B per rank; P = 105 GiB / 14 = 8,053,063,680.
TEST(Planner, MlperfLlama3_8bZero3) {
  auto p = MakePlan(Opts("llama3-8b", 1, 8));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->parameters, 8'053'063'680u);
  EXPECT_EQ(p->total_bytes, 112'742'891'520u);
  for (const auto& r : p->ranks) EXPECT_EQ(r.bytes, 14'092'861'440u) << r.rank;
  EXPECT_TRUE(p->notes.empty());
}

// MLPerf llama3-405b: 5.29 TiB, TPxPPxDP 8x32x2, ZeRO-1.
//   P = round(5.29 * 2^40 / 14) = 415,458,322,210.
//   Ranks 0..255 (DP rank 0) write weights: ceil(P/256) = 1,622,884,072
//   bf16 -> 3,245,768,144 B. Every rank writes optimizer state:
//   ceil(3P/512) = 2,434,326,107 fp32 -> 9,737,304,428 B.
TEST(Planner, MlperfLlama3_405bZero1FullAndSubset) {
  auto full = MakePlan(Opts("llama3-405b", 64, 8));
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ(full->parameters, 415'458'322'210u);
  EXPECT_EQ(full->ranks[0].bytes, 3'245'768'144u + 9'737'304'428u);
  EXPECT_EQ(full->ranks[300].bytes, 9'737'304'428u);
  EXPECT_EQ(full->total_bytes, 14u * 415'458'322'210u);
  // Subset mode on one 8-GPU host: ranks 0..7 of the 512-rank layout.
  auto subset = MakePlan(Opts("llama3-405b", 1, 8));
  ASSERT_TRUE(subset.ok());
  EXPECT_EQ(subset->total_bytes, 8u * (3'245'768'144u + 9'737'304'428u));
  ASSERT_EQ(subset->notes.size(), 1u);
  EXPECT_NE(subset->notes[0].find("subset"), std::string::npos);
  // More ranks than the reference must be a multiple of TP x PP = 256.
  EXPECT_FALSE(MakePlan(Opts("llama3-405b", 100, 8)).ok());
}

TEST(Planner, FullShardingCoversEveryTensorByteExactlyOnce) {
  auto p = MakePlan(Opts("transformer", 1, 3, 4));
  ASSERT_TRUE(p.ok());
  std::map<uint32_t, uint64_t> covered;
  for (const auto& r : p->ranks) {
    ASSERT_LE(r.files.size(), 4u);
    uint64_t rank_bytes = 0;
    for (const auto& f : r.files) {
      EXPECT_EQ(f.name, ShardFileName(r.rank, f.index));
      uint64_t off = 0;
      for (const auto& s : f.segments) {
        EXPECT_EQ(s.file_offset, off);  // contiguous
        off += s.length;
        covered[s.tensor] += s.length;
      }
      EXPECT_EQ(off, f.size);
      rank_bytes += f.size;
    }
    EXPECT_EQ(rank_bytes, r.bytes);
  }
  for (uint32_t t = 0; t < p->tensors.size(); ++t) {
    EXPECT_EQ(covered[t], p->tensors[t].Bytes()) << p->tensors[t].name;
  }
}

TEST(Planner, HybridWritesFromNodeZeroOnly) {
  PlanOptions o = Opts("transformer", 2, 2);
  o.strategy = ShardingStrategy::kHybrid;
  auto p = MakePlan(o);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->total_bytes, 237'567'336u);
  EXPECT_GT(p->ranks[0].bytes, 0u);
  EXPECT_EQ(p->ranks[2].bytes, 0u);
  EXPECT_EQ(p->ranks[3].node, 1u);
}

// Identity (fingerprint) is the model's tensors; world size, files per rank
// and sharding only change the layout, so a resharded restore can tell "same
// model, other layout" from "another model".
TEST(Planner, FingerprintIsTheModelLayoutIsThePlacement) {
  auto a = MakePlan(Opts("transformer", 1, 2, 1));
  auto more_files = MakePlan(Opts("transformer", 1, 2, 2));
  auto more_ranks = MakePlan(Opts("transformer", 2, 2, 1));
  auto same = MakePlan(Opts("transformer", 1, 2, 1));
  PlanOptions deeper = Opts("transformer", 1, 2, 1);
  deeper.num_layers = 3;
  auto other_model = MakePlan(deeper);
  PlanOptions hybrid = Opts("transformer", 2, 2, 1);
  hybrid.strategy = ShardingStrategy::kHybrid;
  auto hybrid_plan = MakePlan(hybrid);
  ASSERT_TRUE(a.ok() && more_files.ok() && more_ranks.ok() && same.ok() &&
              other_model.ok() && hybrid_plan.ok());
  EXPECT_EQ(a->fingerprint, same->fingerprint);
  EXPECT_EQ(a->layout, same->layout);
  for (const auto* p : {&*more_files, &*more_ranks, &*hybrid_plan}) {
    EXPECT_EQ(a->fingerprint, p->fingerprint);
    EXPECT_NE(a->layout, p->layout);
  }
  EXPECT_NE(more_ranks->layout, hybrid_plan->layout);
  EXPECT_NE(a->fingerprint, other_model->fingerprint);
}

TEST(Planner, UnknownPresetSuggests) {
  auto p = MakePlan(Opts("llama-7", 1, 1));
  ASSERT_FALSE(p.ok());
  EXPECT_NE(std::string(p.status().message()).find("CKPT_MODEL"),
            std::string::npos);
  EXPECT_NE(std::string(p.status().message()).find("did you mean 'llama-7b'"),
            std::string::npos);
}

// Issue 14, case 2: a plan too big to hold is refused before anything is
// built (NUM_DEVICES=100000 grew to 24 GB; NUM_LAYERS=1e9 aborted), with
// the estimate, the memory it was held against and only the keys that
// change this preset's plan; real plans that fit are not refused.
TEST(Planner, HugePlansAreRefusedUpFrontWithTheNumbers) {
  const MemoryBudget budget{16ull << 30, "test"};
  auto ranks = CheckPlanBounds(Opts("transformer", 1, 100000), budget);
  ASSERT_TRUE(absl::IsInvalidArgument(ranks)) << ranks;
  const std::string m(ranks.message());
  EXPECT_NE(m.find("x 1e+05 writing ranks"), std::string::npos) << m;
  EXPECT_NE(m.find("16.00 GiB available, test"), std::string::npos) << m;
  EXPECT_NE(m.find("fewer layers (NUM_LAYERS=10)"), std::string::npos) << m;
  EXPECT_NE(m.find("NUM_NODES x NUM_DEVICES = 100000"), std::string::npos) << m;
  PlanOptions layers = Opts("transformer", 1, 2);
  layers.num_layers = 1000000000;
  auto deep = CheckPlanBounds(layers, budget);
  ASSERT_TRUE(absl::IsInvalidArgument(deep)) << deep;
  // The .metadata cap holds whatever the memory.
  EXPECT_FALSE(CheckPlanBounds(layers, {0, ""}).ok());
  // Presets that ignore NUM_LAYERS are not told to lower it.
  auto llama = CheckPlanBounds(Opts("llama-7b", 100000, 8), budget);
  ASSERT_FALSE(llama.ok());
  EXPECT_EQ(llama.message().find("NUM_LAYERS"), std::string::npos) << llama;
  // Real plans pass: llama-70b on 256x8, llama-7b on 1024x8, and hybrid
  // with many files (only node 0's ranks write).
  EXPECT_TRUE(CheckPlanBounds(Opts("llama-70b", 256, 8), budget).ok());
  EXPECT_TRUE(CheckPlanBounds(Opts("llama-7b", 1024, 8), budget).ok());
  PlanOptions hybrid = Opts("llama-7b", 4096, 8, 128);
  hybrid.strategy = ShardingStrategy::kHybrid;
  EXPECT_TRUE(CheckPlanBounds(hybrid, budget).ok());
  // The same plan with less memory is refused, naming it.
  auto small = CheckPlanBounds(Opts("llama-7b", 1024, 8), {1ull << 30, "t"});
  EXPECT_NE(small.message().find("1.00 GiB available, t"), std::string::npos)
      << small;
  EXPECT_TRUE(MakePlan(Opts("llama-7b", 16, 8)).ok());
}

// A run's own plan is made again from a configuration already planned
// (CheckpointRun, PlanRunCheckpoints) with the memory left out of its
// bounds: the plan a tiny budget refuses is made without one, and the
// .metadata's bound still holds.
TEST(Planner, APlanMadeWithoutAMemoryBudgetKeepsTheMetadataBound) {
  const PlanOptions o = Opts("transformer", 1, 2);
  auto tiny = MakePlan(o, MemoryBudget{1024, "t"});
  ASSERT_TRUE(absl::IsInvalidArgument(tiny.status())) << tiny.status();
  EXPECT_NE(tiny.status().message().find("available, t"), std::string::npos)
      << tiny.status();
  auto unbounded = MakePlan(o, MemoryBudget{});
  ASSERT_TRUE(unbounded.ok()) << unbounded.status();
  auto bounded = MakePlan(o);
  ASSERT_TRUE(bounded.ok()) << bounded.status();
  EXPECT_EQ(unbounded->fingerprint, bounded->fingerprint);
  EXPECT_EQ(unbounded->layout, bounded->layout);
  EXPECT_EQ(unbounded->total_bytes, bounded->total_bytes);
  PlanOptions deep = o;
  deep.num_layers = 1000000000;
  EXPECT_FALSE(MakePlan(deep, MemoryBudget{}).ok());
}

}  // namespace
}  // namespace ckpt
