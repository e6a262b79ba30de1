// What a node measured in a phase, as both sides hold it (the node's agent
// and workloads fill it; wire/phase_report_codec.h carries it as a
// ckptbench.v1 PhaseReport; the coordinator checks it, coordinator/
// reply_check.h, then sums it up). A failed node's report carries its
// status and what it measured before failing.
#ifndef CKPTBENCH_COMMON_PHASE_OUTCOME_H_
#define CKPTBENCH_COMMON_PHASE_OUTCOME_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/cpu_usage.h"
#include "common/file_record.h"
#include "common/op_stats.h"

namespace ckpt {

struct RankOutcome {
  uint32_t rank = 0;
  uint64_t bytes = 0;
  double first_byte_seconds = -1;
  double done_seconds = 0;
  bool verified = false;       // loads: every byte checked against a sum
  uint64_t checked_bytes = 0;  // loads: bytes checked against a sum
  uint32_t checked_files = 0;  // loads: files wholly checked
};

struct SegmentSum {
  uint32_t rank, file_index, segment_index;
  uint64_t value;
};

// StagingReport in node.proto: copies between where the bytes live and
// host memory, and an async save's blocking / durable / compute times.
struct StagingOutcome {
  double copy_seconds = 0;  // summed over files
  uint64_t copy_bytes = 0;
  double blocking_seconds = 0;  // async: the last file staged
  double durable_seconds = 0;   // async: the last file durable
  double compute_seconds = 0, compute_baseline_seconds = 0;
  uint64_t staged_bytes = 0;  // host bytes held for staged copies
  bool pinned = false;
};

struct PhaseOutcome {
  uint64_t round_id = 0;  // the round it answers
  absl::Status status;    // the node's failure, with its kind
  std::vector<RankOutcome> ranks;
  OpStats ops;
  CpuDelta cpu;
  // Start lateness: the node's start minus the instant it was given, on
  // its own clock (negative: early, by its clock estimate's error).
  double start_lag_seconds = 0;
  double dir_sync_seconds = 0;
  std::vector<SegmentSum> checksums;                  // saves: what was written
  uint64_t requests = 0, retries = 0, throttles = 0;  // object stores
  uint64_t new_connections = 0;  // HTTP connections opened (object stores)
  double backoff_seconds = 0;    // slept before retries (object stores)
  uint64_t memory_available_bytes = 0;  // at the end, buffers still held
  // The process's peak resident set during the phase (since its start
  // where the kernel refuses a reset: common/memory.h); 0 unknown.
  uint64_t peak_rss_bytes = 0;
  StagingOutcome staging;
  double data_seconds = 0;  // FileOutcome::data_seconds, summed
  double file_seconds = 0;  // FileOutcome::done_seconds, summed
  int cpus = 0;             // this process may run on
  std::vector<FileRecord> files;
  // Another workload's own report (its message); empty for the checkpoint.
  std::string workload_report;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_PHASE_OUTCOME_H_
