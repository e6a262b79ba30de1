// DatagenRun (coordinator/dataset/datagen_run.h).
#include "coordinator/dataset/datagen_run.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/dataset_options.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "coordinator/client_check.h"
#include "coordinator/dataset/datagen_round.h"
#include "coordinator/dataset/dataset_preflight.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/round/round_protocol.h"

namespace ckpt {

absl::Status DatagenRun::Preflight(RunContext& ctx, RunResult*) {
  return PreflightDataset(ctx);
}

absl::Status DatagenRun::Run(RunContext& ctx, RunResult* result) {
  const Config& config = ctx.config();
  DatagenPlan plan;
  plan.run_id = ctx.run_id();
  plan.spec = DatasetSpecOf(config);
  plan.uri = DatasetPath(config);
  plan.node_local = config.storage.node_local;
  plan.remove = DatasetOf(config).remove;
  plan.write_threads = DatasetOf(config).write_threads;
  plan.block_size = config.io.block_size;
  plan.fsync = config.io.fsync;
  plan.backend = ctx.backend();
  plan.take_over = ctx.take_over();
  // The round fills it in; the result holds it from the round's end.
  auto made = std::make_shared<DatasetResult>();
  const DatasetResult& dataset = *made;
  RoundProtocol protocol(ctx.nodes(), ctx.progress(),
                         config.run.progress_interval);
  DatagenRound round(ctx.nodes(), plan, made.get());
  result->rounds.push_back(protocol.Run(round, ctx.NextRound()));
  result->sections[kDatasetSection] = std::move(made);
  RoundResult& r = result->rounds.back();
  if (r.status != RunStatus::kOk) {
    ctx.Publish(result);
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
    FlagShortPhase(&r, kLargerDataset);
    FlagClientBound(&r);
  }
  ctx.Publish(result);
  return absl::OkStatus();
}

}  // namespace ckpt
