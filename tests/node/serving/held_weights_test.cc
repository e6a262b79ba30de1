// serve.hold's shares: each chunk a rank reads lands at its range's place
// in the rank's share (the ranges end to end, in the plan's order), in
// whatever pieces and order it arrives; a chunk outside the rank's ranges
// is refused, and shares past the node's memory are refused before any is
// allocated. On GPUs (through device calls a test makes of host memory,
// as this machine has no GPU): the ranks' shares bound to the GPUs in
// turn, each chunk copied to its place there, the memory given back; no
// GPU, or an allocation that fails, refused naming ACCELERATOR.
#include "node/serving/held_weights.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <memory>
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

std::vector<unsigned char> Share(const HeldWeights& h, size_t rank,
                                 size_t bytes) {
  std::vector<unsigned char> out(bytes);
  const absl::Status s = h.CopyShare(rank, out.data());
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// Device calls over host memory: `gpus` GPUs, each allocation a buffer of
// its own, every call recorded.
struct FakeGpus {
  int gpus = 2;
  std::map<void*, std::pair<int, std::unique_ptr<unsigned char[]>>> live;
  std::vector<int> allocated_on, copied_to;
  int released = 0;
  int fail_at = -1;  // the allocation (0, 1, ...) that fails

  DeviceOps Ops() {
    DeviceOps o;
    o.count = [this]() -> absl::StatusOr<int> { return gpus; };
    o.alloc = [this](int d, size_t n) -> absl::StatusOr<void*> {
      if (static_cast<int>(allocated_on.size()) == fail_at) {
        return absl::ResourceExhaustedError("out of memory");
      }
      auto p = std::make_unique<unsigned char[]>(n);
      void* at = p.get();
      live[at] = {d, std::move(p)};
      allocated_on.push_back(d);
      return at;
    };
    o.release = [this](int d, void* p) {
      EXPECT_EQ(live.at(p).first, d);
      live.erase(p);
      ++released;
    };
    o.to_device = [this](int d, void* to, const void* from, size_t n) {
      copied_to.push_back(d);
      std::memcpy(to, from, n);
      return absl::OkStatus();
    };
    o.to_host = [](int, void* to, const void* from, size_t n) {
      std::memcpy(to, from, n);
      return absl::OkStatus();
    };
    return o;
  }
};

void LoadInPieces(const ReplicaPlan& plan, HeldWeights& h, bool on_gpu) {
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
    // Host: the share's own bytes; a GPU's: the chunk it was copied from.
    EXPECT_EQ(*at == data.data(), on_gpu);
  }
  std::vector<unsigned char> want = Bytes(0, 0, 10);
  for (unsigned char c : Bytes(0, 20, 5)) want.push_back(c);
  for (unsigned char c : Bytes(3, 100, 7)) want.push_back(c);
  EXPECT_EQ(Share(h, 0, 22), want);
  EXPECT_EQ(Share(h, 1, 10), Bytes(0, 10, 10));
}

TEST(HeldWeights, EachChunkLandsAtItsRangesPlaceInTheShare) {
  const ReplicaPlan plan = TwoRanks();
  auto held = HeldWeights::Make(plan);
  ASSERT_TRUE(held.ok()) << held.status();
  EXPECT_EQ((*held)->bytes(), 32u);
  EXPECT_EQ((*held)->device(0), -1);
  LoadInPieces(plan, **held, false);
}

TEST(HeldWeights, OnGpusEachRanksShareIsOnItsGpuAndGivenBack) {
  ReplicaPlan plan = TwoRanks();
  plan.ranks.push_back(plan.ranks[1]);  // three ranks over two GPUs
  FakeGpus gpus;
  {
    auto held = HeldWeights::MakeOnGpus(plan, gpus.Ops());
    ASSERT_TRUE(held.ok()) << held.status();
    HeldWeights& h = **held;
    EXPECT_EQ(h.bytes(), 42u);
    EXPECT_EQ(gpus.allocated_on, (std::vector<int>{0, 1, 0}));
    EXPECT_EQ(h.device(0), 0);
    EXPECT_EQ(h.device(1), 1);
    EXPECT_EQ(h.device(2), 0);
    LoadInPieces(plan, h, true);
    // Rank 0's four pieces to GPU 0, rank 1's one to GPU 1.
    EXPECT_EQ(gpus.copied_to, (std::vector<int>{0, 0, 0, 0, 1}));
    std::vector<unsigned char> data = Bytes(0, 10, 10);
    ASSERT_TRUE(h.Put(2, 0, 10, data.data(), 10).ok());
    EXPECT_EQ(gpus.copied_to.back(), 0);
    EXPECT_EQ(Share(h, 2, 10), data);
    EXPECT_FALSE(h.Put(2, 0, 0, data.data(), 10).ok());  // outside
    EXPECT_EQ(gpus.copied_to.size(), 6u);
  }
  EXPECT_EQ(gpus.released, 3);
  EXPECT_TRUE(gpus.live.empty());
}

TEST(HeldWeights, NoGpuOrNoRoomOnOneIsRefusedNamingTheKey) {
  const ReplicaPlan plan = TwoRanks();
  FakeGpus none;
  none.gpus = 0;
  auto held = HeldWeights::MakeOnGpus(plan, none.Ops());
  ASSERT_FALSE(held.ok());
  EXPECT_THAT(held.status().message(),
              HasSubstr("cluster.accelerator (ACCELERATOR) = gpu"));
  EXPECT_THAT(held.status().message(), HasSubstr("sees no GPU"));
  // The real runtime here: this machine has no GPU (or the build no GPU
  // support), said as such.
  auto real = HeldWeights::MakeOnGpus(plan);
  if (!real.ok()) {
    EXPECT_TRUE(absl::IsFailedPrecondition(real.status()));
    EXPECT_THAT(real.status().message(), HasSubstr("ACCELERATOR"));
  }
  FakeGpus full;
  full.fail_at = 0;
  held = HeldWeights::MakeOnGpus(plan, full.Ops());
  ASSERT_FALSE(held.ok());
  EXPECT_THAT(held.status().message(),
              HasSubstr("rank 0's share of 22 B on GPU 0: out of memory"));
  // The second rank's fails: the first's is given back.
  FakeGpus second;
  second.fail_at = 1;
  held = HeldWeights::MakeOnGpus(plan, second.Ops());
  ASSERT_FALSE(held.ok());
  EXPECT_THAT(held.status().message(),
              HasSubstr("rank 1's share of 10 B on GPU 1: out of memory"));
  EXPECT_EQ(second.released, 1);
  EXPECT_TRUE(second.live.empty());
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
