#include "coordinator/round/node_workers.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ckpt {
namespace {

TEST(NodeWorkers, RunsEachIndexOnceOnItsOwnThreadAndWaitsForAll) {
  NodeWorkers workers(8);
  std::mutex mu;
  std::vector<int> calls(8, 0);
  std::set<std::thread::id> threads;
  std::atomic<int> inside{0}, most_inside{0};
  workers.ForEach(8, [&](size_t i) {
    const int now = ++inside;
    int seen = most_inside.load();
    while (now > seen && !most_inside.compare_exchange_weak(seen, now)) {
    }
    // Hold every worker until all eight are in: proves they run at once.
    while (most_inside.load() < 8) std::this_thread::yield();
    {
      std::lock_guard<std::mutex> lock(mu);
      ++calls[i];
      threads.insert(std::this_thread::get_id());
    }
    --inside;
  });
  EXPECT_EQ(calls, std::vector<int>(8, 1));  // all returned before ForEach
  EXPECT_EQ(threads.size(), 8u);
  EXPECT_EQ(threads.count(std::this_thread::get_id()), 0u);
}

TEST(NodeWorkers, ThreadsPersistAcrossCallsAndCountLimitsTheWorkersWoken) {
  NodeWorkers workers(4);
  std::mutex mu;
  std::vector<std::thread::id> first(4), second(4);
  workers.ForEach(4, [&](size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    first[i] = std::this_thread::get_id();
  });
  std::vector<int> calls(4, 0);
  workers.ForEach(2, [&](size_t i) {
    std::lock_guard<std::mutex> lock(mu);
    second[i] = std::this_thread::get_id();
    ++calls[i];
  });
  EXPECT_EQ(calls, (std::vector<int>{1, 1, 0, 0}));
  EXPECT_EQ(second[0], first[0]);
  EXPECT_EQ(second[1], first[1]);
  workers.ForEach(0, [&](size_t) { ADD_FAILURE() << "nothing to run"; });
  int over = 0;
  workers.ForEach(9, [&](size_t) {  // more than there are: all four, once
    std::lock_guard<std::mutex> lock(mu);
    ++over;
  });
  EXPECT_EQ(over, 4);
}

// Async nodes: every call starts on the caller's thread, in order, and
// each completes later on a thread of its own (as gRPC's would); Run waits
// for the last done(), not for the calls to return.
TEST(NodeFanout, AsyncCallsStartOnTheCallersThreadAndRunWaitsForEveryDone) {
  NodeFanout fanout(16, /*async=*/true);
  std::vector<std::thread::id> started(16);
  std::vector<std::thread> completers;
  std::atomic<int> completed{0};
  fanout.Run(16, [&](size_t i, const std::function<void()>& done) {
    started[i] = std::this_thread::get_id();
    completers.emplace_back([&completed, done, i] {
      std::this_thread::sleep_for(std::chrono::milliseconds(16 - i));
      ++completed;
      done();
    });
  });
  EXPECT_EQ(completed.load(), 16);  // every done() ran before Run returned
  for (const auto& id : started) EXPECT_EQ(id, std::this_thread::get_id());
  for (auto& t : completers) t.join();
}

// Blocking nodes: each call runs on its node's worker, completes inline,
// and the workers are made once.
TEST(NodeFanout, BlockingCallsRunOnNodeWorkersKeptAcrossRuns) {
  NodeFanout fanout(4, /*async=*/false);
  std::mutex mu;
  std::vector<std::thread::id> first(4), second(4);
  for (auto* ids : {&first, &second}) {
    fanout.Run(4, [&](size_t i, const std::function<void()>& done) {
      {
        std::lock_guard<std::mutex> lock(mu);
        (*ids)[i] = std::this_thread::get_id();
      }
      done();
    });
  }
  EXPECT_EQ(first, second);
  std::set<std::thread::id> distinct(first.begin(), first.end());
  EXPECT_EQ(distinct.size(), 4u);
  EXPECT_EQ(distinct.count(std::this_thread::get_id()), 0u);
}

}  // namespace
}  // namespace ckpt
