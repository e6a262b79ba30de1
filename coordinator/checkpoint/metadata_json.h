// A step's .metadata (format ckptbench.checkpoint/v2), the checkpoint's
// own file: written as a stream (MetadataToJson) and read back with a SAX
// parser (ParseMetadata) that keeps only what a load needs
// (metadata_json.cc). Pure functions; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_METADATA_JSON_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_METADATA_JSON_H_

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/kinds.h"
#include "coordinator/checkpoint/reshard.h"

namespace ckpt {

inline constexpr char kMetadataFormat[] = "ckptbench.checkpoint/v2";

// (rank, file index, segment index) -> checksum. A flat hash map: a
// checkpoint has one entry per tensor per rank (200,000 for 100,000
// tensors on 2 ranks), and a std::map node costs ~3x its 20 bytes.
using SegmentChecksums =
    absl::flat_hash_map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t>;

// With only_node >= 0, lists only that node's files (node-local storage:
// each node's .metadata describes the shards on its own disk).
std::string MetadataToJson(const CheckpointPlan& plan, uint64_t step,
                           uint64_t seed, ChecksumKind checksum,
                           const SegmentChecksums& sums, int only_node = -1);

struct CheckpointMetadata {
  uint64_t step = 0;
  uint64_t seed = 0;
  std::string checksum;
  std::string pattern;      // the byte generator (kPatternName); "" if none
  std::string fingerprint;  // identity: model, tensors, dtypes
  std::string layout;       // world, files per rank, sharding, placement
  std::string model;
  uint64_t parameters = 0;
  int world_size = 0;
  int ranks_per_node = 1;
  int thread_count = 0;
  std::string sharding;
  uint64_t total_bytes = 0;
  SegmentChecksums sums;
};

// `where` names the file in errors. With `files`, also the checkpoint's
// files and their segments (a resharded restore's map of the bytes).
absl::StatusOr<CheckpointMetadata> ParseMetadata(
    const std::string& text, const std::string& where,
    std::vector<SavedFile>* files = nullptr);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_METADATA_JSON_H_
