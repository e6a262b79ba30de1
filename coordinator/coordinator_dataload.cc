// Coordinator::RunDataload: a run whose workload is dataload
// (run.workload=dataload): dataload.epochs rounds of the data loader
// (coordinator/dataset/dataload_round.h) through the round protocol, the
// first always cold, later ones warm with dataload.warm_epochs.
#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "coordinator/client_check.h"
#include "coordinator/coordinator.h"
#include "coordinator/dataset/dataload_round.h"
#include "coordinator/round/round_protocol.h"

namespace ckpt {

absl::Status Coordinator::RunDataload(RunResult* result) {
  DataloadPlan plan;
  plan.uri = config_.DatasetPath();
  plan.node_local = config_.storage.node_local;
  plan.listed = config_.dataset.source == DatasetSource::kListed;
  plan.listed_format = config_.dataset.format;
  plan.ranks_per_node = config_.RanksPerNode();
  plan.seed = config_.run.seed;
  plan.loader = config_.dataload;
  plan.cache_mode =
      config_.io.direct_read ? CacheMode::kDirect : config_.io.cache_mode;
  plan.block_size = config_.io.block_size;
  plan.backend = backend_;
  RoundProtocol protocol(nodes_, progress_, config_.run.progress_interval);
  for (int e = 0; e < config_.dataload.epochs && !interrupted_; ++e) {
    plan.epoch = static_cast<uint64_t>(e);
    plan.warm = config_.dataload.warm_epochs && e > 0;
    DataloadRound round(nodes_, plan);
    RoundIds ids{run_id_, next_round_id_++, &interrupted_};
    result->rounds.push_back(protocol.Run(round, ids));
    RoundResult& r = result->rounds.back();
    if (!result->dataset && round.listed()) {
      result->dataset = *round.listed();
    } else if (!result->dataset && round.manifest()) {
      DatasetResult& read = result->dataset.emplace();
      read.uri = plan.uri;
      read.spec = round.manifest()->spec;
      read.totals = round.manifest()->totals;
    }
    if (r.status != RunStatus::kOk) {
      Publish(result);
      return absl::AbortedError(r.error);
    }
    const EpochResult& ep = *r.epoch;
    LOG_INFO(
        "epoch %d: %d samples, %.3f s, %.0f samples/s, %.1f MiB/s, first "
        "batch %.3f s%s",
        e + 1, ep.samples, r.seconds, ep.samples_per_second, ep.mib_per_second,
        ep.first_batch_seconds,
        ep.compute_seconds > 0
            ? absl::StrFormat(", accelerator utilization %.1f%%",
                              100 * ep.utilization)
            : std::string());
    FlagShortPhase(&r);
    FlagClientBound(&r);
    Publish(result);
  }
  return absl::OkStatus();
}

}  // namespace ckpt
