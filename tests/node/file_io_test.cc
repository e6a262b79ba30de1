#include "node/checkpoint/file_io.h"

#include <gtest/gtest.h>

#include <fstream>
#include <thread>
#include <tuple>

#include "node/checkpoint/file_ranges.h"
#include "node/checkpoint/shard_memory.h"
#include "node/pattern.h"
#include "node/storage/posix_storage.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

FileJob MakeJob(const std::string& path, uint64_t size) {
  FileJob job;
  job.rank = 1;
  job.index = 0;
  job.path = path;
  job.size = size;
  job.tensor_names = std::make_shared<std::vector<std::string>>(
      std::vector<std::string>{"t0", "t1", "t2"});
  // Three segments of odd sizes covering the file.
  uint64_t a = size / 3 + 5, b = size / 3 - 7;
  job.segments = {{0, 0, a, 0, 0, false},
                  {1, 40, b, a, 0, false},
                  {2, 0, size - a - b, a + b, 0, false}};
  return job;
}

// Flips one bit of the byte at `at` in the file at `path`.
void FlipByte(const std::string& path, uint64_t at) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(static_cast<std::streamoff>(at));
  char c;
  f.read(&c, 1);
  c ^= 0x10;
  f.seekp(static_cast<std::streamoff>(at));
  f.write(&c, 1);
}

// (direct I/O, io.queue_depth)
class FileIoTest : public ::testing::TestWithParam<std::tuple<bool, int>> {};

TEST_P(FileIoTest, SaveThenLoadVerifiesAndCorruptionIsLocated) {
  const bool direct = std::get<0>(GetParam());
  const int depth = std::get<1>(GetParam());
  TempDir tmp;
  auto storage = PosixStorage::Make().value();
  std::atomic<uint64_t> progress{0};
  TransferContext ctx{storage.get(), std::chrono::steady_clock::now(),
                      &progress, nullptr};
  const uint64_t size = 3 * (1 << 20) + 12345;
  FileJob job = MakeJob(tmp.Sub("__1_0.distcp"), size);
  IoParams p;
  p.block_size = 256 * 1024;
  p.direct = direct;
  p.queue_depth = depth;
  p.stream_key = PatternStreamKey({42, 7, 1, 0});
  AlignedBuffer buf(p.block_size * BufferBlocks(depth));
  OpStats stats;
  FileOutcome saved;
  absl::Status s = SaveFile(ctx, job, p, buf, &stats, &saved);
  if (direct && absl::IsInvalidArgument(s)) GTEST_SKIP() << s;
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(saved.bytes, size);
  EXPECT_EQ(progress.load(), size);
  ASSERT_EQ(saved.checksums.size(), 3u);
  EXPECT_EQ(stats.write.count(), (size + p.block_size - 1) / p.block_size);
  // The bytes (so their sums) do not depend on the queue depth: they are
  // the pattern's, whatever the pipeline.
  std::vector<unsigned char> whole(size);
  FillPattern(p.stream_key, 0, whole.data(), size);
  const uint64_t a = job.segments[0].length, b = job.segments[1].length;
  EXPECT_EQ(saved.checksums[0], Xxh3(whole.data(), a));
  EXPECT_EQ(saved.checksums[1], Xxh3(whole.data() + a, b));
  EXPECT_EQ(saved.checksums[2], Xxh3(whole.data() + a + b, size - a - b));
  EXPECT_EQ(stats.fsync.count(), 1u);

  for (size_t i = 0; i < 3; ++i) {
    job.segments[i].expected = saved.checksums[i];
    job.segments[i].has_expected = true;
  }
  FileOutcome loaded;
  OpStats lstats;
  s = LoadFile(ctx, job, p, buf, &lstats, &loaded);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(loaded.checksums, saved.checksums);
  EXPECT_GT(lstats.read.count(), 0u);

  // Flip one byte inside the second segment.
  const uint64_t bad = job.segments[1].file_offset + 1000;
  FlipByte(job.path, bad);
  FileOutcome broken;
  s = LoadFile(ctx, job, p, buf, &lstats, &broken);
  ASSERT_TRUE(absl::IsDataLoss(s)) << s;
  std::string msg(s.message());
  EXPECT_NE(msg.find(job.path), std::string::npos) << msg;
  EXPECT_NE(msg.find("at byte offset " + std::to_string(bad)),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("tensor t1"), std::string::npos) << msg;
}

