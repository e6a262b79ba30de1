// Where shard bytes live outside storage (ShardMemory), an async save's
// staging (StageFile + SaveFile from the staged copy), device copies
// through IoParams::device, and the simulated training compute.
#include "node/checkpoint/shard_memory.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "common/cuda.h"
#include "node/checkpoint/file_io.h"
#include "node/checkpoint/training_compute.h"
#include "node/pattern.h"
#include "node/storage/posix_storage.h"
#include "tests/testing/temp_dir.h"
#include "tests/testing/timing.h"

namespace ckpt {
namespace {

FileJob TwoSegmentJob(const std::string& path, uint64_t size) {
  FileJob job;
  job.rank = 3;
  job.path = path;
  job.size = size;
  job.tensor_names = std::make_shared<std::vector<std::string>>(
      std::vector<std::string>{"a", "b"});
  job.segments = {{0, 0, size / 2, 0, 0, false},
                  {1, 0, size - size / 2, size / 2, 0, false}};
  return job;
}

TEST(ShardMemory, HostMemoryRoundTripsAndGpuNeedsOne) {
  auto m = ShardMemory::Create(Accelerator::kCpu, 0, 1 << 20);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_FALSE((*m)->on_device());
  std::vector<unsigned char> in(4096), out(4096);
  FillPattern(9, 0, in.data(), in.size());
  ASSERT_TRUE((*m)->CopyIn(8192, in.data(), in.size()).ok());
  ASSERT_TRUE((*m)->CopyOut(8192, out.data(), out.size()).ok());
  EXPECT_EQ(in, out);
  if (!cuda::DeviceCount().ok()) {  // this machine: no GPU (or no support)
    auto g = ShardMemory::Create(Accelerator::kGpu, 0, 1 << 20);
    EXPECT_FALSE(g.ok());
    EXPECT_FALSE(DescribeGpus().ok());
    EXPECT_NE(std::string(DescribeGpus().status().message()).find("GPU"),
              std::string::npos);
  }
}

// An async save: the training state (host memory holding this step's
// bytes) is staged whole, then written from the staged copy; the file
// loads verified, so the bytes written are the pattern's.
TEST(ShardMemory, AStagedCopyIsWhatTheSaveWritesAndItVerifies) {
  TempDir tmp;
  auto storage = PosixStorage::Make().value();
  TransferContext ctx{storage.get(), std::chrono::steady_clock::now(), nullptr,
                      nullptr};
  const uint64_t size = (2 << 20) + 4096 * 3;
  FileJob job = TwoSegmentJob(tmp.Sub("f"), size);
  IoParams p;
  p.block_size = 1 << 20;
  p.checksum = ChecksumKind::kCrc32c;
  p.stream_key = PatternStreamKey({1, 2, 3, 0});
  auto state = ShardMemory::Create(Accelerator::kCpu, 0, size);
  ASSERT_TRUE(state.ok());
  std::vector<unsigned char> bytes(size);
  FillPattern(p.stream_key, 0, bytes.data(), size);
  ASSERT_TRUE((*state)->CopyIn(0, bytes.data(), size).ok());
  AlignedBuffer staged(size);
  std::atomic<bool> abort{false};
  FileOutcome out;
  ASSERT_TRUE(StageFile(**state, staged, p.block_size, abort, &out).ok());
  EXPECT_EQ(out.copy_bytes, size);
  EXPECT_GT(out.copy_seconds, 0);
  // Changing the training state after staging does not change the save.
  std::vector<unsigned char> zeros(size, 0);
  ASSERT_TRUE((*state)->CopyIn(0, zeros.data(), size).ok());
  p.source = staged.data();
  AlignedBuffer block(p.block_size);
  OpStats stats;
  ASSERT_TRUE(SaveFile(ctx, job, p, block, &stats, &out).ok());
  EXPECT_EQ(out.bytes, size);
  EXPECT_EQ(stats.write.count(), 3u);  // from the staged copy, by block
  ASSERT_EQ(out.checksums.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    job.segments[i].expected = out.checksums[i];
    job.segments[i].has_expected = true;
  }
  // Loaded into "device" memory (host memory standing in for it): the
  // verified bytes are copied there, and those copies are timed apart.
  auto dest = ShardMemory::Create(Accelerator::kCpu, 0, size);
  ASSERT_TRUE(dest.ok());
  IoParams lp = p;
  lp.source = nullptr;
  lp.device = dest->get();
  FileOutcome loaded;
  OpStats lstats;
  absl::Status s = LoadFile(ctx, job, lp, block, &lstats, &loaded);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(loaded.checked_bytes, size);
  EXPECT_EQ(loaded.copy_bytes, size);
  std::vector<unsigned char> back(size);
  ASSERT_TRUE((*dest)->CopyOut(0, back.data(), size).ok());
  EXPECT_EQ(back, bytes);
  // With queue_depth 2 a writer thread writes while the checksums run:
  // the same bytes, the same sums.
  FileJob piped = TwoSegmentJob(tmp.Sub("h"), size);
  IoParams qp = p;
  qp.queue_depth = 2;
  AlignedBuffer blocks(qp.block_size * BufferBlocks(2));
  FileOutcome qout;
  OpStats qstats;
  ASSERT_TRUE(SaveFile(ctx, piped, qp, blocks, &qstats, &qout).ok());
  EXPECT_EQ(qout.checksums, out.checksums);
  EXPECT_EQ(qstats.write.count(), 3u);
  // A save copied out of "device" memory block by block writes the same.
  FileJob again = TwoSegmentJob(tmp.Sub("g"), size);
  IoParams dp = p;
  dp.source = nullptr;
  dp.device = dest->get();
  FileOutcome dout;
  ASSERT_TRUE(SaveFile(ctx, again, dp, block, &stats, &dout).ok());
  EXPECT_EQ(dout.checksums, out.checksums);
  EXPECT_EQ(dout.copy_bytes, size);
}

TEST(ShardMemory, StagingStopsOnAbort) {
  auto state = ShardMemory::Create(Accelerator::kCpu, 0, 1 << 20);
  ASSERT_TRUE(state.ok());
  AlignedBuffer staged(1 << 20);
  std::atomic<bool> abort{true};
  FileOutcome out;
  EXPECT_TRUE(absl::IsAborted(StageFile(**state, staged, 4096, abort, &out)));
}

TEST(TrainingCompute, IsSizedToTheIntervalAndStopsOnAbort) {
  // A short sample: allocating the working set (tens of milliseconds on
  // a VM) must not be counted in it.
  TrainingCompute c = TrainingCompute::Calibrate(0.3, 1, 0.05);
  EXPECT_GE(c.passes(), 1u);
  // Whole passes at the measured rate: the requested time, give or take.
  EXPECT_GT(c.baseline_seconds(), 0.1);
  if (kRatesHold) {
    EXPECT_LT(c.baseline_seconds(), 0.6);  // a pass can be longer under TSan
  }
  // Unaborted, every thread makes every pass.
  std::atomic<bool> abort{false};
  uint64_t made = 0;
  const double took = c.Run(&abort, &made);
  EXPECT_EQ(made, c.passes());
  // And in about the baseline: load on the machine can only lengthen the
  // run (or, in both samples, the baseline), so the bound is loose. With
  // the allocation timed into the sample, the run took a twentieth.
  if (kRatesHold) {
    EXPECT_GT(took, 0.4 * c.baseline_seconds());
  }
  // Aborted before the start, no thread makes a pass. (Counted, not
  // timed: a loaded CI machine can take longer to start a thread than the
  // baseline lasts.)
  abort = true;
  made = 1;
  c.Run(&abort, &made);
  EXPECT_EQ(made, 0u);
}

}  // namespace
}  // namespace ckpt
