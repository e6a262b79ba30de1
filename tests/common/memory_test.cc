// The process's peak resident set: it rises by what the process touches,
// and a reset starts it over from what is resident now. Memory is mapped
// directly (not through malloc, which under ASan keeps freed blocks).
#include "common/memory.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>

#include <cstdlib>
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

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CKPT_OWN_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define CKPT_OWN_MALLOC 1
#endif
#endif

#ifndef CKPT_OWN_MALLOC
// A block the compiler cannot leave out.
void* Touched(size_t size) {
  void* p = std::malloc(size);
  std::memset(p, 1, size);
  asm volatile("" : : "r"(p) : "memory");
  return p;
}
#endif

// glibc by default raises its mmap threshold to the largest mapped block
// freed so far (up to 32 MiB), so after a 16 MiB block is freed a 4 MiB one
// comes from the heap and its pages stay resident once freed. Made apart,
// the 4 MiB block is still mapped on its own and gone when freed.
TEST(Memory, LargeBlocksStayMappedApartAfterALargerOneIsFreed) {
#ifdef CKPT_OWN_MALLOC
  GTEST_SKIP() << "a sanitizer's allocator, not glibc's";
#else
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr &&
      std::strstr(tunables, "glibc.malloc.mmap_threshold") != nullptr) {
    GTEST_SKIP() << "GLIBC_TUNABLES sets the threshold here";
  }
  MapLargeAllocationsApart();
  std::free(Touched(16 * kMiB));
  const size_t mapped = mallinfo2().hblkhd;
  void* p = Touched(kLargeAllocationBytes);
  EXPECT_GE(mallinfo2().hblkhd, mapped + kLargeAllocationBytes);
  std::free(p);
  EXPECT_EQ(mallinfo2().hblkhd, mapped);
#endif
}

TEST(Memory, AvailableMemoryIsKnownHere) {
  const MemoryBudget b = AvailableMemory();
  EXPECT_GT(b.available_bytes, 0u);
  EXPECT_FALSE(b.source.empty());
}

}  // namespace
}  // namespace ckpt
