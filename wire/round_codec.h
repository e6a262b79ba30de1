// The round protocol's own messages (common/round_messages.h) to and from
// their ckptbench.v1 messages, for both sides: the coordinator's
// NodeClient and RemoteNode, the node's service and its workload phases. A
// reply's `error` is not looked at here (NodeClient turns it into the call's
// status first, wire/error_kind.h); a value this build does not know is refused
// naming its field.
#ifndef CKPTBENCH_WIRE_ROUND_CODEC_H_
#define CKPTBENCH_WIRE_ROUND_CODEC_H_

#include "absl/status/statusor.h"
#include "common/round_messages.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

v1::PrepareReply ToWire(const PrepareOutcome& o);
// An unspecified storage kind is absent (a workload that opened none); a
// node that names one must name its cache method (a save's is none).
absl::StatusOr<PrepareOutcome> FromWire(const v1::PrepareReply& r);

v1::StartPhaseRequest ToWire(const PhaseStart& s);
PhaseStart FromWire(const v1::StartPhaseRequest& r);

v1::Progress ToWire(const PhaseProgress& p);
PhaseProgress FromWire(const v1::Progress& p);

v1::ActionRequest ToWire(const ActionAsk& a);
ActionAsk FromWire(const v1::ActionRequest& a);

// A refusal's message leaves the coordinator scrubbed (SetError).
v1::ActionReply ToWire(const ActionAnswer& a);
// A refusal comes back with its kind's code (StatusOfKind).
ActionAnswer FromWire(const v1::ActionReply& a);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_ROUND_CODEC_H_
