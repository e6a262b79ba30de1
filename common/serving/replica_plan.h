// What each rank of a serving replica reads of a model: whole files per
// rank, or its tensor-parallel slices of every tensor (tp_slices.h), as
// byte ranges of each file, joined where they touch. Pure; thread-safe.
#ifndef CKPTBENCH_COMMON_SERVING_REPLICA_PLAN_H_
#define CKPTBENCH_COMMON_SERVING_REPLICA_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/serving/safetensors.h"
#include "common/serving/tp_slices.h"

namespace ckpt {

enum class ReplicaSplit {
  kWholeFiles,      // each file read whole (its header too) by one rank
  kTensorParallel,  // every rank its slice of every tensor
};

// A model's file as the plan takes it: its name, size and header.
struct PlannedFile {
  std::string name;
  uint64_t size = 0;
  StHeader header;
};

struct FileReads {
  size_t file = 0;                // index into the model's files
  std::vector<ByteRange> ranges;  // sorted, disjoint, not touching
  uint64_t bytes = 0;
};

struct RankReads {
  std::vector<FileReads> files;  // by file index; files it reads nothing of
                                 // are left out
  uint64_t bytes = 0, ranges = 0;
};

struct ReplicaPlan {
  ReplicaSplit split = ReplicaSplit::kWholeFiles;
  std::vector<RankReads> ranks;
  uint64_t model_bytes = 0;  // the files' bytes
  uint64_t read_bytes = 0;   // summed over ranks (replicated norms count
                             // once per rank)
  // Tensor-parallel: tensors of each role (by TpRole's order).
  uint64_t role_tensors[kTpRoles] = {};
};

// The most bytes a model's files may hold together (1 PiB; the largest
// published models are under 1 TB): what keeps every sum of a plan, over
// files and ranks, far from overflow whatever sizes a listing claims.
inline constexpr uint64_t kMaxModelBytes = 1ull << 50;

// The most byte ranges one rank's plan may hold (strided pieces of
// row-parallel weights, 16 bytes each: a 70B has about 1.3 million per rank,
// a 405B 4.1 million).
inline constexpr uint64_t kMaxRankRanges = 1 << 23;

// The plan for `ranks` ranks. Tensor-parallel: the ranges are tensor bytes
// only (a real rank reads every file's header too: ReadModelHeaders's
// reads); k and v split by KV heads of `head_dim` rows (0: by rows); an
// unknown tensor goes to the ranks in turn, in the model's order. A tensor
// that does not split, a rank past kMaxRankRanges, or files past
// kMaxModelBytes together is an error naming the file.
absl::StatusOr<ReplicaPlan> PlanReplica(const std::vector<PlannedFile>& files,
                                        ReplicaSplit split, int ranks,
                                        uint64_t head_dim = 0);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_REPLICA_PLAN_H_
