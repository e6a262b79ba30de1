// The round protocol's own messages as both sides hold them, whatever the
// workload (wire/round_codec.h converts each to and from its ckptbench.v1
// message): a node's answer to a prepare, the start of a phase, progress
// while it runs, and a workload's mid-phase ask of the coordinator with
// its answer. The workload's job and report (the checkpoint's files, or
// another workload's own message) travel beside them.
#ifndef CKPTBENCH_COMMON_ROUND_MESSAGES_H_
#define CKPTBENCH_COMMON_ROUND_MESSAGES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/kinds.h"
#include "common/storage_facts.h"

namespace ckpt {

// A node prepared its part of a round (untimed).
struct PrepareOutcome {
  // The backend it opened; absent for a workload that opened none.
  std::optional<StorageKind> storage_kind;
  FilesystemInfo filesystem;
  // A load's: how its reads were kept cold, and what stayed resident.
  CacheReport cache;
  // Another workload's own answer (its message); empty for the checkpoint.
  std::string workload_outcome;
};

// Start the prepared phase at `start_at_unix_ns` on the node's own clock
// (the coordinator's instant corrected by the node's offset).
struct PhaseStart {
  std::string run_id;
  uint64_t round_id = 0;
  int64_t start_at_unix_ns = 0;
  double progress_interval_seconds = 0;  // between Progress messages
};

struct RankProgress {
  uint32_t rank = 0;
  uint64_t bytes_done = 0;
  uint64_t bytes_total = 0;  // 0: not said
};

// What a node's ranks have done so far in a round.
struct PhaseProgress {
  uint64_t round_id = 0;
  std::vector<RankProgress> ranks;
};

// A node's workload asks, mid-phase, for an action (the workload's own
// message in `payload`); `action_id` is unique within the phase on the
// node.
struct ActionAsk {
  uint64_t round_id = 0;
  uint64_t action_id = 0;
  std::string payload;
};

// The coordinator's answer: the workload's own message, or a refusal with
// its kind (ErrorKindOf).
struct ActionAnswer {
  uint64_t round_id = 0;
  uint64_t action_id = 0;
  absl::Status status;
  std::string payload;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_ROUND_MESSAGES_H_
