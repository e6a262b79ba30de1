// The object stores' shared pieces: the read-ahead reader over ranged
// GETs and the bounded set of concurrent uploads, against fakes.
#include "node/storage/object_io.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ckpt {
namespace {

std::string Object(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 31 + 7);
  return s;
}

TEST(RangedReadableFile, SequentialReadsAcrossRangesReturnTheObject) {
  const std::string obj = Object(100'000);
  std::mutex mu;
  std::set<std::pair<uint64_t, size_t>> fetched;
  std::atomic<int> in_flight{0}, most{0};
  RangedReadableFile f(
      obj.size(), 16'384, 3, [&](uint64_t off, size_t len, char* dst) {
        int now = ++in_flight;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        std::memcpy(dst, obj.data() + off, len);
        {
          std::lock_guard<std::mutex> lock(mu);
          fetched.insert({off, len});
        }
        --in_flight;
        return absl::OkStatus();
      });
  std::string back;
  char buf[10'000];
  for (uint64_t off = 0; off < obj.size();) {
    auto n = f.Read(off, buf, sizeof(buf));
    ASSERT_TRUE(n.ok()) << n.status();
    ASSERT_GT(*n, 0u);
    back.append(buf, *n);
    off += *n;
  }
  EXPECT_EQ(back, obj);
  EXPECT_EQ(*f.Read(obj.size(), buf, 10), 0u);  // end of object
  // Every byte fetched once, in ranges of 16 KiB (the last one short).
  EXPECT_EQ(fetched.size(), 7u);
  EXPECT_TRUE(fetched.count({98'304, 1'696}));
  EXPECT_LE(most.load(), 3);  // never more than `depth` at once
}

// Issue 49: one range at a time into a buffer that holds it whole (a
// sample, a small shard, any object with one range in flight) is fetched
// straight into the caller's buffer, not into a slot of the file's and copied;
// a read smaller than the range still goes through the slot, and the bytes are
// the object's either way.
TEST(RangedReadableFile, OneRangeAtATimeIsFetchedIntoTheCallersBuffer) {
  const std::string obj = Object(40'000);
  std::vector<std::pair<uint64_t, const char*>> dst_of;
  RangedReadableFile f(obj.size(), 16'384, 1,
                       [&](uint64_t off, size_t len, char* dst) {
                         std::memcpy(dst, obj.data() + off, len);
                         dst_of.push_back({off, dst});
                         return absl::OkStatus();
                       });
  std::vector<char> buf(35'000);
  auto n = f.Read(0, buf.data(), buf.size());  // two whole ranges, then 2,232
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_EQ(*n, 35'000u);
  ASSERT_EQ(dst_of.size(), 3u);
  EXPECT_EQ(dst_of[0].second, buf.data());
  EXPECT_EQ(dst_of[1].second, buf.data() + 16'384);
  EXPECT_EQ(dst_of[2].first, 32'768u);  // 7,232 bytes: more than was left
  EXPECT_NE(dst_of[2].second, buf.data() + 32'768);
  std::string back(buf.data(), *n);
  auto rest = f.Read(35'000, buf.data(), buf.size());  // from the slot
  ASSERT_TRUE(rest.ok()) << rest.status();
  ASSERT_EQ(*rest, 5'000u);
  back.append(buf.data(), *rest);
  EXPECT_EQ(back, obj);
  EXPECT_EQ(dst_of.size(), 3u);  // the last range fetched once
  // A failed fetch straight into the buffer is the read's error.
  RangedReadableFile failing(obj.size(), 16'384, 1,
                             [](uint64_t, size_t, char*) {
                               return absl::UnavailableError("503 SlowDown");
                             });
  auto failed = failing.Read(0, buf.data(), buf.size());
  EXPECT_TRUE(absl::IsUnavailable(failed.status())) << failed.status();
}

TEST(RangedReadableFile, WithExtentsFetchesOnlyInsideThem) {
  // A resharded restore's sparse reads: three extents, read in order in
  // pieces; the read-ahead goes from one extent to the next and fetches
  // nothing else (by hand: [1000,21000) is 16 KiB + 3616 B, then
  // [30000,30100) and [60000,70000) one range each).
  const std::string obj = Object(100'000);
  std::mutex mu;
  std::vector<std::pair<uint64_t, size_t>> fetched;
  const std::vector<std::pair<uint64_t, uint64_t>> extents = {
      {1000, 21000}, {30000, 30100}, {60000, 70000}};
  RangedReadableFile f(
      obj.size(), 16'384, 3,
      [&](uint64_t off, size_t len, char* dst) {
        std::memcpy(dst, obj.data() + off, len);
        std::lock_guard<std::mutex> lock(mu);
        fetched.push_back({off, len});
        return absl::OkStatus();
      },
      extents);
  char buf[7'000];
  for (const auto& [begin, end] : extents) {
    for (uint64_t off = begin; off < end;) {
      const size_t want = std::min<uint64_t>(sizeof(buf), end - off);
      auto n = f.Read(off, buf, want);
      ASSERT_TRUE(n.ok()) << n.status();
      ASSERT_EQ(*n, want);
      ASSERT_EQ(std::string(buf, want), obj.substr(off, want)) << off;
      off += want;
    }
  }
  std::sort(fetched.begin(), fetched.end());
  EXPECT_EQ(fetched,
            (std::vector<std::pair<uint64_t, size_t>>{
                {1000, 16384}, {17384, 3616}, {30000, 100}, {60000, 10000}}));
  // Outside the extents: refused, never served from a wrong range; a read
  // running past an extent's end stops there.
  EXPECT_TRUE(absl::IsInvalidArgument(f.Read(25'000, buf, 10).status()));
  EXPECT_TRUE(absl::IsInvalidArgument(f.Read(80'000, buf, 10).status()));
  auto tail = f.Read(29'990 + 20, buf, 1000);
  ASSERT_TRUE(tail.ok()) << tail.status();
  EXPECT_EQ(*tail, 90u);
  EXPECT_EQ(std::string(buf, 90), obj.substr(30'010, 90));
}

TEST(RangedReadableFile, AFailedFetchIsTheReadsError) {
  const std::string obj = Object(50'000);
  RangedReadableFile f(obj.size(), 8'192, 2,
                       [&](uint64_t off, size_t len, char* dst) {
                         if (off >= 16'384) {
                           return absl::UnavailableError("503 after retries");
                         }
                         std::memcpy(dst, obj.data() + off, len);
                         return absl::OkStatus();
                       });
  char buf[8'192];
  uint64_t off = 0;
  absl::Status last;
  while (off < obj.size()) {
    auto n = f.Read(off, buf, sizeof(buf));
    if (!n.ok()) {
      last = n.status();
      break;
    }
    off += *n;
  }
  EXPECT_EQ(off, 16'384u);
  EXPECT_TRUE(absl::IsUnavailable(last)) << last;
}

TEST(RangedReadableFile, AJumpDropsTheReadAheadAndReadsWhereAsked) {
  const std::string obj = Object(64'000);
  RangedReadableFile f(obj.size(), 4'096, 4,
                       [&](uint64_t off, size_t len, char* dst) {
                         std::memcpy(dst, obj.data() + off, len);
                         return absl::OkStatus();
                       });
  char buf[100];
  ASSERT_TRUE(f.Read(0, buf, sizeof(buf)).ok());
  auto n = f.Read(50'001, buf, sizeof(buf));
  ASSERT_TRUE(n.ok()) << n.status();
  ASSERT_EQ(*n, 100u);
  EXPECT_EQ(std::string(buf, 100), obj.substr(50'001, 100));
}

TEST(BoundedTasks, RunsAtMostNAtOnceAndTheFirstErrorWins) {
  BoundedTasks tasks(2);
  std::atomic<int> running{0}, most{0}, done{0};
  for (int i = 0; i < 8; ++i) {
    ASSERT_TRUE(
        tasks
            .Start([&, i] {
              int now = ++running;
              int seen = most.load();
              while (now > seen && !most.compare_exchange_weak(seen, now)) {
              }
              std::this_thread::sleep_for(std::chrono::milliseconds(5));
              --running;
              ++done;
              return i == 7 ? absl::DataLossError("task 7") : absl::OkStatus();
            })
            .ok());
  }
  absl::Status s = tasks.Wait(0);
  EXPECT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_EQ(done.load(), 8);
  EXPECT_LE(most.load(), 2);
}

// Issue 15: no thread or allocation per range. A 1 MiB object read in 4 KiB
// ranges (256 fetches) with 3 in flight runs on at most 3 threads (which of
// them picks up fetches is up to the scheduler) into 3 buffers.
TEST(RangedReadableFile, FetchesReuseAFixedSetOfThreadsAndBuffers) {
  const std::string obj = Object(1 << 20);
  std::mutex mu;
  std::set<std::thread::id> threads;
  std::set<const char*> buffers;
  int fetches = 0;
  RangedReadableFile f(obj.size(), 4'096, 3,
                       [&](uint64_t off, size_t len, char* dst) {
                         std::memcpy(dst, obj.data() + off, len);
                         std::lock_guard<std::mutex> lock(mu);
                         threads.insert(std::this_thread::get_id());
                         buffers.insert(dst);
                         ++fetches;
                         return absl::OkStatus();
                       });
  std::string back(obj.size(), '\0');
  for (uint64_t off = 0; off < obj.size();) {
    auto n = f.Read(off, back.data() + off, 10'000);
    ASSERT_TRUE(n.ok()) << n.status();
    off += *n;
  }
  EXPECT_EQ(back, obj);
  EXPECT_EQ(fetches, 256);
  EXPECT_LE(threads.size(), 3u);
  EXPECT_EQ(buffers.size(), 3u);
}

// Files of one backend share its pool: a later file's ranges land in the
// buffers an earlier one gave back, not in fresh ones (fresh mappings
// whose every page faults again).
TEST(RangedReadableFile, ALaterFileReusesTheBuffersAnEarlierOneGaveBack) {
  const std::string obj = Object(4 << 20);
  BufferPool pool;
  std::set<const char*> seen[2];
  for (int k = 0; k < 2; ++k) {
    std::mutex mu;
    RangedReadableFile f(
        obj.size(), 1 << 20, 2,
        [&](uint64_t off, size_t len, char* dst) {
          std::memcpy(dst, obj.data() + off, len);
          std::lock_guard<std::mutex> lock(mu);
          seen[k].insert(dst);
          return absl::OkStatus();
        },
        {}, pool);
    std::string back(obj.size(), '\0');
    for (uint64_t off = 0; off < obj.size();) {
      auto n = f.Read(off, back.data() + off, 100'000);
      ASSERT_TRUE(n.ok()) << n.status();
      off += *n;
    }
    EXPECT_EQ(back, obj);
    EXPECT_EQ(seen[k].size(), 2u);
  }
  EXPECT_EQ(seen[0], seen[1]);
  EXPECT_EQ(pool.made_count(), 2u);
  EXPECT_EQ(pool.lent_count(), 0u);
}

// Tasks run on at most max_in_flight threads, reused from task to task.
TEST(BoundedTasks, TasksReuseAtMostMaxThreads) {
  BoundedTasks tasks(3);
  std::mutex mu;
  std::set<std::thread::id> ids;
  for (int i = 0; i < 50; ++i) {
    ASSERT_TRUE(tasks
                    .Start([&] {
                      std::lock_guard<std::mutex> lock(mu);
                      ids.insert(std::this_thread::get_id());
                      return absl::OkStatus();
                    })
                    .ok());
  }
  EXPECT_TRUE(tasks.Wait(0).ok());
  EXPECT_LE(ids.size(), 3u);
  EXPECT_LE(tasks.threads(), 3u);
  // An error is reported once, by the next Start or Wait.
  ASSERT_TRUE(tasks.Start([] { return absl::InternalError("x"); }).ok());
  EXPECT_TRUE(absl::IsInternal(tasks.Wait(0)));
  EXPECT_TRUE(tasks.Wait(0).ok());
}

// The reader's fetch workers and the tasks' workers count their requests
// in the IoTally current where the reader was made or the task queued (as
// SendWithRetries does), so each file's requests are its own.
TEST(IoTally, ReaderAndTaskWorkersCountForTheirFile) {
  const std::string obj = Object(50'000);
  auto fetch = [&](uint64_t off, size_t len, char* dst) {
    if (IoTally* t = CurrentIoTally()) t->requests++;
    std::memcpy(dst, obj.data() + off, len);
    return absl::OkStatus();
  };
  IoTally a, b;
  std::unique_ptr<RangedReadableFile> fa, fb;
  {
    ScopedIoTally scope(&a);
    fa = std::make_unique<RangedReadableFile>(obj.size(), 10'000, 2, fetch);
  }
  {
    ScopedIoTally scope(&b);
    fb = std::make_unique<RangedReadableFile>(obj.size(), 25'000, 2, fetch);
  }
  EXPECT_EQ(CurrentIoTally(), nullptr);  // each scope restored the last
  char buf[50'000];
  ASSERT_EQ(*fa->Read(0, buf, sizeof(buf)), obj.size());
  ASSERT_EQ(*fb->Read(0, buf, sizeof(buf)), obj.size());
  fa.reset();
  fb.reset();
  EXPECT_EQ(a.requests, 5u);  // 50 000 bytes in 10 000-byte ranges
  EXPECT_EQ(b.requests, 2u);

  TalliedTasks tasks(3);
  auto count = [] {
    if (IoTally* t = CurrentIoTally()) t->requests++;
    return absl::OkStatus();
  };
  IoTally c, d;
  for (int i = 0; i < 10; ++i) {
    ScopedIoTally scope(i % 2 == 0 ? &c : &d);
    ASSERT_TRUE(tasks.Start(count).ok());
  }
  ASSERT_TRUE(tasks.Start(count).ok());  // no tally current: not counted
  ASSERT_TRUE(tasks.Wait(0).ok());
  EXPECT_EQ(c.requests, 5u);
  EXPECT_EQ(d.requests, 5u);
}

TEST(SplitBucketUri, NamesWhatIsWrong) {
  auto ok = SplitBucketUri("s3://b/a/b/", "s3://");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->bucket, "b");
  EXPECT_EQ(ok->key, "a/b");
  auto none = SplitBucketUri("s3:///x", "s3://");
  EXPECT_FALSE(none.ok());
}

}  // namespace
}  // namespace ckpt
