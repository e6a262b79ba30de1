// The node's side of the round protocol, the same for every workload
// (node_workload.h, the checkpoint's included): prepares the named
// workload, sleeps to the start instant, runs the phase while sending its
// progress every interval (progress_reporter.h), carries its asks to the
// coordinator and their answers back, stops it on an abort, and answers a
// retried start of the same (run, round) with the first start's outcome. One
// phase at a time: a prepare while a phase runs is refused. Domain types only;
// the session converts to and from the wire (wire/round_codec.h). Thread-safe:
// Answer and Abort come from the session's reading thread while Run blocks on
// another.
#ifndef CKPTBENCH_NODE_ROUND_WORKLOAD_PHASE_H_
#define CKPTBENCH_NODE_ROUND_WORKLOAD_PHASE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "common/phase_job.h"
#include "common/phase_outcome.h"
#include "common/round_messages.h"
#include "node/round/node_workload.h"

namespace ckpt {

class WorkloadPhases {
 public:
  // `unnamed`: what an error calls the workload under the name "" (the
  // default one, run.workload's default; node_service.cc says which).
  explicit WorkloadPhases(NodeWorkloads workloads, std::string unnamed = "")
      : workloads_(std::move(workloads)), unnamed_(std::move(unnamed)) {}

  // Prepares the workload `job` names (the ones held before give back
  // what they hold first, so their memory is free for this one); an
  // unknown name is refused naming it and the ones this node runs.
  absl::StatusOr<PrepareOutcome> Prepare(PhaseJob job, StorageSet& storage);

  using SendProgress = std::function<void(const PhaseProgress&)>;
  using SendAsk = std::function<void(const ActionAsk&)>;
  // Runs the prepared round from start.start_at_unix_ns; progress goes
  // out every start.progress_interval_seconds through `progress` (may be
  // null), asks through `send_ask` (null: each is refused at once), their
  // answers coming to Answer(). Blocks until the phase ends.
  PhaseOutcome Run(const PhaseStart& start, const SendProgress& progress,
                   const SendAsk& send_ask);
  // The coordinator's answer to an ask (ignored if nobody waits for it).
  void Answer(ActionAnswer answer);
  // Stops the running phase (and one started before the next prepare).
  void Abort(const std::string& reason);
  // After the last phase's report was sent: its workload's GiveBack (the
  // checkpoint's heap trim), unless another phase runs by now.
  void AfterReport();

 private:
  // Runs `phase` from the start instant: the outcome but round_id.
  PhaseOutcome Execute(NodeWorkload& phase, const PhaseStart& start,
                       const SendProgress& progress, const SendAsk& send_ask);
  absl::StatusOr<std::string> Ask(const SendAsk& send_ask, uint64_t round_id,
                                  const std::string& payload);

  using Round = std::pair<std::string, uint64_t>;  // (run, round)
  const NodeWorkloads workloads_;
  const std::string unnamed_;
  std::mutex prepare_mu_;  // one prepare at a time
  mutable std::mutex mu_;  // guards what follows but abort_
  std::condition_variable cv_;
  std::unique_ptr<NodeWorkload> prepared_;
  Round prepared_round_;
  std::optional<Round> running_;
  std::unique_ptr<NodeWorkload> finished_;  // until AfterReport
  std::map<Round, std::shared_future<PhaseOutcome>> started_;
  std::map<uint64_t, std::optional<ActionAnswer>> answers_;  // by action
  uint64_t next_action_ = 1;
  std::atomic<bool> abort_{false};
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_WORKLOAD_PHASE_H_
