// A sweep's runs, one after another in this process (`ckptbench sweep`):
// each under DIR/<run name>/, on the nodes its point asks for. Points on
// several nodes make this process the coordinator: it serves the node
// agents once (control.*) and a point on k nodes runs on nodes 0..k-1; on
// one node, every run shares one in-process node, so its storage
// (connection pools, credentials) stays warm from run to run.
// With prepare: datagen, a point's dataset is made (or found) by a datagen
// run under DIR/prepare/<run name>/ before the first run that reads it; a
// point whose dataset could not be made is not run (it counts as failed).
// A run whose result.json says it finished is not run again (--resume);
// a failed run's result is kept as result.failed.json and the run done
// again. A signal stops the loop before the next run; the run it
// interrupted keeps its partial result as result.interrupted.json (a run
// that had finished before it is kept as finished). A run (or prepare)
// that lost a node (exit 3 with no signal) stops it too, its result kept
// as failed: the runs after it would fail for want of the node; a resume
// on nodes that are all there runs them.
// Not thread-safe: one sweep, on one thread.
#ifndef CKPTBENCH_SWEEP_SWEEP_RUNS_H_
#define CKPTBENCH_SWEEP_SWEEP_RUNS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "common/exit_code.h"
#include "common/health_server.h"
#include "coordinator/fleet.h"
#include "inprocess/local_node_client.h"
#include "sweep/sweep_plan.h"

namespace ckpt {

// Where one run goes: its index in the plan, its directory, and the nodes
// it runs on with their clock estimates (none for the in-process node).
struct SweepRunTarget {
  size_t index = 0;
  // The run's prepare (its dataset made or found by datagen: the plan's
  // checked[index].prepare), not the run itself; its result may be
  // replaced.
  bool prepare = false;
  std::string dir;
  std::vector<NodeClient*> nodes;
  std::vector<NodeClock> clocks;
  // A prepare's run id, chosen before it runs and recorded in its
  // directory (kAttemptsFile), and the ids of its earlier attempts there:
  // a resumed sweep's datagen finishes what one of them left unfinished
  // (Coordinator::TakeOverDatagenOf). Empty for a run.
  std::string run_id;
  std::vector<std::string> take_over;
};

// A prepare's attempts, one run id a line, in DIR/prepare/<run>/: read
// back at most kMaxAttemptsBytes of it, and of those the last kMaxAttempts.
inline constexpr char kAttemptsFile[] = "attempts.txt";
inline constexpr uint64_t kMaxAttemptsBytes = 64 << 10;
inline constexpr size_t kMaxAttempts = 16;

// The run ids in an attempts file's text, read as any file is: only lines
// that look like run ids (letters, digits and '-', at most 64), the last
// kMaxAttempts of them.
std::vector<std::string> ParseAttempts(const std::string& text);

class SweepRuns {
 public:
  // Runs one run as `ckptbench run` would (its result.json into
  // target.dir); returns its exit code (0: finished).
  using RunFn = std::function<int(const SweepRunTarget& target)>;
  // The name of the signal that arrived ("SIGTERM"), "" while none has.
  using InterruptedFn = std::function<std::string()>;

  SweepRuns(const SweepPlan& plan, std::string dir, RunFn run,
            InterruptedFn interrupted);

  // Points on several nodes: serve the node agents once for every run;
  // on one node, only the health endpoint, which a probe still asks.
  // InvalidArgument for a control.* value the fleet refused or a health
  // port that cannot be served.
  absl::Status Serve(const WatchInterrupts& watch);
  // Every run not finished before, until a signal.
  void RunAll();
  // Ends the fleet's sessions: the node agents exit with `end`.
  void StopServing(ExitCode end, const std::string& reason);

  int failed() const { return failed_; }
  int done_before() const { return done_before_; }
  // The signal that stopped the sweep, "" when none did.
  const std::string& interrupted() const { return interrupted_; }
  // The run that lost a node and stopped the sweep, "" when none did.
  const std::string& lost_node() const { return lost_node_; }

 private:
  // Run i; false when a signal stopped it.
  bool RunOne(size_t i, const std::string& run_dir);
  // Run i's dataset made first, once in the sweep (prepare: datagen): true
  // when it is there (or the run needs none).
  bool Prepare(size_t i, const SweepRunTarget& run);

  const SweepPlan& plan_;
  const std::string dir_;
  RunFn run_;
  InterruptedFn signal_;
  std::optional<Fleet> fleet_;
  std::unique_ptr<HealthServer> health_;
  std::unique_ptr<LocalNodeClient> local_;
  std::map<std::string, bool> prepared_;  // by dataset: made or found
  int failed_ = 0, done_before_ = 0;
  std::string interrupted_;
  std::string lost_node_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_SWEEP_SWEEP_RUNS_H_