TEST_P(FileIoTest, RangesReadOnlyThemAndCheckEveryByteAgainstTheWriter) {
  // A resharded restore reads parts of another rank's file: each byte read
  // is regenerated from the writer's key and compared.
  const bool direct = std::get<0>(GetParam());
  const int depth = std::get<1>(GetParam());
  TempDir tmp;
  auto storage = PosixStorage::Make().value();
  TransferContext ctx{storage.get(), std::chrono::steady_clock::now(), nullptr,
                      nullptr};
  const uint64_t size = 2 * (1 << 20) + 777;
  FileJob job = MakeJob(tmp.Sub("__1_0.distcp"), size);
  IoParams p;
  p.block_size = 128 * 1024;
  p.direct = direct;
  p.queue_depth = depth;
  p.stream_key = PatternStreamKey({42, 7, 1, 0});
  AlignedBuffer buf(p.block_size * BufferBlocks(depth));
  OpStats stats;
  FileOutcome saved;
  absl::Status s = SaveFile(ctx, job, p, buf, &stats, &saved);
  if (direct && absl::IsInvalidArgument(s)) GTEST_SKIP() << s;
  ASSERT_TRUE(s.ok()) << s;
  FileJob ranges = job;
  ranges.ranges = true;
  // Three ranges of tensor t1 (1000, 500 and 300000 bytes; the first two
  // 100 bytes apart, so O_DIRECT reads them as one piece), one of t2
  // reaching the end of the file.
  const uint64_t t1 = job.segments[1].file_offset;
  const uint64_t t2 = job.segments[2].file_offset;
  ranges.segments = {{1, 40, 1000, t1, 0, false},
                     {1, 1140, 500, t1 + 1100, 0, false},
                     {1, 50'040, 300'000, t1 + 50'000, 0, false},
                     {2, 100, size - t2 - 100, t2 + 100, 0, false}};
  const uint64_t needed = 1000 + 500 + 300'000 + (size - t2 - 100);
  EXPECT_EQ(NeededBytes(ranges), needed);
  FileOutcome loaded;
  s = LoadFile(ctx, ranges, p, buf, &stats, &loaded);
  ASSERT_TRUE(s.ok()) << s;
  // Buffered: exactly the ranges. O_DIRECT: widened to 4 KiB boundaries.
  uint64_t extent_bytes = 0;
  for (const auto& [b, e] : ReadExtents(ranges, direct)) extent_bytes += e - b;
  EXPECT_EQ(loaded.bytes, extent_bytes);
  EXPECT_EQ(loaded.checked_bytes, extent_bytes);
  if (direct) {
    EXPECT_GT(extent_bytes, needed);
  } else {
    EXPECT_EQ(extent_bytes, needed);
  }
  // Into the rank's memory (host memory standing in for a GPU's) go only
  // the bytes it keeps, one after another in file order: not O_DIRECT's
  // padding, and of a range read whole (as "segments" mode reads a saved
  // segment) only the part it owns: here 60000 bytes of the third across a
  // 128 KiB block boundary, 7000 inside the last.
  FileJob kept = ranges;
  kept.segments[2].keep_offset = t1 + 150'000;
  kept.segments[2].keep_length = 60'000;
  kept.segments[3].keep_offset = t2 + 100 + 5000;
  kept.segments[3].keep_length = 7000;
  const uint64_t keep = 1000 + 500 + 60'000 + 7000;
  ASSERT_EQ(KeptBytes(kept), keep);
  auto memory = ShardMemory::Create(Accelerator::kCpu, 0, keep);
  ASSERT_TRUE(memory.ok()) << memory.status();
  IoParams dp = p;
  dp.device = memory->get();
  FileOutcome onto;
  s = LoadFile(ctx, kept, dp, buf, &stats, &onto);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(onto.checked_bytes, extent_bytes);  // all read was checked
  EXPECT_EQ(onto.copy_bytes, keep);
  std::vector<unsigned char> want, got(keep);
  for (const auto& [from, n] :
       std::vector<std::pair<uint64_t, uint64_t>>{{t1, 1000},
                                                  {t1 + 1100, 500},
                                                  {t1 + 150'000, 60'000},
                                                  {t2 + 100 + 5000, 7000}}) {
    std::vector<unsigned char> part(n);
    FillPattern(p.stream_key, from, part.data(), n);
    want.insert(want.end(), part.begin(), part.end());
  }
  ASSERT_TRUE((*memory)->CopyOut(0, got.data(), keep).ok());
  EXPECT_TRUE(got == want) << "the rank's memory holds other bytes";
  // A plan keeping bytes outside a range is refused before any read.
  FileJob wrong = kept;
  wrong.segments[1].keep_offset = t1 + 1000;
  wrong.segments[1].keep_length = 500;
  FileOutcome refused;
  s = LoadFile(ctx, wrong, dp, buf, &stats, &refused);
  EXPECT_TRUE(absl::IsInvalidArgument(s)) << s;
  EXPECT_NE(s.message().find("range 1 [" + std::to_string(t1 + 1100)),
            std::string::npos)
      << s;
  EXPECT_EQ(refused.bytes, 0u);
  // A flipped byte outside every range is never read; one inside is named.
  FlipByte(job.path, t1 + 20'000);
  FileOutcome again;
  EXPECT_TRUE(LoadFile(ctx, ranges, p, buf, &stats, &again).ok());
  const uint64_t bad = t1 + 50'000 + 123'456;
  FlipByte(job.path, bad);
  FileOutcome broken;
  s = LoadFile(ctx, ranges, p, buf, &stats, &broken);
  ASSERT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("byte " + std::to_string(bad) + " of " + job.path +
                             " (tensor t1 at tensor byte " +
                             std::to_string(50'040 + 123'456) +
                             ") is not the one rank 1 wrote there"),
            std::string::npos)
      << s;
}

INSTANTIATE_TEST_SUITE_P(BufferedAndDirectByQueueDepth, FileIoTest,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values(0, 1, 4)));

