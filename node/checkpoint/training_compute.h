// Simulated training compute for asynchronous saves: the same fixed work
// on each of `threads` threads (one per rank), multiply-adds streaming over
// a 16 MiB working set per thread, so it competes with a persisting save
// for cores, caches and memory bandwidth as a training step's host work
// does. Calibrate sizes the work so that on this node, with nothing else
// running, it takes the requested seconds; Run then says how long it took
// while a save was persisting. On a GPU node the device's own compute is
// not simulated (its copies are, in the staging time). Thread-compatible.
#ifndef CKPTBENCH_NODE_CHECKPOINT_TRAINING_COMPUTE_H_
#define CKPTBENCH_NODE_CHECKPOINT_TRAINING_COMPUTE_H_

#include <atomic>
#include <cstdint>

namespace ckpt {

class TrainingCompute {
 public:
  // Runs the work on all threads twice for about `sample_seconds` each
  // (0: a quarter of `seconds`, from 0.05 to 0.5 s) to measure the rate,
  // keeps the faster, then sizes the work to `seconds`.
  static TrainingCompute Calibrate(double seconds, int threads,
                                   double sample_seconds = 0);
  // The passes each thread makes, and the seconds they take unloaded.
  uint64_t passes() const { return passes_; }
  double baseline_seconds() const { return baseline_seconds_; }
  // Does the work on the threads; wall seconds from start to the last
  // thread done. Stops early (returning the time so far) when *abort; a
  // thread that sees it before its first pass allocates nothing. When
  // `made` is given it gets the passes all threads made together. The
  // working sets are allocated before the clock starts, here and in
  // Calibrate: first-touching them is not training work.
  double Run(const std::atomic<bool>* abort, uint64_t* made = nullptr) const;

 private:
  TrainingCompute(int threads, uint64_t passes, double baseline)
      : threads_(threads), passes_(passes), baseline_seconds_(baseline) {}
  int threads_;
  uint64_t passes_;
  double baseline_seconds_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_TRAINING_COMPUTE_H_
