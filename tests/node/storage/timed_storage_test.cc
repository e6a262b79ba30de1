// Operation timing as a decorator (node/storage/timed_storage.h): every
// open, write, fsync, close and read of a file goes into its histogram,
// with the time the call took (slowed here by the fault-injecting
// decorator), failed calls too; reads from several threads are all
// recorded; what is not a file operation passes through untimed.
#include "node/storage/timed_storage.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "node/storage/memory_storage.h"
#include "node/storage/posix_storage.h"
#include "tests/testing/fault_storage.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using std::chrono::milliseconds;

constexpr uint64_t kMs = 1000 * 1000;  // ns

struct Stack {
  std::shared_ptr<Storage> memory =
      MemoryStorage::Make(std::make_shared<MemoryStore>());
  FaultStorage faults{memory};
  OpStats stats;
  TimedStorage timed{faults, &stats};
};

TEST(TimedStorage, EachFileOperationIsTimedIntoItsOwnHistogram) {
  Stack t;
  t.faults.Add(
      {StorageOp::kSync, "", 0, 1, absl::OkStatus(), milliseconds(30)});
  auto w = t.timed.OpenWrite("mem://b/f", {});
  ASSERT_TRUE(w.ok()) << w.status();
  const std::string block(4096, 'x');
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE((*w)->Append(block.data(), block.size()).ok());
  }
  ASSERT_TRUE((*w)->Sync().ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(t.stats.open.count(), 1u);
  EXPECT_EQ(t.stats.write.count(), 3u);
  EXPECT_EQ(t.stats.fsync.count(), 1u);
  EXPECT_GE(t.stats.fsync.min(), 30 * kMs) << "the call's own time";
  EXPECT_EQ(t.stats.close.count(), 1u);
  EXPECT_EQ(t.stats.read.count(), 0u);

  auto r = t.timed.OpenRead("mem://b/f", {});
  ASSERT_TRUE(r.ok()) << r.status();
  std::string buf(4096, '\0');
  for (uint64_t off = 0; off < 3 * 4096; off += 4096) {
    auto got = (*r)->Read(off, buf.data(), buf.size());
    ASSERT_TRUE(got.ok() && *got == 4096) << got.status();
  }
  ASSERT_TRUE((*r)->Close().ok());
  EXPECT_EQ(t.stats.open.count(), 2u);
  EXPECT_EQ(t.stats.read.count(), 3u);
  EXPECT_EQ(t.stats.close.count(), 1u) << "a read file's close is not timed";
}

// A failed call cost what it took: it is timed, and its error comes back
// unchanged.
TEST(TimedStorage, FailedCallsAreTimedAndTheirErrorsPassThrough) {
  Stack t;
  t.faults.Add({StorageOp::kOpenWrite, "bad", 0, 1,
                absl::PermissionDeniedError("planted: no access"),
                milliseconds(20)});
  t.faults.Add({StorageOp::kAppend, "", 1, 1,
                absl::UnavailableError("planted write failure")});
  auto denied = t.timed.OpenWrite("mem://b/bad", {});
  EXPECT_TRUE(absl::IsPermissionDenied(denied.status())) << denied.status();
  EXPECT_EQ(t.stats.open.count(), 1u);
  EXPECT_GE(t.stats.open.min(), 20 * kMs);

  auto w = t.timed.OpenWrite("mem://b/good", {});
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_TRUE((*w)->Append("a", 1).ok());
  absl::Status s = (*w)->Append("b", 1);
  EXPECT_TRUE(absl::IsUnavailable(s)) << s;
  EXPECT_EQ(s.message(), "planted write failure");
  EXPECT_EQ(t.stats.write.count(), 2u);
  EXPECT_EQ(t.faults.injected(), 2);
}

// A file that takes concurrent reads is read from several threads at once
// (a load's queue depth): every read is recorded, none lost.
TEST(TimedStorage, ConcurrentReadsAreAllRecorded) {
  TempDir tmp;
  auto posix = PosixStorage::Make();
  ASSERT_TRUE(posix.ok()) << posix.status();
  OpStats stats;
  TimedStorage timed(**posix, &stats);
  const std::string path = tmp.Sub("f");
  ASSERT_TRUE((*posix)->WriteAtomic(path, std::string(64 << 10, 'y')).ok());
  auto r = timed.OpenRead(path, {});
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE((*r)->ConcurrentReads()) << "posix files are read with pread";
  constexpr int kThreads = 4, kReads = 500;
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&r] {
      char c[16];
      for (int k = 0; k < kReads; ++k) {
        auto got = (*r)->Read(k * 16, c, sizeof c);
        EXPECT_TRUE(got.ok() && *got == sizeof c) << got.status();
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(stats.read.count(), uint64_t{kThreads} * kReads);
  EXPECT_EQ(stats.open.count(), 1u);
}

// What is not a file operation passes to the storage underneath, untimed;
// a backend's lent part buffer still reaches the writer.
TEST(TimedStorage, EverythingElsePassesThroughUntimed) {
  Stack t;
  ASSERT_TRUE(t.timed.WriteAtomic("mem://b/d/x", "1").ok());
  auto names = t.timed.ListDir("mem://b/d");
  ASSERT_TRUE(names.ok()) << names.status();
  EXPECT_EQ(*names, std::vector<std::string>{"x"});
  auto small = t.timed.ReadSmall("mem://b/d/x");
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(*small, "1");
  EXPECT_EQ(t.timed.Kind(), t.memory->Kind());
  EXPECT_EQ(t.stats.open.count() + t.stats.write.count() +
                t.stats.read.count() + t.stats.close.count(),
            0u);
  EXPECT_EQ(t.faults.calls(StorageOp::kWriteAtomic), 1);
  EXPECT_EQ(t.faults.calls(StorageOp::kListDir), 1);
}

}  // namespace
}  // namespace ckpt
