// The version of the coordinator <-> node contract (ckptbench.v1 in
// proto/ckptbench/v1/node.proto) this build speaks. A change an older peer
// cannot read bumps it; the coordinator refuses a node of another version
// at registration, naming both. 2: workloads other than the checkpoint
// and mid-phase actions (PrepareRequest.workload, ActionRequest). 3: the
// accelerator, host staging, cache mode and method and storage kind as
// enums, not strings. 4: the backend settings (s3.*, gcs.*,
// storage.flavour) as typed messages, not "key" -> value strings, and
// io.checksum as an enum.
#ifndef CKPTBENCH_COMMON_PROTOCOL_VERSION_H_
#define CKPTBENCH_COMMON_PROTOCOL_VERSION_H_

namespace ckpt {

inline constexpr int kProtocolVersion = 4;

// gRPC keepalive on the control stream, both sides: a ping every 5 s, and
// the connection given up when one goes 20 s unanswered. Not 5: a node's
// session is gRPC's synchronous API, which answers a ping only while some
// thread polls the channel; while a Prepare runs on the reading thread
// (staging allocated, compute calibrated, seconds for a large model), that
// is gRPC's backup poller, every 5 s, so an answer can come 5 s late and
// later on a loaded machine. With a 5 s timeout the coordinator dropped
// nodes mid-prepare (a TSan test on a busy 2-core VM, 2 in 10 runs). A
// silent node is the coordinator's control.node_timeout to judge, from
// heartbeats; a coordinator gone without a FIN takes a node up to 25 s.
inline constexpr int kKeepaliveTimeMs = 5000;
inline constexpr int kKeepaliveTimeoutMs = 20000;

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_PROTOCOL_VERSION_H_
