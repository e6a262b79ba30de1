// What the coordinator accepts from a node. Whoever reaches the control
// port can answer (without auth.token, anyone), and a node of another
// version may misread the protocol: every reply is checked here before any
// of it is used, in one place the fuzz target (tests/fuzz/node_reply_fuzz)
// drives. A reply that fails fails the node that sent it, naming it.
// Pure; thread-safe.
#ifndef CKPTBENCH_COORDINATOR_REPLY_CHECK_H_
#define CKPTBENCH_COORDINATOR_REPLY_CHECK_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

// The reply's body is the one its command asks for (`want`): a prepare is
// answered by a PrepareReply, not by a PhaseReport or a Heartbeat. `who`
// names the node ("node 1 (host-a)").
absl::Status CheckReplyBody(const v1::NodeMessage& msg,
                            v1::NodeMessage::BodyCase want,
                            const std::string& who);

// What one node's PhaseReport may say, from what it was asked to do.
struct PhaseExpectation {
  uint64_t round_id = 0;
  bool save = true;
  struct Rank {
    // Bytes the rank moves when it succeeds: exactly its files' sizes, or
    // for a ranged (resharded) load from its ranges' bytes to its files'
    // whole sizes (O_DIRECT reads whole aligned blocks).
    uint64_t min_bytes = 0, max_bytes = 0;
    // Its files by name (a resharded load reads several files of one
    // index, each another rank's) and their sizes; for a save, each file
    // index's segment count (what checksums may name).
    std::map<std::string, uint64_t> files;
    std::map<uint32_t, uint32_t> segments;
  };
  std::map<uint32_t, Rank> ranks;
  // Half the round trip of the node's clock estimate: how far below zero
  // a time on the common clock may dip.
  double clock_error_seconds = 0;
};

// The expectation of the node asked `job` (its ranks, files and sizes),
// whose clock estimate had round trip `rtt_seconds`.
PhaseExpectation ExpectPhase(const PhaseJob& job, double rtt_seconds);

// A report `who` sent that cannot be used, saying `what` is wrong (what
// the codec refused, wire/phase_report_codec.h, or a check below).
absl::Status UnusableReport(const std::string& who, absl::string_view what);

// What the round protocol checks of any workload's report (once the codec
// held it: histograms it can keep): the round it answers, and its start
// lag not below zero by more than the clock error (half the round trip of
// the node's clock estimate) nor above kMaxSeconds.
absl::Status CheckReportEnvelope(const PhaseOutcome& report, uint64_t round_id,
                                 double clock_error_seconds,
                                 const std::string& who);

// Any workload's report's own figures: its durations finite, from 0 to
// kMaxSeconds (its ranks' first byte may be -1: none).
absl::Status CheckReportFigures(const PhaseOutcome& report,
                                const std::string& who);
// Whether seconds a node sent are a duration a report may hold (as above).
bool IsReportDuration(double seconds);

// Checks a checkpoint report's values: CheckReportEnvelope; durations on
// the node's own clock finite and not negative (-1 where "none" is
// allowed); only the node's own ranks and files, each once; on success
// every rank reported with the bytes of its plan; checksums of real
// segments. A report that carries an error (the node failed) may leave
// ranks out and bytes short, but never beyond the plan.
absl::Status CheckPhaseReport(const PhaseOutcome& report,
                              const PhaseExpectation& expect,
                              const std::string& who);
// The same without the envelope (the round protocol checked it).
absl::Status CheckPhaseReportBody(const PhaseOutcome& report,
                                  const PhaseExpectation& expect,
                                  const std::string& who);

// The whole check of a node's reply, as one function (what the fuzz target
// drives): its body is `want` (CheckReplyBody), then its values, where the
// body has them: a listing's (held by its codec, wire/inspect_codec.h), a
// phase report's against `phase` when given (held by its codec, then
// CheckPhaseReport). The coordinator runs the same parts where the values
// are used: RemoteNode the type of every reply, NodeClient the codecs' hold
// of a listing and of a phase report (RoundProtocol::CheckReports fails the
// node whose report was refused), the protocol the report's envelope and
// the checkpoint workload its values.
absl::Status CheckNodeReply(const v1::NodeMessage& msg,
                            v1::NodeMessage::BodyCase want,
                            const std::string& who,
                            const PhaseExpectation* phase = nullptr);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_REPLY_CHECK_H_
