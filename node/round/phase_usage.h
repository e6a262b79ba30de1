// What a phase used besides its own work, for any workload's report: the
// process's CPU time, the CPUs it may run on, the memory left at the end,
// its peak resident set (the peak is started over when taking the start),
// and the object-store requests, retries, throttles, connections and
// back-off counted meanwhile (the difference of the run's counters).
#ifndef CKPTBENCH_NODE_ROUND_PHASE_USAGE_H_
#define CKPTBENCH_NODE_ROUND_PHASE_USAGE_H_

#include <cstdint>

#include "common/cpu_usage.h"
#include "common/phase_outcome.h"
#include "node/storage/http_client.h"

namespace ckpt {

class PhaseUsage {
 public:
  // Takes the starting values now.
  explicit PhaseUsage(const ObjectStoreCounters& counters);
  // The differences since then, and the memory available now, into `out`.
  void Into(PhaseOutcome* out) const;

 private:
  const ObjectStoreCounters& counters_;
  const CpuSample cpu0_;
  const uint64_t requests0_, retries0_, throttles0_, connections0_, backoff0_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_PHASE_USAGE_H_
