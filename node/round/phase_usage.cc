#include "node/round/phase_usage.h"

#include "common/memory.h"

namespace ckpt {

PhaseUsage::PhaseUsage(const ObjectStoreCounters& c)
    : counters_(c),
      cpu0_(SampleCpu()),
      requests0_(c.requests),
      retries0_(c.retries),
      throttles0_(c.throttles),
      connections0_(c.new_connections),
      backoff0_(c.backoff_ns) {
  ResetPeakRss();
}

void PhaseUsage::Into(PhaseOutcome* out) const {
  const ObjectStoreCounters& c = counters_;
  out->cpu = CpuBetween(cpu0_, SampleCpu());
  out->cpus = UsableCpus();
  out->memory_available_bytes = AvailableMemory().available_bytes;
  out->peak_rss_bytes = PeakRssBytes();
  out->requests = c.requests - requests0_;
  out->retries = c.retries - retries0_;
  out->throttles = c.throttles - throttles0_;
  out->new_connections = c.new_connections - connections0_;
  out->backoff_seconds = static_cast<double>(c.backoff_ns - backoff0_) / 1e9;
}

}  // namespace ckpt
