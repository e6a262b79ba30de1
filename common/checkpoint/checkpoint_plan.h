// The checkpoint plan: which tensors exist, and which bytes of which tensor
// each rank stores in which file at which offset. Produced by the
// coordinator's planner, shipped to nodes as RankAssignments. Plain data.
#ifndef CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_PLAN_H_
#define CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/step_layout.h"
#include "common/tensor_spec.h"

namespace ckpt {

struct SegmentPlan {
  uint32_t tensor = 0;         // index into CheckpointPlan::tensors
  uint64_t tensor_offset = 0;  // bytes into the flattened tensor
  uint64_t length = 0;         // bytes
  uint64_t file_offset = 0;    // bytes into the file
};

struct FilePlan {
  uint32_t index = 0;  // k in __<rank>_<k>.distcp
  std::string name;
  uint64_t size = 0;
  std::vector<SegmentPlan> segments;
};

struct RankPlan {
  uint32_t rank = 0;
  uint32_t node = 0;
  uint64_t bytes = 0;
  std::vector<FilePlan> files;  // empty for ranks that write nothing
};

struct CheckpointPlan {
  std::string model;
  std::string description;
  uint64_t parameters = 0;
  std::vector<TensorSpec> tensors;  // weights then optimizer state
  uint64_t weight_bytes = 0;
  uint64_t optimizer_bytes = 0;
  int num_nodes = 1;
  int ranks_per_node = 1;
  int world_size = 1;
  int thread_count = 1;
  std::string sharding;  // e.g. "fsdp-full", "zero3 tp=1 pp=1 dp=8"
  std::vector<std::string> notes;
  std::vector<RankPlan> ranks;  // one per world rank
  uint64_t total_bytes = 0;     // bytes written per checkpoint
  // Identity: model, parameters, tensors (names, dtypes, sizes). A load
  // refuses a checkpoint of another identity.
  std::string fingerprint;
  // World size, files per rank, sharding and segment placement: may differ
  // between a save and a (resharded) restore of the same identity.
  std::string layout;

  uint64_t NodeBytes(int node) const {
    uint64_t b = 0;
    for (const auto& r : ranks) {
      if (static_cast<int>(r.node) == node) b += r.bytes;
    }
    return b;
  }
  size_t FileCount() const {
    size_t n = 0;
    for (const auto& r : ranks) n += r.files.size();
    return n;
  }
};

inline std::string ShardFileName(uint32_t rank, uint32_t index) {
  return "__" + std::to_string(rank) + "_" + std::to_string(index) + ".distcp";
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_PLAN_H_
