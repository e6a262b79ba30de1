// How the coordinator talks to one node agent. `ckptbench run` uses the
// in-process LocalNodeClient; the multinode coordinator uses a gRPC client
// with the same interface and the same ckptbench.v1 messages. Callers see
// domain types (common/round_messages.h, inspection.h, storage_commands.h);
// the clients send and receive the wire's, converted here (wire/*_codec.h).
// Every failure comes back as one Status: the node not reached (or out of
// contract), or the node's own failure, which carries its kind
// (NodeErrorKindOf, common/error_kind.h); a reply that comes back is one
// that did not fail. Implementations send the calls (the protected Send*
// methods); this class turns a reply's `error` into that Status, once for
// every client. A phase's report comes back failed or not (ReportedPhase):
// what a failed node measured is still summed up.
// Implementations are safe to call from one coordinator thread per node.
// RemoteNode is asynchronous: one thread can start a call on every node.
#ifndef CKPTBENCH_COORDINATOR_ROUND_NODE_CLIENT_H_
#define CKPTBENCH_COORDINATOR_ROUND_NODE_CLIENT_H_

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/inspection.h"
#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "common/round_messages.h"
#include "common/storage_commands.h"
#include "proto/ckptbench/v1/node.pb.h"
#include "wire/error_kind.h"
#include "wire/inspect_codec.h"
#include "wire/phase_report_codec.h"
#include "wire/prepare_codec.h"
#include "wire/round_codec.h"
#include "wire/storage_commands_codec.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

// What a running phase sends the coordinator besides its report: its
// progress, and its workload's asks for an action mid-phase; `reply`
// answers an ask once, from any thread. Both run on the thread that got
// the message: they must not block (round_workload.h).
struct PhaseListener {
  std::function<void(const PhaseProgress&)> progress;
  std::function<void(const ActionAsk&, std::function<void(ActionAnswer)> reply)>
      action;  // null: asks are refused
};

// The same as the clients deliver it, in the wire's messages.
struct WireListener {
  std::function<void(const v1::Progress&)> progress;
  std::function<void(const v1::ActionRequest&,
                     std::function<void(v1::ActionReply)> reply)>
      action;
};

// How a node's phase ended: `status` is its failure (the transport's, or
// the node's with its kind), `report` what it measured, failed or not
// (empty when the node was not reached). `refused`: why the report that
// came back cannot be held (wire/phase_report_codec.h; then `report` is
// empty), for the round protocol to fail the node with once the round's
// clock stopped, as it does a report whose values are impossible.
struct ReportedPhase {
  absl::Status status;
  PhaseOutcome report;
  absl::Status refused;
};

class NodeClient {
 public:
  virtual ~NodeClient() = default;
  virtual int index() const = 0;
  virtual std::string host() const = 0;
  // "node 3 (host-a)": how messages name the node.
  std::string Who() const {
    return absl::StrCat("node ", index(), " (", host(), ")");
  }
  // The node's clock minus the coordinator's (unix ns), and the round trip
  // of the best estimate; zero for an in-process node.
  virtual int64_t clock_offset_ns() const { return 0; }
  virtual double rtt_seconds() const { return 0; }
  // A new estimate (EstimateClock); an in-process node has no other clock.
  virtual bool remote() const { return false; }
  virtual void SetClock(int64_t /*offset_ns*/, double /*rtt_seconds*/) {}
  // Whether the node was lost (its connection ended or it went silent):
  // the run failed for want of it, not for its storage. Never for a node
  // in this process.
  virtual bool lost() const { return false; }

  // A listing the codec refuses (wire/inspect_codec.h) names the node.
  absl::StatusOr<Inspection> Inspect(const InspectJob& job) {
    absl::StatusOr<v1::InspectReply> rep = Checked(SendInspect(ToWire(job)));
    if (!rep.ok()) return rep.status();
    absl::StatusOr<Inspection> found = FromWire(*std::move(rep));
    if (!found.ok()) return WithPrefix(found.status(), Who() + " sent ");
    return found;
  }
  // The job is consumed as it is converted (a plan's segments are large).
  absl::StatusOr<PrepareOutcome> Prepare(PhaseJob job) {
    return Converted(Checked(SendPrepare(ToWire(std::move(job)))));
  }
  // Blocks until the node reports the phase; progress and the workload's
  // asks arrive meanwhile.
  ReportedPhase StartPhase(const PhaseStart& start,
                           const PhaseListener& listener) {
    return OutcomeOf(SendStartPhase(ToWire(start), WireOf(listener)));
  }
  // The job is consumed: its .metadata moves into the message, uncopied
  // (it is sent on the round's clock).
  absl::Status Commit(CommitJob job) {
    return Checked(SendCommit(ToWire(std::move(job)))).status();
  }
  // A claim another run holds is an answer, not a failure (`taken`).
  absl::StatusOr<ClaimOutcome> Claim(const ClaimJob& job) {
    return Converted(Checked(SendClaim(ToWire(job))));
  }
  absl::StatusOr<CleanupOutcome> Cleanup(const CleanupJob& job) {
    return Converted(Checked(SendCleanup(ToWire(job))));
  }
  absl::StatusOr<PutResultOutcome> PutResult(const PutResultJob& job) {
    return Converted(Checked(SendPutResult(ToWire(job))));
  }
  // Stops the node's phase of run `run_id`, if any (the node logs why).
  absl::Status Abort(const std::string& run_id, const std::string& reason) {
    v1::AbortRequest r;
    r.set_run_id(run_id);
    r.set_reason(reason);
    return SendAbort(r).status();
  }
  // The node's clock (unix ns) when it answered a ping sent at
  // `coordinator_unix_ns` on ours.
  absl::StatusOr<int64_t> Ping(int64_t coordinator_unix_ns) {
    v1::PingRequest r;
    r.set_coordinator_unix_ns(coordinator_unix_ns);
    absl::StatusOr<v1::PingReply> rep = SendPing(r);
    if (!rep.ok()) return rep.status();
    return rep->node_unix_ns();
  }

