// CPU cost of the data path per byte, side by side with memcpy (the peer:
// the least any client must spend to move a byte through a buffer).
// Shard generation and checksums must run far faster than storage, or the
// benchmark would measure itself.
//   build/bench/data_path_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <cstring>
#include <vector>

#include "common/checksum.h"
#include "node/pattern.h"

namespace {

constexpr size_t kBlock = 4 << 20;

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
  state.SetLabel(std::string(ckpt::ChecksumName(kind)));
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

// What a save does per block: generate + checksum.
void BM_SaveBlockCpu(benchmark::State& state) {
  std::vector<unsigned char> b(kBlock);
  uint64_t key = ckpt::PatternStreamKey({1, 2, 3, 4});
  auto sum = ckpt::NewChecksummer(ckpt::ChecksumKind::kXxh3);
  for (auto _ : state) {
    ckpt::FillPattern(key, 0, b.data(), kBlock);
    sum->Update(b.data(), kBlock);
    benchmark::DoNotOptimize(sum->Value());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * kBlock));
}

BENCHMARK(BM_Memcpy);
BENCHMARK(BM_FillPattern);
BENCHMARK(BM_Checksum)->Arg(0)->Arg(1);
BENCHMARK(BM_SaveBlockCpu);

}  // namespace

BENCHMARK_MAIN();
