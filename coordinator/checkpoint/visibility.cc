// RoundRunner::MeasureVisible: time to visible after a save commits.
#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/log.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/checkpoint/round_runner.h"

namespace ckpt {

void RoundRunner::MeasureVisible(const RoundSpec& spec, uint64_t metadata_size,
                                 uint64_t metadata_xxh3,
                                 const std::vector<PrepareOutcome>& prepared,
                                 int64_t committed_unix_ns,
                                 RoundResult* result) const {
  // Node 0 committed; another node is the reader a restart would be.
  const size_t k = nodes().size() > 1 ? 1 : 0;
  // A sink (null://) keeps nothing: there is nothing to become visible.
  if (k < prepared.size() && prepared[k].storage_kind == StorageKind::kNull) {
    return;
  }
  Visibility v;
  v.node = nodes()[k]->index();
  v.host = nodes()[k]->host();
  v.same_node = k == 0;
  InspectJob job;
  job.run_id = spec.run_id;
  job.steps_uri = ForNode(spec.dir, v.node);
  job.backend = backend_;
  job.visible.step = spec.step;
  job.visible.metadata_size = metadata_size;
  job.visible.metadata_xxh3 = metadata_xxh3;
  job.visible.timeout_seconds = CheckpointOf(config_).visible_timeout;
  // A FUSE daemon caches listings and attributes: the reader must also
  // open a shard at its full size.
  if (k < prepared.size() && prepared[k].storage_kind == StorageKind::kFuse) {
    for (const auto& r : plan_.ranks) {
      if (r.files.empty()) continue;
      job.visible.shard = r.files[0].name;
      job.visible.shard_size = r.files[0].size;
      break;
    }
  }
  auto rep = nodes()[k]->Inspect(job);
  if (!rep.ok()) {
    const std::string why(rep.status().message());
    LOG_WARN("%s %d: time to visible not measured: %s: %s", result->phase,
             result->index, nodes()[k]->Who(), why);
    return;
  }
  const VisibleOutcome& seen = rep->visible;
  v.visible = seen.visible;
  v.poll_seconds = seen.poll_seconds;
  v.polls = seen.polls;
  v.lacked = seen.lacked;
  v.last_poll_seconds = seen.last_poll_seconds;
  if (!v.visible) {
    result->flags.push_back(RoundFlag::kNotVisible);
    LOG_WARN(
        "%s %d: step-%d was not visible to %s %.1f s after its commit (%s): "
        "a restart there could not load it yet",
        result->phase, result->index, spec.step, nodes()[k]->Who(),
        v.poll_seconds,
        v.lacked.empty() ? std::string("the last poll found nothing missing")
                         : absl::StrCat("the last poll found no ", v.lacked));
    v.seconds = v.poll_seconds;
    SetVisibility(result, std::move(v));
    return;
  }
  // The node's instant on the coordinator's clock (offset: node minus
  // coordinator); a small negative from clock error reads as 0.
  const int64_t at = seen.at_unix_ns - nodes()[k]->clock_offset_ns();
  v.seconds = std::max(0.0, static_cast<double>(at - committed_unix_ns) / 1e9);
  LOG_INFO("%s %d: step-%d visible to %s %.3f s after its commit (%d polls)",
           result->phase, result->index, spec.step, nodes()[k]->Who(),
           v.seconds, v.polls);
  SetVisibility(result, std::move(v));
}

}  // namespace ckpt
