// The coordinator's side of checkpoints during a dataload epoch
// (dataload.checkpoint_every; the node's side is
// node/dataset/epoch_checkpoint.h). Each save is the checkpoint's own save
// round (coordinator/checkpoint/round_runner.h: each node's job, the
// report checks, the commit of .metadata, the aggregation, the staging
// figures), run inside the epoch: the nodes ask at its start (a barrier:
// answered once every node asked, with the step, which was claimed while
// the last save ran) and once their files are durable (answered once
// every node's report is checked and node 0 committed the step). A node
// whose ranks are all done before a save says so, and every node is told
// to skip it and the rest. The answers that wait on storage (a claim, a
// commit) are made on a thread of this class's own: a node's ask must not
// block. Its methods are called from the threads the asks come on.
#ifndef CKPTBENCH_COORDINATOR_DATASET_EPOCH_SAVES_H_
#define CKPTBENCH_COORDINATOR_DATASET_EPOCH_SAVES_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/config.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataload_report.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/results.h"
#include "coordinator/round/round_workload.h"

namespace ckpt {

struct EpochSavesContext {
  // A save round's spec for `step` (run id, round id, index, the step's
  // URI, the seed).
  std::function<RoundSpec(uint64_t step)> spec;
  // Claims a step at or after the one given; the step claimed.
  std::function<absl::StatusOr<uint64_t>(uint64_t)> claim;
  // The URI of `step` ("{node}" for each node's own, node-local).
  std::function<std::string(uint64_t step)> step_uri;
  int index_base = 0;  // saves before this epoch's (their rounds' index)
};

class EpochSaves {
 public:
  // `first_step` is claimed already. The runner is given a copy of the
  // configuration that measures no time to visible (a node polled
  // mid-epoch would hold the save's answer).
  EpochSaves(const Config& config, const CheckpointPlan& plan,
             std::vector<NodeClient*> nodes, EpochSavesContext context,
             uint64_t first_step);
  ~EpochSaves();

  // Node `node`'s part of the epoch's job (untimed).
  EpochCheckpointJob JobFor(size_t node);
  // A node's ask (DataloadRound::OnAction).
  void OnAsk(size_t node, const ActionAsk& ask,
             RoundWorkload::ActionReplyFn reply);
  // After the epoch's round: the helper threads joined; the saves' rounds
  // in order (a failed one last), and the steps they wrote.
  std::vector<RoundResult> TakeRounds();
  // Node `node`'s report may name save k with `step` (its step).
  bool SaveStepIs(uint32_t k, uint64_t step) const;
  // The step claimed for the next save and not written (the next epoch's
  // first), and a step handed to a save that did not commit (0: none).
  // 0 when its claim failed.
  uint64_t next_step() const { return next_claimed_ ? next_step_ : 0; }
  uint64_t uncommitted_step() const;

 private:
  struct Save;
  using Reply = RoundWorkload::ActionReplyFn;
  struct Waiting {
    size_t node;
    ActionAsk ask;
    Reply reply;
  };
  void Answer(const ActionAsk& ask, const Reply& reply,
              const EpochSaveAnswer& answer);
  void Refuse(const ActionAsk& ask, const Reply& reply, absl::Status s);
  static EpochSaveAnswer Skip();
  // OnAsk's three asks, under mu_: a node with no more saves to take, a
  // node at save k's start, a node whose save is durable. False when the
  // ask is out of turn (OnAsk refuses it; `reply` is left untouched).
  bool OnFinished(size_t node, uint32_t k, const ActionAsk& ask, Reply& reply);
  bool OnStart(size_t node, uint32_t k, const ActionAsk& ask, Reply& reply);
  bool OnSaved(size_t node, EpochSaveAsk& a, const ActionAsk& ask,
               Reply& reply);
  // Every node asked at save k's start: the answers, and the next step's
  // claim on a thread.
  void Begin(Save& s);
  // Every node's report: checked, committed, summed up (on a thread).
  void Commit(Save& s);

  Config config_;  // the copy the runner refers to
  const size_t nodes_;
  const std::vector<NodeClient*> node_list_;
  RoundRunner runner_;
  EpochSavesContext context_;
  mutable std::mutex mu_;
  std::deque<std::unique_ptr<Save>> saves_;
  uint64_t next_step_;
  bool next_claimed_ = true;  // next_step_ is this run's
  std::thread claiming_;      // the next step's claim
  absl::Status claimed_;      // its outcome
  std::vector<std::thread> helpers_;
  int index_ = 0;               // the last save's round index
  std::vector<char> finished_;  // per node: said it takes no more
  uint32_t committed_ = 0;      // saves committed
  bool closed_ = false;         // TakeRounds began: no more asks
  uint32_t finished_at_ = 0;
  // What each node's save reports may say (JobFor: from its save job).
  std::vector<PhaseExpectation>
      expected_;  // a node's ranks were all done before it
  std::vector<RoundResult> rounds_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_DATASET_EPOCH_SAVES_H_
