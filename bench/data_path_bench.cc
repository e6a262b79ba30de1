// CPU cost of the data path per byte, side by side with memcpy (the peer:
// the least any client must spend to move a byte through a buffer).
// Shard generation and checksums must run far faster than storage, or the
// benchmark would measure itself. Target (issue 15): generation + checksum
// >= 10 GiB/s per core with the default checksum (crc32c).
//   build/bench/data_path_bench --benchmark_counters_tabular=true
// Every case moves 4 MiB or more per iteration, so the per-iteration
// bookkeeping of the library (Debian builds it with assertions on, hence
// its "built as DEBUG" notice) is far below the noise.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "common/checksum.h"
#include "node/checkpoint/file_io.h"
#include "node/pattern.h"
#include "node/storage/null_storage.h"

namespace {

constexpr size_t kBlock = 4 << 20;
constexpr size_t kSpan = 64 << 10;  // what SaveFile generates per checksum

void BM_Memcpy(benchmark::State& state) {
  std::vector<unsigned char> a(kBlock, 1), b(kBlock);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), kBlock);
    benchmark::DoNotOptimize(b.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

void BM_FillPattern(benchmark::State& state) {
  std::vector<unsigned char> b(kBlock);
  uint64_t key = ckpt::PatternStreamKey({1, 2, 3, 4});
  uint64_t off = 0;
  for (auto _ : state) {
    ckpt::FillPattern(key, off, b.data(), kBlock);
    off += kBlock;
    benchmark::DoNotOptimize(b.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

void BM_Checksum(benchmark::State& state) {
  auto kind = static_cast<ckpt::ChecksumKind>(state.range(0));
  std::vector<unsigned char> b(kBlock, 7);
  auto sum = ckpt::NewChecksummer(kind);
  for (auto _ : state) {
    sum->Update(b.data(), kBlock);
    benchmark::DoNotOptimize(sum->Value());
  }
  state.SetLabel(std::string(ckpt::Name(kind)));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

// What a save does per block, as SaveFile does it: generate 64 KiB, then
// checksum those 64 KiB while they are in cache.
void BM_GenerateAndChecksum(benchmark::State& state) {
  auto kind = static_cast<ckpt::ChecksumKind>(state.range(0));
  std::vector<unsigned char> b(kBlock);
  uint64_t key = ckpt::PatternStreamKey({1, 2, 3, 4});
  auto sum = ckpt::NewChecksummer(kind);
  uint64_t off = 0;
  for (auto _ : state) {
    for (size_t d = 0; d < kBlock; d += kSpan) {
      ckpt::FillPattern(key, off + d, b.data() + d, kSpan);
      sum->Update(b.data() + d, kSpan);
    }
    off += kBlock;
    benchmark::DoNotOptimize(sum->Value());
  }
  state.SetLabel(std::string(ckpt::Name(kind)));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

// The whole save path of one 256 MiB file into storage that discards the
// bytes, at io.queue_depth 0 (one thread) and 2 (generator + writer).
void BM_SaveFileToNull(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  auto storage = ckpt::NullStorage::Make();
  ckpt::FileJob job;
  job.path = "f";
  job.size = 256ull << 20;
  for (uint64_t o = 0; o < job.size; o += 16 << 20) {
    job.segments.push_back({0, o, 16 << 20, o, 0, false});
  }
  ckpt::IoParams p;
  p.block_size = kBlock;
  p.fsync = false;
  p.checksum = ckpt::ChecksumKind::kCrc32c;
  p.queue_depth = depth;
  p.stream_key = ckpt::PatternStreamKey({1, 2, 3, 4});
  ckpt::AlignedBuffer buf(kBlock * ckpt::BufferBlocks(depth));
  for (auto _ : state) {
    ckpt::TransferContext ctx{storage.get(), std::chrono::steady_clock::now(),
                              nullptr, nullptr};
    ckpt::OpStats stats;
    ckpt::FileOutcome out;
    if (!ckpt::SaveFile(ctx, job, p, buf, &stats, &out).ok()) {
      state.SkipWithError("save failed");
    }
  }
  state.SetLabel("crc32c");
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * job.size));
}

BENCHMARK(BM_Memcpy);
BENCHMARK(BM_FillPattern);
BENCHMARK(BM_Checksum)->Arg(0)->Arg(1);
BENCHMARK(BM_GenerateAndChecksum)->Arg(0)->Arg(1);
BENCHMARK(BM_SaveFileToNull)->Arg(0)->Arg(2)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
