// null://mibps-N's pacer (node/storage/paced_storage.h) as a device with
// one queue: every file's reads and writes share the rate (two files at
// once take as long as their bytes together), idle time is not banked, and
// everything else passes to the storage underneath. Lower bounds only:
// the pacer sleeps at least its share; a loaded machine may add more.
#include "node/storage/paced_storage.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "node/storage/memory_storage.h"
#include "node/storage/storage_factory.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kRate = 16 << 20;    // 16 MiB/s
constexpr size_t kChunk = 256 << 10;  // 256 KiB per call

double SecondsSince(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

void WriteMiB(Storage& s, const std::string& path, int mib) {
  auto f = s.OpenWrite(path, {});
  ASSERT_TRUE(f.ok()) << f.status();
  const std::string chunk(kChunk, 'x');
  for (size_t done = 0; done < static_cast<size_t>(mib) << 20; done += kChunk) {
    ASSERT_TRUE((*f)->Append(chunk.data(), chunk.size()).ok());
  }
  ASSERT_TRUE((*f)->Close().ok());
}

void ReadAll(Storage& s, const std::string& path) {
  auto f = s.OpenRead(path, {});
  ASSERT_TRUE(f.ok()) << f.status();
  std::string buf(kChunk, '\0');
  for (uint64_t off = 0;;) {
    auto got = (*f)->Read(off, buf.data(), buf.size());
    ASSERT_TRUE(got.ok()) << got.status();
    if (*got == 0) break;
    off += *got;
  }
  ASSERT_TRUE((*f)->Close().ok());
}

TEST(PacedStorage, EveryFilesReadsAndWritesShareOneRate) {
  auto store = std::make_shared<MemoryStore>();
  std::shared_ptr<Storage> memory = MemoryStorage::Make(store);
  WriteMiB(*memory, "mem://b/a", 2);  // unpaced: the file to read
  PacedStorage paced(memory, kRate);
  const auto t0 = Clock::now();
  std::thread writer([&] { WriteMiB(paced, "mem://b/w", 2); });
  std::thread reader([&] { ReadAll(paced, "mem://b/a"); });
  writer.join();
  reader.join();
  // 4 MiB at 16 MiB/s, one after another: 0.25 s (one rate per file
  // would have taken 0.125 s).
  EXPECT_GE(SecondsSince(t0), 0.245);
  // What was written went through to the storage underneath.
  auto listed = paced.ListDir("mem://b");
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->size(), 2u);
  EXPECT_EQ(paced.Kind(), memory->Kind());
}

TEST(PacedStorage, IdleTimeIsNotBanked) {
  auto store = std::make_shared<MemoryStore>();
  PacedStorage paced(MemoryStorage::Make(store), kRate);
  WriteMiB(paced, "mem://b/first", 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  // The 200 ms idle is no credit: 1 MiB still takes 1/16 s.
  const auto t0 = Clock::now();
  WriteMiB(paced, "mem://b/second", 1);
  EXPECT_GE(SecondsSince(t0), 0.06);
}

TEST(PacedStorage, NullMibpsIsTheNullBackendPaced) {
  StorageSet set;
  auto loc = set.Open("null://mibps-16/run", {});
  ASSERT_TRUE(loc.ok()) << loc.status();
  EXPECT_EQ(loc->storage->Kind(), StorageKind::kNull);
  const auto t0 = Clock::now();
  std::thread a([&] { WriteMiB(*loc->storage, "null://mibps-16/run/a", 1); });
  std::thread b([&] { WriteMiB(*loc->storage, "null://mibps-16/run/b", 1); });
  a.join();
  b.join();
  EXPECT_GE(SecondsSince(t0), 0.12);  // 2 MiB at 16 MiB/s
  EXPECT_NE(dynamic_cast<PacedStorage*>(loc->storage.get()), nullptr);
  // Unpaced null:// is not wrapped.
  auto fast = set.Open("null://run", {});
  ASSERT_TRUE(fast.ok()) << fast.status();
  EXPECT_EQ(dynamic_cast<PacedStorage*>(fast->storage.get()), nullptr);
}

}  // namespace
}  // namespace ckpt
