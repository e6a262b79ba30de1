#include "coordinator/checkpoint/checkpoint_config_checks.h"

#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/checkpoint/checkpoint_options.h"

namespace ckpt {

namespace {

// " (or, <where>)" for each workload that sets `key` its own way where it
// embeds the checkpoint's saves (dataload's epochs); "" when none does.
std::string InsteadHint(const KeyCheckScope& scope, std::string_view key) {
  std::vector<std::string> wheres;
  for (const KeyInstead& k : scope.instead) {
    if (k.key == key) wheres.push_back(k.where);
  }
  if (wheres.empty()) return "";
  return absl::StrCat(" (or, ", absl::StrJoin(wheres, "; or, "), ")");
}

}  // namespace

absl::Status CheckCheckpointKeys(const Config& c, const KeyCheckScope& scope) {
  if (c.run.workload != kCheckpointWorkload) return absl::OkStatus();
  const CheckpointOptions& ck = CheckpointOf(c);
  if (ck.async && ck.interval <= 0 && ck.DoSave()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "run.async (CKPT_ASYNC) = true needs run.interval (CKPT_INTERVAL) > "
        "0: the training time between saves that persisting a save "
        "overlaps; expected e.g. CKPT_INTERVAL=30s",
        InsteadHint(scope, "run.interval")));
  }
  if (scope.need_storage && c.storage.path.empty() &&
      !(ck.mode == RunMode::kLoadOnly && !c.storage.restore_path.empty())) {
    return absl::InvalidArgumentError(
        "storage.path (CKPT_DIR_PATH) is not set: expected the directory or "
        "URI where checkpoints are written, e.g. CKPT_DIR_PATH=/mnt/ckpt");
  }
  return absl::OkStatus();
}

}  // namespace ckpt