  // The calls of a timed round, asynchronously: each sends the call and
  // returns; `done` runs once, when the reply arrives or the call fails, on
  // whichever thread saw that. A client whose async() is false runs the
  // blocking call inline, so callers fan such clients out on threads of
  // their own.
  template <typename Reply>
  using Done = std::function<void(absl::StatusOr<Reply>)>;
  virtual bool async() const { return false; }
  void PrepareAsync(PhaseJob job, Done<PrepareOutcome> done) {
    SendPrepareAsync(ToWire(std::move(job)),
                     [done = std::move(done)](auto rep) {
                       done(Converted(Checked(std::move(rep))));
                     });
  }
  void StartPhaseAsync(const PhaseStart& start, const PhaseListener& listener,
                       std::function<void(ReportedPhase)> done) {
    SendStartPhaseAsync(ToWire(start), WireOf(listener),
                        [done = std::move(done)](auto rep) {
                          done(OutcomeOf(std::move(rep)));
                        });
  }
  void CommitAsync(CommitJob job, std::function<void(absl::Status)> done) {
    SendCommitAsync(ToWire(std::move(job)), [done = std::move(done)](auto rep) {
      done(Checked(std::move(rep)).status());
    });
  }

 protected:
  // What each call sends and the node's reply as it came (its `error` not
  // looked at); an error Status only when the node was not reached or
  // answered out of contract.
  virtual absl::StatusOr<v1::InspectReply> SendInspect(
      const v1::InspectRequest& r) = 0;
  // A prepare's request is the clients' to consume (its plan).
  virtual absl::StatusOr<v1::PrepareReply> SendPrepare(
      v1::PrepareRequest r) = 0;
  virtual absl::StatusOr<v1::PhaseReport> SendStartPhase(
      const v1::StartPhaseRequest& r, const WireListener& listener) = 0;
  // A commit's request is the clients' to consume (its .metadata).
  virtual absl::StatusOr<v1::CommitReply> SendCommit(v1::CommitRequest r) = 0;
  virtual absl::StatusOr<v1::ClaimReply> SendClaim(
      const v1::ClaimRequest& r) = 0;
  virtual absl::StatusOr<v1::CleanupReply> SendCleanup(
      const v1::CleanupRequest& r) = 0;
  virtual absl::StatusOr<v1::PutResultReply> SendPutResult(
      const v1::PutResultRequest& r) = 0;
  virtual absl::StatusOr<v1::AbortReply> SendAbort(
      const v1::AbortRequest& r) = 0;
  virtual absl::StatusOr<v1::PingReply> SendPing(const v1::PingRequest& r) = 0;
  virtual void SendPrepareAsync(v1::PrepareRequest r,
                                Done<v1::PrepareReply> done) {
    done(SendPrepare(std::move(r)));
  }
  virtual void SendStartPhaseAsync(const v1::StartPhaseRequest& r,
                                   WireListener listener,
                                   Done<v1::PhaseReport> done) {
    done(SendStartPhase(r, listener));
  }
  virtual void SendCommitAsync(v1::CommitRequest r,
                               Done<v1::CommitReply> done) {
    done(SendCommit(std::move(r)));
  }

 private:
  // The one place a reply's `error` becomes the call's Status.
  template <typename Reply>
  static absl::StatusOr<Reply> Checked(absl::StatusOr<Reply> rep) {
    if (!rep.ok()) return rep;
    absl::Status failed = StatusOfReply(*rep);
    if (!failed.ok()) return failed;
    return rep;
  }
  // A reply that did not fail as its domain type (the codecs' FromWire,
  // which may itself refuse a value: then its status).
  template <typename T>
  struct Unwrapped {
    using type = T;
  };
  template <typename T>
  struct Unwrapped<absl::StatusOr<T>> {
    using type = T;
  };
  template <typename Reply>
  static auto Converted(absl::StatusOr<Reply> rep)
      -> absl::StatusOr<typename Unwrapped<decltype(FromWire(*rep))>::type> {
    if (!rep.ok()) return rep.status();
    return FromWire(*rep);
  }
  // The listener as the clients call it: each message converted first.
  static WireListener WireOf(const PhaseListener& l) {
    WireListener w;
    if (l.progress) {
      w.progress = [progress = l.progress](const v1::Progress& p) {
        progress(FromWire(p));
      };
    }
    if (l.action) {
      w.action = [action = l.action](
                     const v1::ActionRequest& ask,
                     std::function<void(v1::ActionReply)> reply) {
        action(FromWire(ask),
               [reply = std::move(reply)](const ActionAnswer& answer) {
                 reply(ToWire(answer));
               });
      };
    }
    return w;
  }
  static ReportedPhase OutcomeOf(absl::StatusOr<v1::PhaseReport> rep) {
    if (!rep.ok()) return {rep.status(), {}, {}};
    absl::Status failed = StatusOfReply(*rep);
    absl::StatusOr<PhaseOutcome> report = FromWire(*rep);
    if (!report.ok()) return {std::move(failed), {}, report.status()};
    return {std::move(failed), *std::move(report), {}};
  }
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_ROUND_NODE_CLIENT_H_
