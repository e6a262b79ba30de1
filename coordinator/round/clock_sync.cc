#include "coordinator/round/clock_sync.h"

#include "common/clock.h"

namespace ckpt {

absl::StatusOr<ClockEstimate> EstimateClock(NodeClient& node, int exchanges) {
  ClockEstimate best;
  best.rtt_seconds = 1e300;
  for (int i = 0; i < exchanges; ++i) {
    int64_t t0 = NowUnixNs();
    absl::StatusOr<int64_t> node_ns = node.Ping(t0);
    int64_t t1 = NowUnixNs();
    if (!node_ns.ok()) return node_ns.status();
    double rtt = static_cast<double>(t1 - t0) / 1e9;
    if (rtt < best.rtt_seconds) {
      best.rtt_seconds = rtt;
      best.offset_ns = *node_ns - (t0 + (t1 - t0) / 2);
    }
    ++best.samples;
  }
  return best;
}

}  // namespace ckpt
