// Drives a whole run: inspects the storage targets, stages a checkpoint
// for load-only runs when none is committed (untimed), runs the timed save
// rounds then load rounds through RoundRunner, and removes older steps.
// Results accumulate in the RunResult as rounds finish, so a failed run
// still reports what it measured. Not thread-safe.
#ifndef CKPTBENCH_COORDINATOR_COORDINATOR_H_
#define CKPTBENCH_COORDINATOR_COORDINATOR_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/config.h"
#include "common/exit_code.h"
#include "common/inspection.h"
#include "common/plan.h"
#include "common/storage_commands.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/json_codec.h"
#include "coordinator/progress.h"
#include "coordinator/results.h"
#include "coordinator/round/node_client.h"

namespace ckpt {

class EpochSaves;
struct DataloadPlan;

class Coordinator {
 public:
  // `run_id` "" = a new one.
  Coordinator(const Config& config, const CheckpointPlan& plan,
              std::vector<NodeClient*> nodes, ProgressPrinter* progress,
              std::string run_id = "");

  // Checks the targets before any round: the save directory is writable,
  // and a restore path's newest committed checkpoint matches the plan.
  absl::Status Preflight(RunResult* result);

  // Runs every round; returns the first error. `result` holds every round
  // measured, failed ones included.
  absl::Status Run(RunResult* result);

  // Results at an object-store URI (`dir_uri`/`name`), written by node 0
  // with the run's storage settings. `check_only`: before any round, fails
  // with AlreadyExists if the object is there (unless `overwrite`).
  absl::Status PutResult(const std::string& dir_uri, const std::string& name,
                         const std::string& data, bool check_only,
                         bool overwrite);

  // Safe from another thread (the signal thread): tells the nodes to
  // abort, fails the round in flight and starts no further rounds.
  void Interrupt(const std::string& reason);

  // A datagen run only: the run ids of this run's own earlier attempts (a
  // resumed sweep's prepare), whose unfinished datagen of the same dataset
  // this run may finish instead of being refused by its claim.
  void TakeOverDatagenOf(std::vector<std::string> run_ids) {
    take_over_ = std::move(run_ids);
  }

  // After Run failed: why, as an exit status. kInterrupted when it was
  // interrupted or a node was lost (the same run on new pods may finish),
  // kFailed otherwise.
  ExitCode FailureCode() const;

  // Safe from another thread: the run's result as of the last round that
  // ended (Run publishes a copy as it starts and after every round), for
  // a watchdog that must write what was measured while Run is stuck.
  RunResult Snapshot() const;

