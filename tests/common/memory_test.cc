// The process's peak resident set: it rises by what the process touches,
// and a reset starts it over from what is resident now. Memory is mapped
// directly (not through malloc, which under ASan keeps freed blocks).
#include "common/memory.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

namespace ckpt {
namespace {

constexpr size_t kMiB = 1 << 20;

TEST(Memory, PeakRssRisesWithTouchedPagesAndResetStartsItOver) {
  const uint64_t before = PeakRssBytes();
  ASSERT_GT(before, 0u);
  const size_t size = 128 * kMiB;
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  std::memset(p, 1, size);
  const uint64_t peak = PeakRssBytes();
  EXPECT_GE(peak, before + 120 * kMiB);
  ASSERT_EQ(munmap(p, size), 0);
  // A peak, not the current size (the kernel's counters lag by a few
  // pages).
  EXPECT_GE(PeakRssBytes(), peak - kMiB);
  if (!ResetPeakRss()) {
    GTEST_SKIP() << "this kernel or sandbox refuses /proc/self/clear_refs: "
                    "the peak cannot be started over here";
  }
  EXPECT_LE(PeakRssBytes(), peak - 120 * kMiB);
}

TEST(Memory, AvailableMemoryIsKnownHere) {
  const MemoryBudget b = AvailableMemory();
  EXPECT_GT(b.available_bytes, 0u);
  EXPECT_FALSE(b.source.empty());
}

}  // namespace
}  // namespace ckpt
