// Live progress of a round: bytes done, MiB/s, ETA, nodes finished. On a
// terminal one line is redrawn; otherwise (Kubernetes logs) plain lines are
// printed every interval. Rounds shorter than one interval print nothing.
// Thread-safe: Update() is called from node client threads.
#ifndef CKPTBENCH_COORDINATOR_PROGRESS_H_
#define CKPTBENCH_COORDINATOR_PROGRESS_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "common/round_messages.h"

namespace ckpt {

class ProgressPrinter {
 public:
  ProgressPrinter(double interval_seconds, bool terminal);
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // Printed before every line, e.g. "[run 3/8 NUM_LAYERS=2]" in a sweep.
  void SetContext(const std::string& context);
  void BeginRound(const std::string& label, uint64_t total_bytes, int nodes);
  void Update(int node, const PhaseProgress& progress);
  void NodeDone(int node);
  void EndRound();

  // The line that would be printed now (for tests).
  std::string Line();

 private:
  void Loop();

  const double interval_;
  const bool terminal_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool active_ = false;
  bool stop_ = false;
  bool printed_ = false;
  std::string context_;
  std::string label_;
  uint64_t total_ = 0;
  int nodes_ = 0;
  int nodes_done_ = 0;
  std::map<std::pair<int, uint32_t>, uint64_t> rank_bytes_;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_PROGRESS_H_
