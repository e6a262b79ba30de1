#include "coordinator/checkpoint/checkpoint_config_checks.h"

namespace ckpt {

absl::Status CheckCheckpointKeys(const Config& c, bool need_storage) {
  if (c.run.workload != kCheckpointWorkload) return absl::OkStatus();
  if (c.run.async && c.run.interval <= 0 && c.DoSave()) {
    return absl::InvalidArgumentError(
        "run.async (CKPT_ASYNC) = true needs run.interval (CKPT_INTERVAL) > "
        "0: the training time between saves that persisting a save "
        "overlaps; expected e.g. CKPT_INTERVAL=30s (or, during a dataload "
        "epoch, dataload.checkpoint_every)");
  }
  if (need_storage && c.storage.path.empty() &&
      !(c.run.mode == RunMode::kLoadOnly && !c.storage.restore_path.empty())) {
    return absl::InvalidArgumentError(
        "storage.path (CKPT_DIR_PATH) is not set: expected the directory or "
        "URI where checkpoints are written, e.g. CKPT_DIR_PATH=/mnt/ckpt");
  }
  return absl::OkStatus();
}

}  // namespace ckpt
