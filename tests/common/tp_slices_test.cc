// Tensor-parallel slices of a model's tensors, and whole files per rank.
#include "common/serving/tp_slices.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "common/model_presets.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

StTensor T(std::string name, std::vector<uint64_t> shape, uint64_t begin = 0) {
  StTensor t;
  t.name = std::move(name);
  t.dtype = StDtype::kBf16;
  t.shape = std::move(shape);
  t.begin = begin;
  t.end = begin + 2 * t.shape[0] * (t.shape.size() > 1 ? t.shape[1] : 1);
  return t;
}

std::vector<ByteRange> Slice(const StTensor& t, int tp, int rank) {
  auto s = TpSlice(t, TpRoleOf(t.name, t.shape.size()), 100, tp, rank, 0);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : std::vector<ByteRange>{};
}

TEST(TpSlices, LlamasTensorsHaveTheirVllmRoles) {
  std::map<TpRole, int> count;
  for (const TensorSpec& s : LlamaTensors({64, 160, 2, 4, 2, 384}, kBf16)) {
    ++count[TpRoleOf(s.name, s.shape.size())];
  }
  EXPECT_EQ(count[TpRole::kColumn], 2 * 3);
  EXPECT_EQ(count[TpRole::kKv], 2 * 2);
  EXPECT_EQ(count[TpRole::kRow], 2 * 2);
  EXPECT_EQ(count[TpRole::kVocab], 2);
  EXPECT_EQ(count[TpRole::kReplicated], 2 * 2 + 1);
  EXPECT_EQ(count[TpRole::kUnknown], 0);
  EXPECT_EQ(TpRoleOf("model.rotary_emb.inv_freq", 1), TpRole::kUnknown);
  // The role needs the weight's dimensions too.
  EXPECT_EQ(TpRoleOf("model.layers.0.self_attn.q_proj.weight", 1),
            TpRole::kUnknown);
}

TEST(TpSlices, ColumnParallelRanksReadContiguousRows) {
  const StTensor q = T("model.layers.0.self_attn.q_proj.weight", {8, 4}, 16);
  EXPECT_EQ(Slice(q, 2, 0), (std::vector<ByteRange>{{116, 32}}));
  EXPECT_EQ(Slice(q, 2, 1), (std::vector<ByteRange>{{148, 32}}));
  // 128 vocabulary rows over 4: 32 each.
  const StTensor e = T("model.embed_tokens.weight", {128, 4});
  EXPECT_EQ(Slice(e, 4, 3), (std::vector<ByteRange>{{100 + 96 * 8, 32 * 8}}));
}

TEST(TpSlices, RowParallelRanksReadAPieceOfEveryRow) {
  const StTensor o = T("model.layers.0.self_attn.o_proj.weight", {2, 4});
  EXPECT_EQ(Slice(o, 2, 0), (std::vector<ByteRange>{{100, 4}, {108, 4}}));
  EXPECT_EQ(Slice(o, 2, 1), (std::vector<ByteRange>{{104, 4}, {112, 4}}));
}

TEST(TpSlices, NormsAreReadWholeByEveryRankAndUnknownsByTheirOwner) {
  const StTensor n = T("model.layers.0.input_layernorm.weight", {4});
  EXPECT_EQ(Slice(n, 4, 2), (std::vector<ByteRange>{{100, 8}}));
  const StTensor u = T("rotary.inv_freq", {4});
  auto mine = TpSlice(u, TpRole::kUnknown, 100, 4, 3, 3);
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(*mine, (std::vector<ByteRange>{{100, 8}}));
  auto not_mine = TpSlice(u, TpRole::kUnknown, 100, 4, 1, 3);
  ASSERT_TRUE(not_mine.ok());
  EXPECT_TRUE(not_mine->empty());
}

// Over R = 2 and 4, every byte of a split tensor is read by exactly one
// rank, and a replicated one by every rank.
TEST(TpSlices, TheRanksSlicesCoverEachTensorExactlyOnce) {
  for (int tp : {2, 4}) {
    uint64_t at = 0;
    for (const TensorSpec& s : LlamaTensors({64, 160, 2, 4, 4, 384}, kBf16)) {
      StTensor t = T(s.name, s.shape, at);
      at = t.end;
      const TpRole role = TpRoleOf(t.name, t.shape.size());
      std::vector<int> reads(t.Bytes(), 0);
      for (int r = 0; r < tp; ++r) {
        for (const ByteRange& b : Slice(t, tp, r)) {
          for (uint64_t i = 0; i < b.length; ++i) {
            ++reads[b.offset - 100 - t.begin + i];
          }
        }
      }
      const int want = role == TpRole::kReplicated ? tp : 1;
      SCOPED_TRACE(t.name + " over " + std::to_string(tp));
      EXPECT_EQ(std::count(reads.begin(), reads.end(), want),
                static_cast<long>(t.Bytes()));
    }
  }
}

