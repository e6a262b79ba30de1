// The object stores' transfer buffers, reused across objects: a buffer
// given back serves the next request that fits, the pool keeps what was
// lent at once until trimmed, and small requests are plain allocations.
#include "node/storage/buffer_pool.h"

#include <gtest/gtest.h>

#include <vector>

namespace ckpt {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

TEST(BufferPool, ABufferGivenBackServesTheNextObject) {
  BufferPool pool;
  char* first = nullptr;
  {
    BufferPool::Lease a = pool.Take(2 * kMiB);
    ASSERT_TRUE(a);
    EXPECT_GE(a.capacity(), 2 * kMiB);
    first = a.data();
    first[2 * kMiB - 1] = 'x';  // all of it is the caller's
    EXPECT_EQ(pool.lent_count(), 1u);
  }
  EXPECT_EQ(pool.lent_count(), 0u);
  EXPECT_EQ(pool.free_count(), 1u);
  for (int i = 0; i < 10; ++i) {
    BufferPool::Lease b = pool.Take(2 * kMiB);
    EXPECT_EQ(b.data(), first) << i;
  }
  EXPECT_EQ(pool.made_count(), 1u);
  BufferPool copy = pool;                        // shares it
  EXPECT_EQ(copy.Take(kMiB + 1).data(), first);  // the same class
}

// Sizes round up to a power of two, and a buffer serves its class only: a
// small request never holds a large buffer (which the next large request
// would then make again).
TEST(BufferPool, ABufferServesRequestsOfItsSizeClassOnly) {
  BufferPool pool;
  char *four = nullptr, *two = nullptr;
  {
    BufferPool::Lease a = pool.Take(4 * kMiB);
    BufferPool::Lease b = pool.Take(2 * kMiB);
    four = a.data();
    two = b.data();
  }
  BufferPool::Lease c = pool.Take(kMiB + 1);
  EXPECT_EQ(c.data(), two);
  EXPECT_EQ(c.capacity(), 2 * kMiB);
  BufferPool::Lease d = pool.Take(3 * kMiB);
  EXPECT_EQ(d.data(), four);
  EXPECT_EQ(d.capacity(), 4 * kMiB);
  EXPECT_EQ(pool.made_count(), 2u);
  c = BufferPool::Lease();                // the 2 MiB one is free again
  BufferPool::Lease e = pool.Take(kMiB);  // its own class: a new one
  EXPECT_NE(e.data(), two);
  EXPECT_EQ(e.capacity(), kMiB);
  EXPECT_EQ(pool.made_count(), 3u);
  EXPECT_EQ(pool.free_count(), 1u);
}

TEST(BufferPool, KeepsWhatWasLentAtOnceUntilTrimmed) {
  BufferPool pool;
  std::vector<BufferPool::Lease> lent;
  for (int i = 0; i < 6; ++i) lent.push_back(pool.Take(kMiB));
  EXPECT_EQ(pool.lent_count(), 6u);
  lent.resize(2);
  EXPECT_EQ(pool.free_count(), 4u);
  // Four lent again: the free ones, no new buffer.
  for (int i = 0; i < 4; ++i) lent.push_back(pool.Take(kMiB));
  EXPECT_EQ(pool.made_count(), 6u);
  lent.resize(3);
  pool.Trim();  // the free ones go; the lent stay the caller's
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_EQ(pool.lent_count(), 3u);
  lent.clear();
  EXPECT_EQ(pool.free_count(), 3u);
  pool.Trim();
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_EQ(pool.lent_count(), 0u);
}

TEST(BufferPool, SmallRequestsAreNotPooled) {
  BufferPool pool;
  {
    BufferPool::Lease a = pool.Take(BufferPool::kPooledFrom - 1);
    ASSERT_TRUE(a);
    EXPECT_EQ(pool.lent_count(), 0u);
  }
  EXPECT_EQ(pool.free_count(), 0u);
  EXPECT_EQ(pool.made_count(), 0u);
}

TEST(BufferPool, AMovedLeaseGivesItsBufferBackOnce) {
  BufferPool pool;
  BufferPool::Lease a = pool.Take(kMiB);
  BufferPool::Lease b = std::move(a);
  EXPECT_FALSE(a);              // NOLINT(bugprone-use-after-move): what is left
  EXPECT_EQ(a.capacity(), 0u);  // NOLINT(bugprone-use-after-move)
  BufferPool moved = std::move(pool);  // a copy: both name the one pool
  EXPECT_EQ(pool.lent_count(), 1u);    // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.lent_count(), 1u);
  BufferPool::Lease c = pool.Take(kMiB);
  c = std::move(b);  // c's first buffer goes back
  EXPECT_EQ(pool.free_count(), 1u);
  EXPECT_EQ(pool.lent_count(), 1u);
  c = BufferPool::Lease();
  EXPECT_EQ(pool.free_count(), 2u);
  EXPECT_EQ(pool.lent_count(), 0u);
}

}  // namespace
}  // namespace ckpt
