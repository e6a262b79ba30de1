// Estimates a node's clock offset by ping exchanges (NTP-style): offset =
// node time - midpoint of the coordinator's send and receive; the exchange
// with the smallest round trip is kept. Not thread-safe per node.
#ifndef CKPTBENCH_COORDINATOR_ROUND_CLOCK_SYNC_H_
#define CKPTBENCH_COORDINATOR_ROUND_CLOCK_SYNC_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

struct ClockEstimate {
  int64_t offset_ns = 0;  // node clock - coordinator clock
  double rtt_seconds = 0;
  int samples = 0;
};

absl::StatusOr<ClockEstimate> EstimateClock(NodeClient& node,
                                            int exchanges = 8);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_CLOCK_SYNC_H_
