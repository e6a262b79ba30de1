// The node's progress ticker: one thread for the life of the node's round
// protocol (made at the first phase that sends progress), which calls a
// phase's tick every interval while that phase runs, an interval after
// the last tick ended. Begin is called before the start instant with the
// instant itself, so nothing is made or woken at the start; End takes a
// lock (waiting for a tick in flight, as the report must come after it),
// not a thread's join.
// At 256 agents in one process a thread made and joined per phase would
// be 256 of each per round. Thread-safe.
#ifndef CKPTBENCH_NODE_ROUND_PROGRESS_TICKER_H_
#define CKPTBENCH_NODE_ROUND_PROGRESS_TICKER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace ckpt {

class ProgressTicker {
 public:
  ProgressTicker() = default;
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;
  ~ProgressTicker();

  // Calls `tick` from the ticker's thread every `interval_seconds`, the
  // first that long after `start_at_unix_ns` (the phase's start instant,
  // on this node's wall clock), until End.
  void Begin(std::function<void()> tick, int64_t start_at_unix_ns,
             double interval_seconds);
  // Once this returns no tick of the phase runs (one running is waited
  // for).
  void End();

 private:
  void Loop();

  std::mutex mu_;  // held while a tick runs
  std::condition_variable cv_;
  std::thread thread_;
  std::function<void()> tick_;  // empty: no phase
  std::chrono::steady_clock::time_point next_;
  std::chrono::steady_clock::duration interval_{};
  uint64_t generation_ = 0;  // one per Begin
  bool shutdown_ = false;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_PROGRESS_TICKER_H_
