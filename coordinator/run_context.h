// What every workload's run shares, as the coordinator keeps it: the run's
// configuration, nodes and ids; a round's ids; publishing results as rounds
// end; the storage owners' listings of a target; every node's open of the
// object stores; and the checkpoint steps a run claims, writes and retires
// (claims, a failed save's removal, the older steps it committed). A
// workload's run (coordinator/run_workload.h) reaches the coordinator only
// through this. Not thread-safe, except Publish/Snapshot/Interrupt as
// Coordinator says.
#ifndef CKPTBENCH_COORDINATOR_RUN_CONTEXT_H_
#define CKPTBENCH_COORDINATOR_RUN_CONTEXT_H_

#include <atomic>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config.h"
#include "common/inspection.h"
#include "common/storage_commands.h"
#include "coordinator/progress.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"
#include "coordinator/round/round_protocol.h"

namespace ckpt {

// A file each step of a run holds, by the node that writes it (its
// position in the run's node order).
struct StepFile {
  size_t node = 0;
  std::string name;
};

class RunContext {
 public:
  RunContext(const Config& config, std::vector<NodeClient*> nodes,
             ProgressPrinter* progress, std::string run_id);

  const Config& config() const { return config_; }
  const std::vector<NodeClient*>& nodes() const { return nodes_; }
  ProgressPrinter* progress() const { return progress_; }
  const std::string& run_id() const { return run_id_; }
  // The backend settings every storage command carries.
  const BackendOptions& backend() const { return backend_; }
  bool interrupted() const { return interrupted_; }
  // The ids of the run's next round.
  RoundIds NextRound();

  // A resumed sweep's prepare: the run ids of this run's own earlier
  // attempts, whose unfinished work of the same target it may finish.
  const std::vector<std::string>& take_over() const { return take_over_; }
  void set_take_over(std::vector<std::string> run_ids) {
    take_over_ = std::move(run_ids);
  }

  // Puts the nodes in `order` (order[j]: the position of the node that
  // becomes node j), e.g. node-local disks matched to the indexes that
  // saved on them. Safe against Interrupt.
  void ReorderNodes(const std::vector<size_t>& order);

  // Copies what `result` holds now for Snapshot() (a round once, when it
  // is first published: call it once a round is final).
  void Publish(RunResult* result);
  RunResult Snapshot() const;
  // Tells the nodes to abort and sets the interrupted flag (any thread).
  void Interrupt(const std::string& reason);
  std::string interrupt_reason() const;

  // Every node opens each object store the run names (no request): one
  // without its own credentials fails the run before any round, though
  // only storage owners list and probe.
  absl::Status OpenOnEveryNode();
  // ACCELERATOR=gpu: every node, before any round, says which GPUs it
  // sees (a note each); a node without a usable one fails the run here.
  absl::Status CheckGpusOnEveryNode(RunResult* result);
  // Nodes that own storage: node 0 for a shared target, every node for
  // node-local disks. InspectAll lists `uri` on each, in node order.
  size_t StorageOwners() const;
  absl::StatusOr<StepListing> Inspect(const std::string& uri, bool probe,
                                      bool want_metadata, size_t node,
                                      uint64_t metadata_step = 0);
  absl::StatusOr<std::vector<StepListing>> InspectAll(
      const std::string& uri, bool probe, bool want_metadata,
      uint64_t metadata_step = 0);
  // Notes what the listings found (ignored and partial steps), once.
  void NoteListings(RunResult* result) const;

  // The files each step this run claims holds: a workload that writes
  // steps says so before its first ClaimStep. Cleanup (a failed save's
  // step, the older steps) removes these and the run's claims, nothing
  // else.
  void set_step_files(std::vector<StepFile> files) {
    step_files_ = std::move(files);
  }

  // Claims the first free step from `step` on under `dir` on every storage
  // owner (NodeAgent::Claim); a step another run holds is skipped, a few
  // times, then the run stops with the steps it tried. The step counts as
  // this run's written one from then on.
  absl::StatusOr<uint64_t> ClaimStep(const std::string& dir, uint64_t step);
  // A save of `step` committed: the newest this run committed, if newer.
  void NoteCommitted(uint64_t step);
  uint64_t committed_step() const { return committed_step_; }
  // After a failed save: removes what this run wrote in `step` (its files,
  // its claim), through any node still answering; names what stays.
  void RemoveFailedStep(const std::string& dir, uint64_t step,
                        RunResult* result);
  // After the workload's run: claims it could not give back as leftovers;
  // when the run finished (`finished`), removes the older steps it
  // committed (unless run.keep_all_steps), else says which stay.
  absl::Status RetireSteps(bool finished, RunResult* result);

 private:
  CleanupJob CleanupOf(const std::string& dir, size_t owner) const;
  // The claim of `step` under `dir` on storage owner `owner`.
  ClaimJob ClaimOf(const std::string& dir, size_t owner, uint64_t step) const;
  absl::Status RemoveOldSteps(RunResult* result);

  const Config& config_;
  std::vector<StepFile> step_files_;
  std::vector<NodeClient*> nodes_;
  std::vector<std::string> take_over_;
  ProgressPrinter* progress_;
  std::string run_id_;
  const BackendOptions backend_;
  uint64_t next_round_id_ = 1;
  bool saved_ = false;
  // Steps this run claimed (saved or staged); cleanup touches nothing else.
  std::set<uint64_t> written_steps_;
  // The newest step this run's saves committed (its loads read that one).
  uint64_t committed_step_ = 0;
  // Claim entries this run wrote in its steps (ClaimReply.claim_name).
  std::set<std::string> claim_names_;
  // Claims of steps this run lost and could not give back: leftovers.
  std::vector<std::string> unreleased_claims_;
  // What listings found that is not this run's and stays (noted once, the
  // first few by name): step directories numbered past kMaxStep, and steps
  // without a .metadata (a save in progress, or one a killed run left).
  std::set<std::string> ignored_steps_, partial_steps_;
  mutable std::mutex snapshot_mu_;
  RunResult snapshot_;
  std::atomic<bool> interrupted_{false};
  mutable std::mutex interrupt_mu_;
  std::string interrupt_reason_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RUN_CONTEXT_H_
