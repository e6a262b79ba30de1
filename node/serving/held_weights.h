// serve.hold=true: every rank of a replica keeps what it read in host
// memory, as a CPU-side copy of its weights (what a CPU-offloaded or
// host-staged loader keeps), instead of dropping each chunk once checked.
// Each rank's share is one buffer of its planned bytes, allocated and
// every page touched before the clock (as a model's parameters exist
// before its weights are loaded), so the load's time holds the copies,
// not the kernel's zeroing of fresh pages. A chunk goes to its place in
// the share: the rank's ranges laid end to end in the plan's order.
// Thread-safe for Put on disjoint chunks (each chunk is one thread's).
#ifndef CKPTBENCH_NODE_SERVING_HELD_WEIGHTS_H_
#define CKPTBENCH_NODE_SERVING_HELD_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "common/serving/replica_plan.h"

namespace ckpt {

class HeldWeights {
 public:
  // Room for every rank's planned bytes of `plan` (which must outlive
  // this). ResourceExhausted naming serve.hold when they pass what this
  // node may use (common/memory.h: 80% of what is available), or when
  // that is unknown.
  static absl::StatusOr<std::unique_ptr<HeldWeights>> Make(
      const ReplicaPlan& plan);

  // Copies `len` bytes at `offset` of rank `rank`'s `file`-th file (its
  // plan's order) to their place in the rank's share and returns where
  // they now are. A chunk outside the rank's planned ranges is Internal.
  absl::StatusOr<const unsigned char*> Put(size_t rank, size_t file,
                                           uint64_t offset,
                                           const unsigned char* data,
                                           size_t len);
  uint64_t bytes() const { return bytes_; }
  // Rank `rank`'s share: its planned bytes, its ranges end to end.
  const unsigned char* share(size_t rank) const { return shares_[rank].get(); }

 private:
  explicit HeldWeights(const ReplicaPlan& plan) : plan_(plan) {}

  const ReplicaPlan& plan_;
  uint64_t bytes_ = 0;
  std::vector<std::unique_ptr<unsigned char[]>> shares_;  // by rank
  // By rank, file and range: the share's bytes before the range.
  std::vector<std::vector<std::vector<uint64_t>>> before_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_HELD_WEIGHTS_H_
