// FlagShortPhase (coordinator/run_workload.h).
#include "coordinator/run_workload.h"

#include <string>

#include "common/log.h"

namespace ckpt {

void FlagShortPhase(RoundResult* r, std::string_view expected) {
  if (r->status != RunStatus::kOk || r->staged ||
      r->seconds >= kShortPhaseSeconds) {
    return;
  }
  r->flags.push_back(RoundFlag::kShortPhase);
  LOG_WARN(
      "%s took %.3f s, under %.0f s: start-up, scheduling and timer noise "
      "are a large share of so short a phase, so its rate says little about "
      "the storage; expected %s",
      RoundName(*r), r->seconds, kShortPhaseSeconds, std::string(expected));
}

}  // namespace ckpt