// Posix storage whose reads and writes take `delay` each and count how
// many are in flight at once; a chosen block fails when asked.
class ProbeStorage : public PosixStorage {
 public:
  std::chrono::milliseconds delay{3};
  bool concurrent = true;
  int64_t fail_read_at = -1, fail_write_call = -1;
  std::atomic<int> in_flight{0}, max_in_flight{0}, writes{0};

  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& o) override {
    auto f = PosixStorage::OpenWrite(path, o);
    if (!f.ok()) return f.status();
    return std::unique_ptr<WritableFile>(new Writer(this, std::move(*f)));
  }
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& o) override {
    auto f = PosixStorage::OpenRead(path, o);
    if (!f.ok()) return f.status();
    return std::unique_ptr<ReadableFile>(new Reader(this, std::move(*f)));
  }

 private:
  void Enter() {
    int now = ++in_flight;
    int seen = max_in_flight.load();
    while (now > seen && !max_in_flight.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(delay);
  }
  struct Writer : WritableFile {
    Writer(ProbeStorage* s, std::unique_ptr<WritableFile> f)
        : s(s), f(std::move(f)) {}
    absl::Status Append(const void* d, size_t n) override {
      s->Enter();
      absl::Status r = s->writes++ == s->fail_write_call
                           ? absl::UnavailableError("planted write failure")
                           : f->Append(d, n);
      --s->in_flight;
      return r;
    }
    absl::Status Sync() override { return f->Sync(); }
    absl::Status Close() override { return f->Close(); }
    ProbeStorage* s;
    std::unique_ptr<WritableFile> f;
  };
  struct Reader : ReadableFile {
    Reader(ProbeStorage* s, std::unique_ptr<ReadableFile> f)
        : s(s), f(std::move(f)) {}
    uint64_t Size() const override { return f->Size(); }
    absl::StatusOr<size_t> Read(uint64_t off, void* b, size_t n) override {
      s->Enter();
      absl::StatusOr<size_t> r =
          static_cast<int64_t>(off) == s->fail_read_at
              ? absl::StatusOr<size_t>(
                    absl::UnavailableError("planted read failure"))
              : f->Read(off, b, n);
      --s->in_flight;
      return r;
    }
    absl::Status Close() override { return f->Close(); }
    bool ConcurrentReads() const override { return s->concurrent; }
    ProbeStorage* s;
    std::unique_ptr<ReadableFile> f;
  };
};

struct Pipeline {
  TempDir tmp;
  ProbeStorage storage;
  TransferContext ctx{&storage, std::chrono::steady_clock::now(), nullptr,
                      nullptr};
  FileJob job = MakeJob(tmp.Sub("f"), 40 * 65536 + 100);
  IoParams p;
  std::unique_ptr<AlignedBuffer> buf;
  explicit Pipeline(int depth) {
    p.block_size = 65536;
    p.queue_depth = depth;
    p.fsync = false;
    buf = std::make_unique<AlignedBuffer>(p.block_size * BufferBlocks(depth));
  }
  absl::Status Save(FileOutcome* out) {
    OpStats st;
    return SaveFile(ctx, job, p, *buf, &st, out);
  }
  absl::Status Load(FileOutcome* out, OpStats* st) {
    return LoadFile(ctx, job, p, *buf, st, out);
  }
  void Expect(const FileOutcome& saved) {
    for (size_t i = 0; i < job.segments.size(); ++i) {
      job.segments[i].expected = saved.checksums[i];
      job.segments[i].has_expected = true;
    }
  }
};

