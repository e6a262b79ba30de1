// Where a file's shard bytes live outside storage: the training state a
// save copies from and a load copies into. On the CPU (ACCELERATOR=cpu,
// used by async saves) it is host memory; on a GPU (ACCELERATOR=gpu) it is
// device memory, reached through host buffers (AlignedBuffer) that are
// pinned (page-locked: full-speed DMA) or pageable (what a plain .cpu()
// gets).
// Objects are used by one thread at a time; distinct ones from any.
#ifndef CKPTBENCH_NODE_CHECKPOINT_SHARD_MEMORY_H_
#define CKPTBENCH_NODE_CHECKPOINT_SHARD_MEMORY_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/kinds.h"

namespace ckpt {

// "N x NAME" for the GPUs this node sees, or why there are none (also in a
// build without GPU support).
absl::StatusOr<std::string> DescribeGpus();

class ShardMemory {
 public:
  // `size` bytes in host memory ("cpu") or on GPU `device` ("gpu").
  static absl::StatusOr<std::unique_ptr<ShardMemory>> Create(
      Accelerator accelerator, int device, uint64_t size);
  virtual ~ShardMemory() = default;
  uint64_t size() const { return size_; }
  virtual bool on_device() const = 0;
  // [off, off + n) of this memory from / into host memory; OutOfRange when
  // that is not inside it.
  virtual absl::Status CopyIn(uint64_t off, const unsigned char* src,
                              size_t n) = 0;
  virtual absl::Status CopyOut(uint64_t off, unsigned char* dst,
                               size_t n) const = 0;

 protected:
  explicit ShardMemory(uint64_t size) : size_(size) {}
  absl::Status InBounds(uint64_t off, size_t n) const;

 private:
  uint64_t size_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_CHECKPOINT_SHARD_MEMORY_H_
