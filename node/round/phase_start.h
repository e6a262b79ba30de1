// The node's side of the round protocol's common start: the coordinator's
// instant (on this node's wall clock, by its estimated offset) converted
// once, now, to this node's monotonic clock, and slept to with an
// absolute sleep there, so a wall clock stepped meanwhile (NTP) moves
// nothing and no relative delay drifts.
#ifndef CKPTBENCH_NODE_ROUND_PHASE_START_H_
#define CKPTBENCH_NODE_ROUND_PHASE_START_H_

#include <cstdint>

namespace ckpt {

// Sleeps until `start_at_unix_ns` (node clock), at most 10 minutes ahead
// (a later instant, from a hostile or broken coordinator, is taken as
// that); returns the start lag:
// seconds from that instant to the wake-up, on the monotonic clock
// (negative never, unless the instant had passed: then the lateness).
double SleepUntilStart(int64_t start_at_unix_ns);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_PHASE_START_H_
