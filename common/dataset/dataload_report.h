// What a node says of its dataload epoch, and the asks and answers of the
// checkpoints taken during it, as both sides hold them. The node's side
// (node/dataset/dataload_workload.cc, epoch_checkpoint.cc) fills them; the
// coordinator's (coordinator/dataset/dataload_round.cc, epoch_saves.cc)
// checks and sums them up; wire/dataload_report_codec.h carries them in
// the round protocol's workload report and mid-phase asks.
#ifndef CKPTBENCH_COMMON_DATASET_DATALOAD_REPORT_H_
#define CKPTBENCH_COMMON_DATASET_DATALOAD_REPORT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/histogram.h"
#include "common/phase_outcome.h"
#include "common/round_messages.h"

namespace ckpt {

// One of a rank's windows of steps (per 100): their time's mean and
// population variance (seconds, seconds^2).
struct StepWindowStats {
  uint64_t steps = 0;
  double mean_seconds = 0;
  double variance = 0;
  bool operator==(const StepWindowStats&) const = default;
};

// Where a rank's first batch went (seconds, from the node's start; the
// four parts add up to its first_batch_seconds): the worker that made it
// starting (the node's loaders made, then its thread running), opening
// its connections (an object store's: libcurl's connect times, at most
// the worker's time to the batch), its reads to the batch made (the
// batch's samples, any preprocess_time and retries' back-off; iterable:
// its shuffle buffer filled first), and the hand-off to the accelerator
// (the batch waiting its turn).
struct FirstBatchParts {
  uint32_t worker = 0;  // the rank's worker that made it
  double worker_start_seconds = 0;
  double connect_seconds = 0;
  double reads_seconds = 0;  // the connections' time not included
  double handoff_seconds = 0;
  uint64_t samples_read = 0;  // by the worker, before the batch was made
  uint64_t requests = 0, new_connections = 0;  // the worker's, before it
  bool operator==(const FirstBatchParts&) const = default;
};

struct RankEpochReport {
  uint32_t rank = 0;  // global
  uint64_t samples = 0;
  uint64_t bytes = 0;
  uint64_t batches = 0;
  double seconds = 0;               // from the node's start to its last batch
  double first_batch_seconds = -1;  // to its first batch ready (-1: none)
  FirstBatchParts first_batch;      // with first_batch_seconds >= 0
  double compute_seconds = 0;       // the accelerator's, summed
  double wait_seconds = 0;          // the accelerator waiting for data
  uint64_t digest = 0;              // order-independent, of the samples read
  uint64_t order_digest = 0;        // order-dependent
  Histogram wait;                   // per batch
  std::vector<StepWindowStats> windows;
};

struct WorkerReport {
  uint32_t rank = 0;
  uint32_t worker = 0;
  uint64_t samples = 0;
  uint64_t batches = 0;
  uint64_t requests = 0;
  uint64_t retries = 0;
  uint64_t throttles = 0;
  uint64_t new_connections = 0;
  uint64_t objects = 0;  // iterable: the objects it streamed (0: idle)
  bool operator==(const WorkerReport&) const = default;
};

// One checkpoint taken during the epoch, as a node saw it (seconds from
// the node's start).
struct EpochSaveStats {
  uint32_t save = 0;  // 1-based, in the epoch
  uint64_t step = 0;
  uint64_t batch = 0;  // the batch of each rank it followed
  double start_seconds = 0;
  double end_seconds = 0;
  double blocked_seconds = 0;   // the ranks held, from the start
  double state_seconds = 0;     // making the next save's state (async)
  uint64_t window_samples = 0;  // the node's ranks consumed, in the window
  double window_compute_seconds = 0;
  // From the first rank's arrival at the batch to the save's start.
  double arrival_spread_seconds = 0;
  bool operator==(const EpochSaveStats&) const = default;
};

struct DataloadReport {
  std::vector<RankEpochReport> ranks;
  std::vector<WorkerReport> workers;
  Histogram sample_first_byte;  // per sample, from its request
  Histogram sample_last_byte;
  std::vector<EpochSaveStats> saves;
  // The time some save's window was open, up to the node's last batch, and
  // what its ranks consumed then, each batch once.
  double checkpoint_window_seconds = 0;
  uint64_t checkpoint_window_samples = 0;
  double checkpoint_window_compute_seconds = 0;
  // The order generator the node's ranks read in
  // (common/dataset/epoch_order.h).
  std::string order;
};

// A node's ask about save `save` of the epoch: its start (neither flag),
// its files durable (`saved`, with the save's report and what its prepare
// found), or that the node takes no more saves (`finished`).
struct EpochSaveAsk {
  uint32_t save = 0;
  bool saved = false;
  bool finished = false;
  PhaseOutcome report;                     // with saved
  std::optional<PrepareOutcome> prepared;  // with saved
  // Decoded only: why the report or the prepare outcome cannot be held
  // ("a save report that cannot be held: ..."); the save then fails.
  absl::Status unheld;
};

// The coordinator's answer: the save's step (its URI as the node sees
// it), and once durable the next save's; or no save now nor later.
struct EpochSaveAnswer {
  uint64_t step = 0;
  std::string step_uri;
  uint64_t next_step = 0;
  std::string next_step_uri;
  bool skip = false;
  bool operator==(const EpochSaveAnswer&) const = default;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATALOAD_REPORT_H_
