// A thread per node that lives as long as its owner (a RoundRunner: all the
// save or load rounds of a run) and runs that node's blocking calls of each
// round. Replaces a thread created and joined per node per call: at 256
// nodes, ending 256 threads after the last report (their stacks unmapped,
// each unmap a TLB shootdown) took about 3 ms of the timed round.
// ForEach is called from one thread at a time.
// NodeFanout, below, uses them only for nodes whose calls block; calls to
// asynchronous (gRPC) nodes all start from the caller's thread and complete
// on gRPC's, with no thread per node.
#ifndef CKPTBENCH_COORDINATOR_ROUND_NODE_WORKERS_H_
#define CKPTBENCH_COORDINATOR_ROUND_NODE_WORKERS_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace ckpt {

class NodeWorkers {
 public:
  explicit NodeWorkers(size_t n);
  ~NodeWorkers();
  NodeWorkers(const NodeWorkers&) = delete;
  NodeWorkers& operator=(const NodeWorkers&) = delete;

  size_t size() const { return workers_.size(); }

  // Runs fn(i) on worker i for every i < count (count <= size()), all at
  // once, and returns when every one has returned. Only the workers named
  // are woken, and only the last to finish wakes the caller.
  void ForEach(size_t count, const std::function<void(size_t)>& fn);

 private:
  struct Worker {
    std::mutex mu;
    std::condition_variable cv;
    const std::function<void(size_t)>* task = nullptr;
    bool stop = false;
    std::thread thread;
  };
  void Loop(size_t i);

  std::vector<std::unique_ptr<Worker>> workers_;
  std::mutex done_mu_;
  std::condition_variable done_cv_;
  size_t remaining_ = 0;
};

// Runs one call per node on the first `count` nodes and returns when each
// call has reported done (exactly once, from any thread). With `async`
// nodes every call starts from the calling thread; otherwise each runs on
// its node's worker (created on first need, kept for the fanout's life).
// Run is called from one thread at a time.
class NodeFanout {
 public:
  using Call = std::function<void(size_t i, const std::function<void()>& done)>;
  NodeFanout(size_t n, bool async) : n_(n), async_(async) {}

  void Run(size_t count, const Call& call);

 private:
  const size_t n_;
  const bool async_;
  std::unique_ptr<NodeWorkers> workers_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_NODE_WORKERS_H_
