#include "coordinator/round/clock_sync.h"

#include "common/clock.h"

namespace ckpt {

absl::StatusOr<ClockEstimate> EstimateClock(NodeClient& node, int exchanges) {
  ClockEstimate best;
  best.rtt_seconds = 1e300;
  for (int i = 0; i < exchanges; ++i) {
    v1::PingRequest req;
    int64_t t0 = NowUnixNs();
    req.set_coordinator_unix_ns(t0);
    auto rep = node.Ping(req);
    int64_t t1 = NowUnixNs();
    if (!rep.ok()) return rep.status();
    double rtt = static_cast<double>(t1 - t0) / 1e9;
    if (rtt < best.rtt_seconds) {
      best.rtt_seconds = rtt;
      best.offset_ns = rep->node_unix_ns() - (t0 + (t1 - t0) / 2);
    }
    ++best.samples;
  }
  return best;
}

}  // namespace ckpt
