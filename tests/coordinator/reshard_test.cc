// PlanReshard on checkpoints built by hand: which bytes of which saved
// file each loading rank reads, and the read amplification, checked
// against values worked out by hand below.
#include "coordinator/checkpoint/reshard.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "coordinator/checkpoint/metadata_json.h"

namespace ckpt {
namespace {

// Two fp32 tensors, A of 96 elements (384 bytes) and B of 48 (192 bytes),
// split evenly across `world` ranks, one file per rank holding the rank's
// chunk of A then its chunk of B. With world 2, 4, 6 or 8 the chunks are
// whole elements: A 96/world, B 48/world.
CheckpointPlan EvenPlan(int world) {
  CheckpointPlan p;
  p.tensors = {{"A", "fp32", 4, {96}}, {"B", "fp32", 4, {48}}};
  p.world_size = world;
  p.layout = "even-" + std::to_string(world);
  for (int r = 0; r < world; ++r) {
    RankPlan rp;
    rp.rank = static_cast<uint32_t>(r);
    FilePlan f;
    f.name = ShardFileName(rp.rank, 0);
    for (uint32_t t = 0; t < 2; ++t) {
      const uint64_t chunk = p.tensors[t].Bytes() / world;
      f.segments.push_back({t, r * chunk, chunk, f.size});
      f.size += chunk;
    }
    rp.bytes = f.size;
    rp.files.push_back(f);
    p.ranks.push_back(rp);
  }
  return p;
}

std::vector<SavedFile> Saved(const CheckpointPlan& p) {
  std::vector<SavedFile> out;
  for (const auto& r : p.ranks) {
    for (const auto& f : r.files) out.push_back({r.rank, f});
  }
  return out;
}

ReshardPlan Plan(int from, int to, ReshardReads mode) {
  auto plan = PlanReshard(EvenPlan(to), Saved(EvenPlan(from)), mode, "m");
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : ReshardPlan{};
}

TEST(Reshard, RangesReadExactlyTheOwnedBytes) {
  // Every rank reads only what it owns: 576 bytes needed, 576 read.
  for (auto [from, to] : {std::pair{4, 2}, {2, 4}, {8, 6}}) {
    SCOPED_TRACE(std::to_string(from) + "->" + std::to_string(to));
    ReshardPlan p = Plan(from, to, ReshardReads::kRanges);
    EXPECT_EQ(p.needed, 576u);
    EXPECT_EQ(p.read, 576u);
    EXPECT_DOUBLE_EQ(p.Amplification(), 1.0);
    ASSERT_EQ(p.ranks.size(), static_cast<size_t>(to));
  }
}

TEST(Reshard, EightToSixRanksWorkedByHand) {
  // Old chunks: A 12 elements (48 B), B 6 (24 B): old file r = A[12r,12r+12)
  // at bytes [0,48) then B[6r,6r+6) at [48,72).
  // New rank 0 owns A[0,16) and B[0,8): all of old file 0 (one read of
  // bytes [0,72): A then B are adjacent), and from old file 1 A[12,16) at
  // bytes [0,16) and B[6,8) at [48,56): two reads. 2 files, 3 reads.
  ReshardPlan p = Plan(8, 6, ReshardReads::kRanges);
  const ReshardRank& r0 = p.ranks[0];
  EXPECT_EQ(r0.needed, 96u);  // 16*4 + 8*4
  EXPECT_EQ(r0.read, 96u);
  ASSERT_EQ(r0.files.size(), 2u);
  EXPECT_EQ(p.saved[r0.files[0].saved].rank, 0u);
  EXPECT_EQ(p.saved[r0.files[1].saved].rank, 1u);
  EXPECT_EQ(r0.reads, 3u);
  ASSERT_EQ(r0.files[1].ranges.size(), 2u);
  EXPECT_EQ(r0.files[1].ranges[0].file_offset, 0u);
  EXPECT_EQ(r0.files[1].ranges[0].length, 16u);
  EXPECT_EQ(r0.files[1].ranges[0].tensor_offset, 48u);  // A element 12
  EXPECT_EQ(r0.files[1].ranges[1].file_offset, 48u);
  EXPECT_EQ(r0.files[1].ranges[1].length, 8u);
  EXPECT_EQ(r0.files[1].ranges[1].tensor_offset, 24u);  // B element 6
  // Whole segments: new rank k (chunk 1/6) always overlaps two old chunks
  // (1/8 each), so it reads 2/8 of every tensor for 1/6 of it: 1.5x.
  ReshardPlan whole = Plan(8, 6, ReshardReads::kSegments);
  EXPECT_EQ(whole.needed, 576u);
  EXPECT_EQ(whole.read, 864u);  // 6 ranks x 2 files x 72 bytes
  EXPECT_DOUBLE_EQ(whole.Amplification(), 1.5);
  for (const auto& r : whole.ranks) {
    EXPECT_EQ(r.files.size(), 2u) << r.rank;
    EXPECT_EQ(r.reads, 2u) << r.rank;  // each old file read whole, at once
  }
  // What each rank keeps of the whole segments it reads (its memory holds
  // only that): new rank 0 keeps all of old file 0 (A[0,12) at [0,48),
  // B[0,6) at [48,72)) and of old file 1 A[12,16) at [0,16) and B[6,8) at
  // [48,56): 96 bytes, its share. Over all ranks, the 576 needed.
  using Spans = std::vector<std::pair<uint64_t, uint64_t>>;
  const ReshardRank& w0 = whole.ranks[0];
  EXPECT_EQ(w0.files[0].keep, (Spans{{0, 48}, {48, 72}}));
  EXPECT_EQ(w0.files[1].keep, (Spans{{0, 16}, {48, 56}}));
  uint64_t kept = 0;
  for (const auto& r : whole.ranks) {
    for (const auto& f : r.files) {
      ASSERT_EQ(f.keep.size(), f.ranges.size());
      for (const auto& [b, e] : f.keep) kept += e - b;
    }
  }
  EXPECT_EQ(kept, 576u);
  // Exact ranges keep all they read.
  EXPECT_EQ(r0.files[1].keep, (Spans{{0, 16}, {48, 56}}));
}

TEST(Reshard, FewerAndMoreRanksWorkedByHand) {
  // 4 -> 2: new rank 0 owns exactly old ranks 0 and 1's chunks: whole
  // segments waste nothing (1.0), one read of each of 2 files.
  ReshardPlan fewer = Plan(4, 2, ReshardReads::kSegments);
  EXPECT_DOUBLE_EQ(fewer.Amplification(), 1.0);
  EXPECT_EQ(fewer.ranks[0].files.size(), 2u);
  EXPECT_EQ(fewer.ranks[0].reads, 2u);
  // 2 -> 4: new rank 0 owns half of old rank 0's chunks; reading them whole
  // reads the other half too: 2.0. Exact ranges: the first half of each
  // segment, A's at file bytes [0,96) and B's at [192,240): 2 reads of 1
  // file.
  ReshardPlan more = Plan(2, 4, ReshardReads::kSegments);
  EXPECT_DOUBLE_EQ(more.Amplification(), 2.0);
  EXPECT_EQ(more.read, 1152u);
  ReshardPlan exact = Plan(2, 4, ReshardReads::kRanges);
  EXPECT_EQ(exact.ranks[0].files.size(), 1u);
  EXPECT_EQ(exact.ranks[0].reads, 2u);
}

TEST(Reshard, BytesNoFileHoldsAreAClearError) {
  CheckpointPlan saved = EvenPlan(4);
  saved.ranks[2].files[0].segments.pop_back();  // B[24,36) lost
  auto p = PlanReshard(EvenPlan(2), Saved(saved), ReshardReads::kRanges,
                       "ck/.metadata");
  ASSERT_FALSE(p.ok());
  EXPECT_NE(p.status().message().find(
                "ck/.metadata: tensor B bytes [96, 144), which rank 1 owns in "
                "the new layout, are in none of the checkpoint's 4 files"),
            std::string::npos)
      << p.status();
}

TEST(Reshard, TheMetadataMapsTheSavedFiles) {
  // The .metadata a save writes parses back into the same file map.
  CheckpointPlan p = EvenPlan(4);
  p.fingerprint = "f";
  p.layout = "l";
  std::vector<SavedFile> files;
  auto meta = ParseMetadata(MetadataToJson(p, 3, 7, ChecksumKind::kXxh3, {}),
                            "m", &files);
  ASSERT_TRUE(meta.ok()) << meta.status();
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[3].rank, 3u);
  EXPECT_EQ(files[3].file.name, "__3_0.distcp");
  EXPECT_EQ(files[3].file.size, 144u);
  ASSERT_EQ(files[3].file.segments.size(), 2u);
  EXPECT_EQ(files[3].file.segments[1].tensor, 1u);
  EXPECT_EQ(files[3].file.segments[1].tensor_offset, 144u);
  EXPECT_EQ(files[3].file.segments[1].length, 48u);
  EXPECT_EQ(files[3].file.segments[1].file_offset, 96u);
}

}  // namespace
}  // namespace ckpt
