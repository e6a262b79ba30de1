// JSON encodings: result.json (schema ckptbench.result/v1) both ways, and a
// step's .metadata (format ckptbench.checkpoint/v2). Pure functions;
// thread-safe.
#ifndef CKPTBENCH_COORDINATOR_JSON_CODEC_H_
#define CKPTBENCH_COORDINATOR_JSON_CODEC_H_

#include <cstdint>
#include <map>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "common/plan.h"
#include "coordinator/checkpoint/reshard.h"
#include "coordinator/results.h"

namespace ckpt {

class WorkloadRegistry;

inline constexpr char kResultSchema[] = "ckptbench.result/v1";
inline constexpr char kMetadataFormat[] = "ckptbench.checkpoint/v2";

// (rank, file index, segment index) -> checksum. A flat hash map: a
// checkpoint has one entry per tensor per rank (200,000 for 100,000
// tensors on 2 ranks), and a std::map node costs ~3x its 20 bytes.
using SegmentChecksums =
    absl::flat_hash_map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t>;

// The run's result.json. Each workload's section (RunResult::sections) at
// its place: those `registry` places before the rounds in its registration
// order, every other after the run's own members, by member; a round's
// (RoundResult::sections) at the round's head in registration order, every
// other at the round's end. The first form writes with
// WorkloadRegistry::BuiltIn().
std::string ResultToJson(const RunResult& result);
std::string ResultToJson(const RunResult& result,
                         const WorkloadRegistry& registry);

// Whether `name` is a member every result.json's run object may have (one
// this build reads itself; a workload's own section is not).
bool IsRunResultMember(std::string_view name);
// The same of a round's object (rounds[]).
bool IsRoundResultMember(std::string_view name);

// result.json back into the types that wrote it (result_from_json.cc): a
// field that is absent (an older result) or null (a NaN written) keeps its
// default; one of the wrong type, or another schema, is refused naming the
// field's path ("rounds[2].nodes[0].seconds") and `where` (the file), as
// InvalidArgument; text that is not a JSON object is DataLoss. The
// summary and goodput sections are not read: they are derived
// (RunResult::Summarize, RunResult::Goodput) from what is.
// A workload `registry` has not registered (the run's or a round's) is
// carried through as foreign (result_foreign.h); the first form reads
// with WorkloadRegistry::BuiltIn().
absl::StatusOr<RunResult> ResultFromJson(const std::string& text,
                                         const std::string& where);
absl::StatusOr<RunResult> ResultFromJson(const std::string& text,
                                         const std::string& where,
                                         const WorkloadRegistry& registry);

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

#endif  // CKPTBENCH_COORDINATOR_JSON_CODEC_H_
