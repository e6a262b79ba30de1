// serve.hold's shares: each chunk a rank reads lands at its range's place
// in the rank's share (the ranges end to end, in the plan's order), in
// whatever pieces and order it arrives; a chunk outside the rank's ranges
// is refused, and shares past the node's memory are refused before any is
// allocated.
#include "node/serving/held_weights.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ckpt {
namespace {

using ::testing::HasSubstr;

// A file's byte at `offset`: distinct per file.
unsigned char FileByte(size_t file, uint64_t offset) {
  return static_cast<unsigned char>((offset * 7 + file * 31) % 251);
}

std::vector<unsigned char> Bytes(size_t file, uint64_t offset, size_t len) {
  std::vector<unsigned char> out(len);
  for (size_t i = 0; i < len; ++i) out[i] = FileByte(file, offset + i);
  return out;
}

ReplicaPlan TwoRanks() {
  ReplicaPlan plan;
  RankReads r0;
  r0.files.push_back({0, {{0, 10}, {20, 5}}, 15});
  r0.files.push_back({3, {{100, 7}}, 7});
  r0.bytes = 22;
  RankReads r1;
  r1.files.push_back({0, {{10, 10}}, 10});
  r1.bytes = 10;
  plan.ranks = {r0, r1};
  return plan;
}

TEST(HeldWeights, EachChunkLandsAtItsRangesPlaceInTheShare) {
  const ReplicaPlan plan = TwoRanks();
  auto held = HeldWeights::Make(plan);
  ASSERT_TRUE(held.ok()) << held.status();
  HeldWeights& h = **held;
  EXPECT_EQ(h.bytes(), 32u);
  // Rank 0, out of order and in pieces: file 3 first, then the second
  // range of file 0, then the first in two chunks.
  struct Piece {
    size_t rank, file;  // file: index in the rank's plan
    uint64_t offset;
    size_t len;
  };
  for (const Piece& p :
       {Piece{0, 1, 100, 7}, Piece{0, 0, 20, 5}, Piece{0, 0, 4, 6},
        Piece{0, 0, 0, 4}, Piece{1, 0, 10, 10}}) {
    const size_t model_file = plan.ranks[p.rank].files[p.file].file;
    std::vector<unsigned char> data = Bytes(model_file, p.offset, p.len);
    auto at = h.Put(p.rank, p.file, p.offset, data.data(), p.len);
    ASSERT_TRUE(at.ok()) << at.status();
    EXPECT_EQ(std::vector<unsigned char>(*at, *at + p.len), data);
  }
  std::vector<unsigned char> want = Bytes(0, 0, 10);
  for (unsigned char c : Bytes(0, 20, 5)) want.push_back(c);
  for (unsigned char c : Bytes(3, 100, 7)) want.push_back(c);
  EXPECT_EQ(std::vector<unsigned char>(h.share(0), h.share(0) + 22), want);
  EXPECT_EQ(std::vector<unsigned char>(h.share(1), h.share(1) + 10),
            Bytes(0, 10, 10));
}

TEST(HeldWeights, AChunkOutsideTheRanksRangesIsRefused) {
  const ReplicaPlan plan = TwoRanks();
  auto held = HeldWeights::Make(plan);
  ASSERT_TRUE(held.ok());
  std::vector<unsigned char> data(16, 1);
  HeldWeights& h = **held;
  // Across the end of [0, 10); in the gap [10, 20); before any range of
  // file 3; a file and a rank the plan does not have.
  EXPECT_THAT(h.Put(0, 0, 8, data.data(), 5).status().message(),
              HasSubstr("outside its ranges"));
  EXPECT_FALSE(h.Put(0, 0, 12, data.data(), 1).ok());
  EXPECT_FALSE(h.Put(0, 1, 99, data.data(), 1).ok());
  EXPECT_FALSE(h.Put(0, 2, 0, data.data(), 1).ok());
  EXPECT_FALSE(h.Put(2, 0, 0, data.data(), 1).ok());
}

TEST(HeldWeights, SharesPastTheNodesMemoryAreRefusedNamingTheKey) {
  ReplicaPlan plan = TwoRanks();
  plan.ranks[1].bytes = 1ull << 60;
  auto held = HeldWeights::Make(plan);
  ASSERT_FALSE(held.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(held.status()));
  EXPECT_THAT(held.status().message(),
              HasSubstr("serve.hold (CKPT_SERVE_HOLD) = true"));
}

}  // namespace
}  // namespace ckpt