TEST(TpSlices, AShapeThatDoesNotDivideIsAnErrorNamingTheTensor) {
  const StTensor k = T("model.layers.3.self_attn.q_proj.weight", {6, 4});
  auto s = TpSlice(k, TpRole::kColumn, 0, 4, 0, 0);
  ASSERT_FALSE(s.ok());
  EXPECT_THAT(s.status().message(),
              HasSubstr("'model.layers.3.self_attn.q_proj.weight'"));
  EXPECT_THAT(s.status().message(), HasSubstr("shape [6, 4]"));
  EXPECT_THAT(s.status().message(), HasSubstr("over 4 ranks"));
  EXPECT_FALSE(TpSlice(k, TpRole::kColumn, 0, 2, 2, 0).ok());  // rank >= tp
  StTensor tall = T("x.mlp.down_proj.weight", {kMaxStridedRows + 1, 2});
  EXPECT_FALSE(TpSlice(tall, TpRole::kRow, 0, 2, 0, 0).ok());
  // Three F4 columns are not whole bytes per row.
  StTensor f4 = T("x.mlp.up_proj.weight", {4, 3});
  f4.dtype = StDtype::kF4;
  f4.end = 6;
  auto sub = TpSlice(f4, TpRole::kColumn, 0, 2, 0, 0);
  ASSERT_FALSE(sub.ok());
  EXPECT_THAT(sub.status().message(), HasSubstr("not whole bytes"));
}

// vLLM's QKVParallelLinear: with more ranks than KV heads each head is read
// whole by tp / heads ranks; with fewer, the heads split.
TEST(TpSlices, KvHeadsAreReplicatedPastTheirCount) {
  const StTensor k = T("model.layers.0.self_attn.k_proj.weight", {32, 4});
  auto r0 = TpSlice(k, TpRole::kKv, 0, 4, 0, 0, /*head_dim=*/16);
  auto r1 = TpSlice(k, TpRole::kKv, 0, 4, 1, 0, 16);
  auto r2 = TpSlice(k, TpRole::kKv, 0, 4, 2, 0, 16);
  auto r3 = TpSlice(k, TpRole::kKv, 0, 4, 3, 0, 16);
  ASSERT_TRUE(r0.ok() && r1.ok() && r2.ok() && r3.ok());
  EXPECT_EQ(*r0, (std::vector<ByteRange>{{0, 128}}));
  EXPECT_EQ(*r1, (std::vector<ByteRange>{{0, 128}}));
  EXPECT_EQ(*r2, (std::vector<ByteRange>{{128, 128}}));
  EXPECT_EQ(*r3, (std::vector<ByteRange>{{128, 128}}));
  auto split = TpSlice(k, TpRole::kKv, 0, 2, 1, 0, 8);  // 4 heads, 2 ranks
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(*split, (std::vector<ByteRange>{{128, 128}}));
  EXPECT_FALSE(TpSlice(k, TpRole::kKv, 0, 3, 0, 0, 16).ok());  // 2 heads, 3
  EXPECT_FALSE(TpSlice(k, TpRole::kKv, 0, 2, 0, 0, 5).ok());   // not heads
  // Without the head size, rows split as any column-parallel weight's.
  auto rows = TpSlice(k, TpRole::kKv, 0, 4, 3, 0);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, (std::vector<ByteRange>{{192, 64}}));
}

// vLLM's VocabParallelEmbedding: the vocabulary padded to 64, each rank
// its share of the padded rows, the last cut at the real vocabulary.
TEST(TpSlices, TheVocabularyIsPaddedTo64AndTheLastShareCut) {
  const StTensor e = T("model.embed_tokens.weight", {50, 2});
  auto r0 = TpSlice(e, TpRole::kVocab, 0, 2, 0, 0);
  auto r1 = TpSlice(e, TpRole::kVocab, 0, 2, 1, 0);
  ASSERT_TRUE(r0.ok() && r1.ok());
  EXPECT_EQ(*r0, (std::vector<ByteRange>{{0, 32 * 4}}));
  EXPECT_EQ(*r1, (std::vector<ByteRange>{{32 * 4, 18 * 4}}));
  auto none = TpSlice(T("lm_head.weight", {10, 2}), TpRole::kVocab, 0, 4, 3, 0);
  ASSERT_TRUE(none.ok());  // 64 padded rows: rank 3's 16 are all padding
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(
      TpSlice(T("lm_head.weight", {100, 2}), TpRole::kVocab, 0, 3, 0, 0)
          .ok());  // 128 padded rows over 3
}

TEST(TpSlices, ATensorOfNoBytesIsReadByNoRank) {
  StTensor z = T("x.mlp.down_proj.weight", {1 << 22, 0});
  auto s = TpSlice(z, TpRole::kRow, 0, 2, 0, 0);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->empty());
}

TEST(TpSlices, RangesCoalesceWhereTheyTouch) {
  EXPECT_EQ(CoalesceRanges({{10, 5}, {0, 10}, {20, 0}, {30, 5}, {32, 10}}),
            (std::vector<ByteRange>{{0, 15}, {30, 12}}));
}

TEST(TpSlices, WholeFilesGoLargestFirstToTheLeastLoadedRank) {
  EXPECT_EQ(WholeFilesPerRank({5, 5, 5, 1}, 2), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(WholeFilesPerRank({1, 9, 4, 4}, 2), (std::vector<int>{1, 0, 1, 1}));
  EXPECT_EQ(WholeFilesPerRank({3}, 4), (std::vector<int>{0}));
}

}  // namespace
}  // namespace ckpt
