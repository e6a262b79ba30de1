// What a data loader's plan holds in memory besides its read buffers, on a
// node and on the coordinator, from the dataset's counts, and the check
// that refuses a plan that cannot fit (as the checkpoint planner refuses
// a plan of too many segments): the error names the bytes, the memory
// there, and the keys that change them.
//
// Per node (what DataloadWorkload::Prepare builds): a dataset of
// ckptbench's on TAR shards keeps each sample's offset (4 bytes) and each
// shard's first sample and size (16 bytes); a listed dataset keeps each
// object's name, size and version (a ListedObject, ~96 bytes and its name)
// and on TAR shards each sample's offset and size (20 bytes); iterable
// access keeps the objects each worker streams (4 bytes each); the node's
// objects are named once for the cold read (a path each, ~96 bytes and
// its length, and a bit per object). The sampler's order is computed per
// position (common/dataset/epoch_order.h): it costs nothing on either side. On
// the coordinator: a shard table (16 bytes a shard) for a dataset of
// ckptbench's. Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_DATASET_DATALOAD_MEMORY_H_
#define CKPTBENCH_COMMON_DATASET_DATALOAD_MEMORY_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "common/kinds.h"
#include "common/memory.h"

namespace ckpt {

struct DataloadShape {
  DatasetFormat format = DatasetFormat::kTar;
  bool listed = false;  // dataset.source=listed
  DataAccess access = DataAccess::kMap;
  uint64_t samples = 0;
  uint64_t objects = 0;         // shards or sample files
  uint64_t name_bytes = 0;      // an object's path, on average
  uint64_t ranks_per_node = 1;  // the node's ranks
  uint64_t world = 1;           // ranks in all
};

struct DataloadFootprint {
  uint64_t node_bytes = 0;
  uint64_t coordinator_bytes = 0;
  std::string node_parts;  // "4.00 GiB of sample offsets, ..."
};

DataloadFootprint EstimateDataloadMemory(const DataloadShape& shape);

// OK when the footprint's `side` share ("node" or "coordinator") fits in
// 80% of `budget` (unknown: OK); else FailedPrecondition: "this dataset
// needs about X on the node for its index (...); more than 80% of the Y
// available (source). Expected fewer samples (`what`), ...".
absl::Status CheckDataloadMemory(const DataloadFootprint& footprint,
                                 bool node_side, const MemoryBudget& budget,
                                 const std::string& what);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATALOAD_MEMORY_H_