 private:
  // Lists `uri` on node `node`'s view of storage.
  absl::StatusOr<StepListing> Inspect(const std::string& uri, bool probe,
                                      bool want_metadata, size_t node,
                                      uint64_t metadata_step = 0);
  // Nodes that own storage: node 0 for a shared target, every node for
  // node-local disks. InspectAll lists `uri` on each, in node order.
  size_t StorageOwners() const;
  absl::StatusOr<std::vector<StepListing>> InspectAll(
      const std::string& uri, bool probe, bool want_metadata,
      uint64_t metadata_step = 0);
  // Claims the first free step from `step` on under `dir` on every storage
  // owner (NodeAgent::Claim); a step another run holds is skipped, a few
  // times, then the run stops with the steps it tried.
  absl::StatusOr<uint64_t> ClaimStep(const std::string& dir, uint64_t step);
  // After a failed save: removes what this run wrote in `step` (its files,
  // its claim), through any node still answering; names what stays.
  void RemoveFailedStep(const std::string& dir, uint64_t step,
                        RunResult* result);
  CleanupJob CleanupOf(const std::string& dir, size_t owner) const;
  // The claim of `step` under `dir` on storage owner `owner`.
  ClaimJob ClaimOf(const std::string& dir, size_t owner, uint64_t step) const;
  // Node-local disks: puts each node where its disk's files are (nodes_
  // and `listings` reordered so that node j holds what index j saved),
  // noting it; an error when the disks do not hold one index each. Round
  // results then list the nodes in that order, each by its own index.
  absl::Status MatchDisks(std::vector<StepListing>* listings,
                          const std::string& dir, RunResult* result);
  // Parses the newest .metadata of each listing, refuses a different plan,
  // and merges the segment checksums.
  absl::StatusOr<CheckpointMetadata> CheckedMetadata(
      const std::vector<StepListing>& listings, const std::string& dir);
  // A resharded restore's plan: the .metadata's file map (listings of
  // shared storage: one owner) under this run's plan, timed.
  absl::StatusOr<ReshardPlan> PlanResharded(
      const std::vector<StepListing>& listings, const std::string& dir,
      const CheckpointMetadata& meta);
  // Notes what the listings found (ignored_steps_, partial_steps_).
  void NoteListings(RunResult* result) const;
  // Copies what `result` holds now for Snapshot() (a round once, when it
  // is first published: call it once a round is final).
  void Publish(RunResult* result);
  // run.workload=checkpoint: its save rounds, then its load rounds
  // (coordinator/checkpoint/checkpoint_run.cc).
  absl::Status RunSaves(RunResult* result);
  // run.workload=datagen: makes (or removes) the dataset
  // (coordinator/dataset/datagen_run.cc).
  absl::Status RunDatagen(RunResult* result);
  // Every node opens each object store the run names (no request): one
  // without its own credentials fails the run before any round, though
  // only storage owners list and probe.
  absl::Status OpenOnEveryNode();
  // A dataset run's preflight: each storage owner's look at the dataset,
  // checked (coordinator/dataset/dataset_preflight.h).
  absl::Status PreflightDataset();
  // run.workload=dataload: the epochs (coordinator/dataset/dataload_run.cc).
  absl::Status RunDataload(RunResult* result);
  // RunDataload's steps: the epochs' plan from the configuration, and an
  // epoch's checkpoints, their first step `first_step` (claimed).
  DataloadPlan MakeDataloadPlan() const;
  std::unique_ptr<EpochSaves> NewEpochSaves(const std::string& dir,
                                            uint64_t first_step,
                                            int saves_before);
  // dataload.find_accelerators: one cold epoch per count of ranks per node
  // (coordinator/dataset/accelerator_search.h).
  absl::Status RunAcceleratorSearch(const DataloadPlan& base,
                                    RunResult* result);
  // After an epoch with checkpoints (result->rounds[epoch_at]): its saves'
  // rounds after the rounds so far, their steps this run's, a step a save
  // did not commit removed; the step claimed for the next save (0: none).
  uint64_t TakeEpochSaves(EpochSaves& saves, const std::string& dir,
                          size_t epoch_at, RunResult* result);
  absl::Status RunLoads(RunResult* result);
  absl::Status Stage(RunResult* result,
                     const std::vector<StepListing>& listings);
  absl::Status RemoveOldSteps(RunResult* result);
  // A round of this run with the next round id.
  RoundSpec NewSpec(bool save, int index, const std::string& dir, uint64_t step,
                    uint64_t seed);

  Config config_;
  const CheckpointPlan& plan_;
  std::vector<NodeClient*> nodes_;
  std::vector<std::string> take_over_;  // TakeOverDatagenOf
  ProgressPrinter* progress_;
  std::string run_id_;
  // The backend settings every storage command carries (BackendOptions).
  const BackendOptions backend_;
  uint64_t next_round_id_ = 1;
  bool saved_ = false;
  // Steps this run wrote (saved or staged); cleanup touches nothing else.
  std::set<uint64_t> written_steps_;
  // The newest step this run's saves committed (its loads read that one).
  uint64_t committed_step_ = 0;
  uint64_t staged_step_ = 0;
  // Claim entries this run wrote in its steps (ClaimReply.claim_name).
  std::set<std::string> claim_names_;
  // Claims of steps this run lost and could not give back: leftovers.
  std::vector<std::string> unreleased_claims_;
  // What listings found that is not this run's and stays (Run notes them
  // once, the first few by name): step directories numbered past kMaxStep,
  // and steps without a .metadata (a save in progress, or one a killed run
  // left).
  std::set<std::string> ignored_steps_, partial_steps_;
  mutable std::mutex snapshot_mu_;
  RunResult snapshot_;
  std::atomic<bool> interrupted_{false};
  std::mutex interrupt_mu_;
  std::string interrupt_reason_;
};

std::string NewRunId();

// A timed round shorter than this is flagged "short_phase" and warned
// about: its rate is mostly noise.
inline constexpr double kShortPhaseSeconds = 1.0;
void FlagShortPhase(RoundResult* round);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_COORDINATOR_H_
