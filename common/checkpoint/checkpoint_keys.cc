// The checkpoint workload's configuration keys (checkpoint_keys.h).
#include "common/checkpoint/checkpoint_keys.h"

#include <limits>

#include "common/checkpoint/checkpoint_options.h"

namespace ckpt {

using namespace keydefs;  // NOLINT: the key-building helpers

namespace {

// How its files are sharded and which rounds a run has: after cluster.*.
std::vector<KeyDef> ShardingAndRoundKeys() {
  std::vector<KeyDef> keys;
  keys.push_back(KindKey<ShardingStrategy>(
      "sharding.strategy", "CKPT_SHARDING",
      [](auto& c) -> auto& { return CheckpointOf(c).sharding.strategy; },
      "full: shard across all ranks; hybrid: within a node, node 0 writes"));
  keys.push_back(IntKey(
      "sharding.thread_count", "CKPT_THREAD_COUNT", 1,
      [](auto& c) -> auto& { return CheckpointOf(c).sharding.thread_count; },
      "files per rank, each written by its own thread (DCP thread_count)"));
  keys.push_back(KindKey<RunMode>(
      "run.mode", "CKPT_MODE",
      [](auto& c) -> auto& { return CheckpointOf(c).mode; },
      "which phases run"));
  keys.push_back(IntKey(
      "run.num_save_calls", "NUM_SAVE_CALLS", 0,
      [](auto& c) -> auto& { return CheckpointOf(c).num_save_calls; },
      "timed save rounds"));
  keys.push_back(IntKey(
      "run.num_load_calls", "NUM_LOAD_CALLS", 0,
      [](auto& c) -> auto& { return CheckpointOf(c).num_load_calls; },
      "timed load rounds"));
  return keys;
}

// What its saves wait on and are timed against, and what its loads read:
// after run.keep_all_steps.
std::vector<KeyDef> SaveAndLoadKeys() {
  std::vector<KeyDef> keys;
  keys.push_back(BoolKey(
      "run.async", "CKPT_ASYNC",
      [](auto& c) -> auto& { return CheckpointOf(c).async; },
      "asynchronous saves: training blocks only while a save stages its "
      "bytes; persisting them overlaps the next run.interval of simulated "
      "training"));
  keys.push_back(DurationKey(
      "run.interval", "CKPT_INTERVAL",
      [](auto& c) -> auto& { return CheckpointOf(c).interval; },
      "training time between saves (simulated compute with run.async); the "
      "checkpoint interval goodput is computed at"));
  keys.push_back(DurationKey(
      "run.mttf", "CKPT_MTTF",
      [](auto& c) -> auto& { return CheckpointOf(c).mttf; },
      "mean time to failure of the job, for goodput and the optimal "
      "checkpoint interval (0: not computed)"));
  keys.push_back(DurationKey(
      "run.visible_timeout", "CKPT_VISIBLE_TIMEOUT",
      [](auto& c) -> auto& { return CheckpointOf(c).visible_timeout; },
      "time to visible: after each save commits, another node (node 1; the "
      "same one in a one-node run) polls until it lists the step and reads "
      "its .metadata back (FUSE mounts: and opens a shard), for at most this "
      "long; 0: not measured"));
  keys.push_back(AutoIntKey(
      "load.rank_shift", "CKPT_RANK_SHIFT", 0, std::numeric_limits<int>::max(),
      [](auto& c) -> auto& { return CheckpointOf(c).load.rank_shift; },
      "rank r loads the shards rank (r + K) mod the world size wrote, so on "
      "shared storage nodes read what other nodes wrote and no node's client "
      "cache serves them (DLIO's recovery_rank_shift); auto: one node over "
      "(the ranks per node) for a multinode run on shared storage, 0 "
      "otherwise; K > 0 needs shared storage (not storage.node_local)"));
  keys.push_back(KindKey<ReshardReads>(
      "load.reshard_reads", "CKPT_RESHARD_READS",
      [](auto& c) -> auto& { return CheckpointOf(c).load.reshard_reads; },
      "a resharded restore (checkpoint saved with another world size or "
      "files per rank): ranges = each rank reads exactly the bytes it owns "
      "under the new sharding; segments = every saved segment holding any "
      "of them, whole (as PyTorch DCP's FileSystemReader reads stored items), "
      "so read amplification shows the cost"));
  return keys;
}

}  // namespace

std::vector<KeysAfter> AddCheckpointKeys(
    std::vector<WorkloadChoice>* workloads) {
  WorkloadChoice checkpoint;
  checkpoint.name = kCheckpointWorkload;
  checkpoint.does = "save and load rounds";
  workloads->push_back(std::move(checkpoint));
  return {{"cluster.staging", ShardingAndRoundKeys()},
          {"run.keep_all_steps", SaveAndLoadKeys()}};
}

}  // namespace ckpt
