// The checkpoint workload: one save or load round across all nodes, run
// by the round protocol (coordinator/round/round_protocol.h: prepare,
// clocks, the common start instant, transfer, first error wins, reports
// checked, aggregation after the clock). What the checkpoint adds lives
// here (CheckpointRound in round_runner.cc): each node's ranks, files and
// expected checksums, a load's cache flags, a save's commit (node 0 writes
// .metadata), time to visible, verification coverage, resharding and
// staging. Round time is measured on the coordinator's monotonic clock
// from the common start to the last report plus the commit; summing up
// the reports comes after. Not thread-safe; one round at a time.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_ROUND_RUNNER_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_ROUND_RUNNER_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/checkpoint/checkpoint_plan.h"
#include "common/config.h"
#include "coordinator/checkpoint/reshard.h"
#include "coordinator/progress.h"
#include "coordinator/reply_check.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"
#include "coordinator/round/node_workers.h"
#include "coordinator/round/round_protocol.h"

namespace ckpt {

// Expected checksum of (rank, file index, segment index), for loads.
using ChecksumLookup =
    std::function<bool(uint32_t, uint32_t, uint32_t, uint64_t*)>;

struct RoundSpec {
  std::string run_id;
  uint64_t round_id = 0;
  bool save = true;
  int index = 0;
  bool staged = false;
  uint64_t step = 0;
  uint64_t seed = 0;
  std::string step_uri;
  std::string dir;          // the checkpoints directory holding step_uri
  ChecksumLookup expected;  // loads
  // A load of a checkpoint saved in another layout: what each rank reads
  // (instead of its own files and `expected`).
  const ReshardPlan* reshard = nullptr;
  // Set when the run was interrupted: checked once every node is prepared
  // (a node's prepare clears an abort that came before it), so a round
  // interrupted before its start never starts.
  const std::atomic<bool>* interrupted = nullptr;
};

void FindStragglers(RoundResult* result);

// load.rank_shift resolved for this plan: K mod the world size, or for auto
// one node over (the ranks per node) in a multinode run on shared storage,
// else 0.
int EffectiveRankShift(const Config& config, const CheckpointPlan& plan);

class RoundRunner {
 public:
  RoundRunner(const Config& config, const CheckpointPlan& plan,
              std::vector<NodeClient*> nodes, ProgressPrinter* progress);

  // Runs the round. The RoundResult is filled even on failure (status
  // "failed", error set). Every node's report is checked (reply_check.h)
  // once the round's clock stopped, before any of it is used: one that
  // fails fails its node.
  RoundResult Run(const RoundSpec& spec);
  // The round Run runs, for a caller that drives it itself (checkpoints
  // during a dataload epoch: coordinator/dataset/epoch_saves.h); `spec`
  // must outlive it.
  std::unique_ptr<RoundWorkload> NewRound(const RoundSpec& spec);
  // The same for nodes already asked their jobs: `expected` is what each
  // node's report may say (ExpectPhase of its job), by node.
  std::unique_ptr<RoundWorkload> NewRound(
      const RoundSpec& spec, std::vector<PhaseExpectation> expected);

 private:
  // The node-reply fuzz target (tests/fuzz/node_reply_fuzz.cc) builds a
  // node's request and aggregates a checked report as Run does.
  friend struct NodeReplyFuzz;
  friend class CheckpointRound;
  PhaseJob BuildPrepare(const RoundSpec& spec, int node) const;
  // The share of a resharded load that `rank` reads: with load.rank_shift
  // K, what rank + K owns, so on shared storage its bytes lie in files
  // another node wrote.
  const ReshardRank& ReshardShare(const ReshardPlan& reshard,
                                  uint32_t rank) const;
  // A resharded load's ranks of `node` into `job`.
  void AddReshardedRanks(const ReshardPlan& reshard, int node,
                         PhaseJob* job) const;
  // The plan of the rank whose shards `rank` loads (rank_shift_ over).
  const RankPlan& ReadRank(uint32_t rank) const;
  // The .metadata each committer writes: one for all nodes, or with
  // per_node (node-local storage) node i's own, built on up to a thread per
  // CPU; the segment checksums are gathered once.
  std::vector<std::string> BuildMetadata(
      const RoundSpec& spec, const std::vector<PhaseOutcome>& reports,
      bool per_node) const;
  // The round's RoundStaging from its nodes'; for an async save also the
  // round's time (to the last byte durable + commit, not the end of the
  // training interval it overlapped).
  void SumUpStaging(const RoundSpec& spec, RoundResult* result) const;
  void Aggregate(const std::vector<PhaseOutcome>& reports,
                 const RoundSpec& spec, RoundResult* result) const;
  // A node's ranks from its report into the round and into `nr` (for a
  // load, whose files each read).
  void AddRanks(const PhaseOutcome& rep, const RoundSpec& spec, NodeResult* nr,
                RoundResult* result) const;
  // After a save committed (acknowledged at committed_unix_ns, coordinator
  // clock): node 1 (node 0 in a one-node run) polls until the step is
  // visible to it (coordinator/checkpoint/visibility.cc).
  void MeasureVisible(const RoundSpec& spec, uint64_t metadata_size,
                      uint64_t metadata_xxh3,
                      const std::vector<PrepareOutcome>& prepared,
                      int64_t committed_unix_ns, RoundResult* result) const;

  // The nodes, in index order (the protocol's).
  const std::vector<NodeClient*>& nodes() const { return protocol_.nodes(); }

  const Config& config_;
  const CheckpointPlan& plan_;
  // The backend settings every storage command carries (BackendOptions).
  const BackendOptions backend_;
  RoundProtocol protocol_;  // for all the runner's rounds
  const int rank_shift_;    // loads: EffectiveRankShift
  // The plan's tensor names, shared by every node's job.
  const std::shared_ptr<const std::vector<std::string>> tensor_names_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_ROUND_RUNNER_H_