// io.queue_depth reads of one file are in flight at once where the file
// takes concurrent reads (pread), one where it does not; every byte is
// still verified in order.
TEST(FileIo, LoadKeepsQueueDepthReadsInFlight) {
  Pipeline t(4);
  FileOutcome saved;
  ASSERT_TRUE(t.Save(&saved).ok());
  t.Expect(saved);
  FileOutcome loaded;
  OpStats st;
  ASSERT_TRUE(t.Load(&loaded, &st).ok());
  EXPECT_EQ(t.storage.max_in_flight.load(), 4);
  EXPECT_EQ(loaded.checked_bytes, t.job.size);
  EXPECT_EQ(st.read.count(), 41u);  // every read timed, from every reader

  t.storage.concurrent = false;
  t.storage.max_in_flight = 0;
  ASSERT_TRUE(t.Load(&loaded, &st).ok());
  EXPECT_EQ(t.storage.max_in_flight.load(), 1);
}

// Writes stay sequential (one in flight) whatever the depth: object stores
// and FUSE mounts need them in order.
TEST(FileIo, SaveWritesOneBlockAtATimeInOrder) {
  Pipeline t(4);
  FileOutcome saved;
  ASSERT_TRUE(t.Save(&saved).ok());
  EXPECT_EQ(t.storage.max_in_flight.load(), 1);
  EXPECT_EQ(t.storage.writes.load(), 41);
  EXPECT_EQ(saved.bytes, t.job.size);
}

// A failure on either side of the pipeline ends the transfer with that
// error; nothing hangs.
TEST(FileIo, PipelineFailuresSurfaceWithoutHanging) {
  for (int depth : {1, 3}) {
    Pipeline t(depth);
    t.storage.fail_write_call = 7;
    FileOutcome out;
    absl::Status s = t.Save(&out);
    EXPECT_TRUE(absl::IsUnavailable(s)) << s;
    EXPECT_NE(s.message().find("planted write failure"), std::string::npos);
    EXPECT_LT(out.bytes, t.job.size);

    t.storage.fail_write_call = -1;
    FileOutcome saved;
    ASSERT_TRUE(t.Save(&saved).ok());
    t.Expect(saved);
    t.storage.fail_read_at = 9 * 65536;
    FileOutcome loaded;
    OpStats st;
    s = t.Load(&loaded, &st);
    EXPECT_TRUE(absl::IsUnavailable(s)) << s;
    EXPECT_EQ(loaded.bytes, 9u * 65536) << "verified up to the failed block";
  }
}

TEST(FileIo, WrongSizeIsDataLoss) {
  TempDir tmp;
  auto storage = PosixStorage::Make().value();
  TransferContext ctx{storage.get(), std::chrono::steady_clock::now(), nullptr,
                      nullptr};
  FileJob job = MakeJob(tmp.Sub("f"), 100000);
  IoParams p;
  p.block_size = 65536;
  AlignedBuffer buf(p.block_size);
  OpStats stats;
  FileOutcome out;
  ASSERT_TRUE(SaveFile(ctx, job, p, buf, &stats, &out).ok());
  job.size = 100001;
  job.segments.back().length += 1;
  auto s = LoadFile(ctx, job, p, buf, &stats, &out);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(std::string(s.message()).find("100000 bytes"), std::string::npos)
      << s;
}

TEST(FileIo, AbortStopsTransfer) {
  TempDir tmp;
  auto storage = PosixStorage::Make().value();
  std::atomic<bool> abort{true};
  TransferContext ctx{storage.get(), std::chrono::steady_clock::now(), nullptr,
                      &abort};
  FileJob job = MakeJob(tmp.Sub("f"), 1 << 20);
  IoParams p;
  AlignedBuffer buf(p.block_size);
  OpStats stats;
  FileOutcome out;
  EXPECT_TRUE(absl::IsAborted(SaveFile(ctx, job, p, buf, &stats, &out)));
}

}  // namespace
}  // namespace ckpt
