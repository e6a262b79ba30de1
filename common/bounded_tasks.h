// A bounded pool of tasks, for the coordinator (clock estimates, .metadata
// documents, the fleet) and the storage backends (uploads' parts:
// TalliedTasks in node/storage/object_io.h).
#ifndef CKPTBENCH_COMMON_BOUNDED_TASKS_H_
#define CKPTBENCH_COMMON_BOUNDED_TASKS_H_

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"

namespace ckpt {

// Runs tasks on at most `max_in_flight` worker threads, started as needed
// and kept until destruction (no thread per task). The owner calls Wait(0)
// before the state the tasks touch goes away (the destructor does too).
// One owner thread.
class BoundedTasks {
 public:
  explicit BoundedTasks(int max_in_flight);
  ~BoundedTasks();
  BoundedTasks(const BoundedTasks&) = delete;
  BoundedTasks& operator=(const BoundedTasks&) = delete;
  // Waits for a free slot, then queues `task`; returns instead the first
  // error of a task that ended since the last report, if any.
  absl::Status Start(std::function<absl::Status()> task);
  // Waits until at most `keep` tasks are queued or running; returns the
  // first error not yet reported.
  absl::Status Wait(size_t keep);
  // Threads started so far (at most max_in_flight).
  size_t threads() const { return workers_.size(); }

 private:
  void Work();
  absl::Status TakeError();  // with mu_ held

  const size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<absl::Status()>> queue_;
  size_t pending_ = 0;  // queued + running
  size_t idle_ = 0;     // workers waiting for a task
  absl::Status error_;
  bool stop_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_BOUNDED_TASKS_H_
