// Coordinator::RunDatagen: a run whose workload is datagen (`ckptbench
// datagen`, or run.workload=datagen): one round of the dataset workload
// (coordinator/dataset/datagen_round.h) through the round protocol, its
// result in the run's rounds and its dataset block.
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/log.h"
#include "coordinator/client_check.h"
#include "coordinator/coordinator.h"
#include "coordinator/dataset/datagen_round.h"
#include "coordinator/round/round_protocol.h"

namespace ckpt {

absl::Status Coordinator::RunDatagen(RunResult* result) {
  DatagenPlan plan;
  plan.run_id = run_id_;
  plan.spec = DatasetSpecOf(config_);
  plan.uri = config_.DatasetPath();
  plan.node_local = config_.storage.node_local;
  plan.remove = config_.dataset.remove;
  plan.write_threads = config_.dataset.write_threads;
  plan.block_size = config_.io.block_size;
  plan.fsync = config_.io.fsync;
  plan.backend = backend_;
  plan.take_over = take_over_;
  DatasetResult& dataset = result->dataset.emplace();
  RoundProtocol protocol(nodes_, progress_, config_.run.progress_interval);
  DatagenRound round(nodes_, plan, &dataset);
  RoundIds ids{run_id_, next_round_id_++, &interrupted_};
  result->rounds.push_back(protocol.Run(round, ids));
  RoundResult& r = result->rounds.back();
  if (r.status != RunStatus::kOk) {
    Publish(result);
    return absl::AbortedError(r.error);
  }
  if (plan.remove) {
    LOG_INFO("removed the dataset at %s: %d objects", plan.uri,
             dataset.removed_objects);
  } else if (dataset.reused) {
    result->notes.push_back(absl::StrCat(
        "the dataset at ", plan.uri,
        " is there already (its manifest matches the request): reused, "
        "nothing written"));
  } else {
    LOG_INFO("datagen: %d objects, %s, %.3f s, %.1f MiB/s, %.0f samples/s",
             dataset.written_objects, FormatBytes(dataset.written_bytes),
             r.seconds, r.throughput_mib_s, dataset.samples_per_second);
    FlagShortPhase(&r);
    FlagClientBound(&r);
  }
  Publish(result);
  return absl::OkStatus();
}

}  // namespace ckpt
