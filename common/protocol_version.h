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

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_PROTOCOL_VERSION_H_
