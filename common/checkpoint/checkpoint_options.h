// The checkpoint workload's block of the configuration (common/
// config_blocks.h): what its saves and loads are (run.mode, run.num_*_calls,
// run.async, run.interval, run.mttf, run.visible_timeout), how its files
// are sharded (sharding.*) and how a load picks what each rank reads
// (load.*). Its keys keep their names and their place in `ckptbench keys`
// (common/checkpoint/checkpoint_keys.cc); the code reaches them with
// CheckpointOf(config). Thread-compatible (plain data).
#ifndef CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_OPTIONS_H_
#define CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_OPTIONS_H_

#include "common/config.h"
#include "common/kinds.h"

namespace ckpt {

struct ShardingOptions {
  ShardingStrategy strategy = ShardingStrategy::kFull;
  int thread_count = 1;  // files (writer threads) per rank
};

// How a load picks what each rank reads.
struct RestoreLoadOptions {
  // Rank r loads the shards rank (r + K) mod world size wrote (DLIO's
  // recovery_rank_shift): on shared storage, nodes then read what other
  // nodes wrote, so no node's client cache can serve them. -1 = auto: one
  // node over (ranks per node) for a multinode run on shared storage, else
  // 0. The effective K is resolved against the plan (EffectiveRankShift).
  int rank_shift = -1;
  // A resharded restore (the checkpoint was saved in another layout): what
  // each rank reads. "ranges": exactly the bytes it owns under the new
  // sharding; "segments": every saved segment that holds any of them,
  // whole (as PyTorch DCP's FileSystemReader reads each stored item whole
  // and narrows it in memory), so read amplification shows the cost.
  ReshardReads reshard_reads = ReshardReads::kRanges;
};

struct CheckpointOptions {
  RunMode mode = RunMode::kSaveAndLoad;  // run.mode
  int num_save_calls = 3;
  int num_load_calls = 3;
  // Asynchronous checkpointing: a save blocks training only while it
  // stages the shard bytes; persisting them overlaps the next `interval`
  // of simulated training compute.
  bool async = false;
  double interval = 0;  // seconds of training between saves; 0 = none
  double mttf = 0;      // mean time to failure (s) for goodput; 0 = off
  // After each save commits, another node polls until the step is visible
  // to it (listed, .metadata readable; FUSE: a shard opens), at most this
  // long; 0 = not measured.
  double visible_timeout = 60;
  ShardingOptions sharding;  // sharding.*
  RestoreLoadOptions load;   // load.*

  bool DoSave() const { return mode != RunMode::kLoadOnly; }
  bool DoLoad() const { return mode != RunMode::kSaveOnly; }
};

inline CheckpointOptions& CheckpointOf(Config& config) {
  return config.blocks.Get<CheckpointOptions>();
}
inline const CheckpointOptions& CheckpointOf(const Config& config) {
  return config.blocks.Get<CheckpointOptions>();
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CHECKPOINT_CHECKPOINT_OPTIONS_H_
