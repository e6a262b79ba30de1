// The node's side of the round protocol for workloads other than the
// checkpoint (node_workload.h): prepares the named workload, sleeps to the
// start instant, runs the phase while sending progress every interval,
// carries its asks to the coordinator and their answers back, stops on an
// abort, and answers a retried start of the same (run, round) with the
// first start's report. Thread-safe: Answer and Abort come from the
// session's reading thread while Run blocks on another.
#ifndef CKPTBENCH_NODE_ROUND_WORKLOAD_PHASE_H_
#define CKPTBENCH_NODE_ROUND_WORKLOAD_PHASE_H_

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
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

namespace v1 = ::ckptbench::v1;

class WorkloadPhases {
 public:
  explicit WorkloadPhases(NodeWorkloads workloads)
      : workloads_(std::move(workloads)) {}

  // Prepares the workload `job` names; an unknown name is refused naming
  // it and the ones this node runs.
  absl::StatusOr<PrepareOutcome> Prepare(const PhaseJob& job,
                                         StorageSet& storage);
  // Whether (run_id, round_id) is a workload round prepared or started
  // here (else it is the checkpoint's).
  bool Owns(const std::string& run_id, uint64_t round_id) const;

  using SendAsk = std::function<void(const v1::ActionRequest&)>;
  // Runs the prepared round; its asks go out through `send_ask`, their
  // answers come to Answer(). Blocks until the phase ends.
  v1::PhaseReport Run(const v1::StartPhaseRequest& req,
                      const std::function<void(const v1::Progress&)>& progress,
                      const SendAsk& send_ask, double progress_interval);
  // The coordinator's answer to an ask (ignored if nobody waits for it).
  void Answer(const v1::ActionReply& reply);
  void Abort();

 private:
  // Runs `phase` from the start instant; the report's fields but round_id.
  PhaseOutcome Execute(NodeWorkload& phase, const v1::StartPhaseRequest& req,
                       const std::function<void(const v1::Progress&)>& progress,
                       const SendAsk& send_ask, double progress_interval);
  absl::StatusOr<std::string> Ask(const SendAsk& send_ask, uint64_t round_id,
                                  const std::string& payload);

  const NodeWorkloads workloads_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::unique_ptr<NodeWorkload> prepared_;
  std::pair<std::string, uint64_t> prepared_round_;
  std::map<std::pair<std::string, uint64_t>,
           std::shared_future<v1::PhaseReport>>
      started_;
  std::map<uint64_t, std::optional<v1::ActionReply>> answers_;  // by action
  uint64_t next_action_ = 1;
  bool aborted_ = false;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_ROUND_WORKLOAD_PHASE_H_
