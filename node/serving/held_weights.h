// serve.hold=true: every rank of a replica keeps what it read in host
// memory, as a CPU-side copy of its weights (what a CPU-offloaded or
// host-staged loader keeps), instead of dropping each chunk once checked.
// Each rank's share is one buffer of its planned bytes, allocated and
// every page touched before the clock (as a model's parameters exist
// before its weights are loaded), so the load's time holds the copies,
// not the kernel's zeroing of fresh pages. A chunk goes to its place in
// the share: the rank's ranges laid end to end in the plan's order.
// ACCELERATOR=gpu: the shares are in device memory instead, rank r's on
// GPU r mod the GPUs the node sees (as a checkpoint's ranks are bound),
// allocated before the clock; each chunk is copied from the read buffer
// to its place there (cudaMemcpyAsync on the thread's stream, waited for:
// what a loader's param.copy_(cpu_tensor) does from pageable memory).
// Thread-safe for Put on disjoint chunks (each chunk is one thread's).
#ifndef CKPTBENCH_NODE_SERVING_HELD_WEIGHTS_H_
#define CKPTBENCH_NODE_SERVING_HELD_WEIGHTS_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cuda.h"
#include "common/serving/replica_plan.h"

namespace ckpt {

// The device calls the GPU shares are made with: the CUDA runtime's
// (common/cuda.h) unless a test gives its own.
struct DeviceOps {
  std::function<absl::StatusOr<int>()> count = cuda::DeviceCount;
  std::function<absl::StatusOr<void*>(int, size_t)> alloc = cuda::DeviceAlloc;
  std::function<void(int, void*)> release = cuda::DeviceFree;
  std::function<absl::Status(int, void*, const void*, size_t)> to_device =
      cuda::CopyToDevice;
  std::function<absl::Status(int, void*, const void*, size_t)> to_host =
      cuda::CopyToHost;
};

class HeldWeights {
 public:
  // Room for every rank's planned bytes of `plan` (which must outlive
  // this). ResourceExhausted naming serve.hold when they pass what this
  // node may use (common/memory.h: 80% of what is available), or when
  // that is unknown.
  static absl::StatusOr<std::unique_ptr<HeldWeights>> Make(
      const ReplicaPlan& plan);
  // The shares on GPUs (ACCELERATOR=gpu): FailedPrecondition naming
  // ACCELERATOR when the node sees none (or the build has no GPU support);
  // an allocation that fails names the rank, its bytes and the GPU.
  static absl::StatusOr<std::unique_ptr<HeldWeights>> MakeOnGpus(
      const ReplicaPlan& plan, DeviceOps ops = {});
  ~HeldWeights();
  HeldWeights(const HeldWeights&) = delete;
  HeldWeights& operator=(const HeldWeights&) = delete;

  // Copies `len` bytes at `offset` of rank `rank`'s `file`-th file (its
  // plan's order) to their place in the rank's share and returns where
  // they now are in host memory: the share's bytes, or on a GPU `data`
  // (copied from). A chunk outside the rank's planned ranges is Internal.
  absl::StatusOr<const unsigned char*> Put(size_t rank, size_t file,
                                           uint64_t offset,
                                           const unsigned char* data,
                                           size_t len);
  uint64_t bytes() const { return bytes_; }
  // The GPU rank `rank`'s share is on; -1 in host memory.
  int device(size_t rank) const;
  // Rank `rank`'s share (its planned bytes, its ranges end to end) copied
  // into `out`, from host or device memory.
  absl::Status CopyShare(size_t rank, unsigned char* out) const;

 private:
  explicit HeldWeights(const ReplicaPlan& plan) : plan_(plan) {}
  // Each rank's place in its share of every range (before_).
  void Lay();
  // Where `len` bytes at `offset` of rank `rank`'s `file` go in its share.
  absl::StatusOr<uint64_t> Place(size_t rank, size_t file, uint64_t offset,
                                 size_t len) const;

  const ReplicaPlan& plan_;
  uint64_t bytes_ = 0;
  std::vector<std::unique_ptr<unsigned char[]>> shares_;  // by rank, host
  // On GPUs: by rank, its device and its share there.
  DeviceOps ops_;
  std::vector<std::pair<int, void*>> on_device_;
  // By rank, file and range: the share's bytes before the range.
  std::vector<std::vector<std::vector<uint64_t>>> before_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_HELD_WEIGHTS_H_
