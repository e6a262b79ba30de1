// What `run` and `coordinator` share: loading and validating the
// configuration and plan, the signal watcher that turns SIGINT/SIGTERM into
// a clean abort, running the coordinator, and writing result.json and the
// summary table.
#ifndef CKPTBENCH_MAIN_RUN_SUPPORT_H_
#define CKPTBENCH_MAIN_RUN_SUPPORT_H_

#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/config_loader.h"
#include "common/plan.h"
#include "coordinator/coordinator.h"
#include "coordinator/results.h"
#include "main/cli.h"

namespace ckpt {

// Takes SIGINT, SIGTERM and SIGHUP on a thread of its own (sigwait), and
// ignores SIGPIPE. Construct it before any other thread exists so every
// thread inherits the blocked mask. A signal no `on_signal` takes within
// InterruptWatchdog::kGraceSeconds (the process is blocked before its
// rounds: a FIFO, a mount that stopped answering), or a second one, ends
// the process with exit code 1.
class SignalWatcher {
 public:
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;
  // `on_signal` (may be empty) runs on the watcher thread with "SIGINT" or
  // "SIGTERM". A signal that arrived while nothing was watched is delivered
  // to the next `on_signal` at once, so it is never lost.
  void Watch(std::function<void(const std::string&)> on_signal);
  // The name of a signal received and not yet delivered ("" if none).
  std::string Pending();
  // The same, taken: it is no longer pending (what took it stops the
  // process's work itself).
  std::string Take();
  // The first signal received since construction, delivered or not.
  std::string Received();

 private:
  sigset_t set_;
  std::mutex mu_;
  std::function<void(const std::string&)> on_signal_;
  std::string pending_;
  std::string received_;
  std::thread thread_;
};

// Ends a run that a signal did not end: armed by the first SIGINT or
// SIGTERM, it gives the run `grace_seconds` to stop (abort the round in
// flight, clean up, write its results); if the run is still going then,
// or at a second signal, it calls `expire` (which writes what was
// measured) and ends the process with exit code 1, whatever the run's
// threads are blocked in (a FUSE mount that stopped answering, a system
// call that cannot be interrupted). Thread-safe.
class InterruptWatchdog {
 public:
  using Expire = std::function<void(const std::string& signal, double waited)>;
  static constexpr double kGraceSeconds = 5;
  explicit InterruptWatchdog(Expire expire,
                             double grace_seconds = kGraceSeconds);
  ~InterruptWatchdog();
  InterruptWatchdog(const InterruptWatchdog&) = delete;
  InterruptWatchdog& operator=(const InterruptWatchdog&) = delete;
  // A signal arrived (from the signal thread).
  void Signal(const std::string& name);
  // The run returned: nothing to end. If the watchdog already began to,
  // never returns (the process ends).
  void RunEnded();

 private:
  void Wait();
  void ExpireOnce(const std::string& name);
  Expire expire_;
  const double grace_seconds_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool ended_ = false, expired_ = false;
  std::string signal_;
  std::chrono::steady_clock::time_point start_;
  std::thread thread_;
};

// Config sources from --config and key=value overrides.
LoadOptions LoadOptionsFromArgs(const CliArgs& args);
// Config from --config, the environment and key=value overrides.
absl::StatusOr<LoadedConfig> LoadConfigFromArgs(const CliArgs& args);

struct RunSetup {
  LoadedConfig loaded;
  CheckpointPlan plan;
  RunResult result;
};

// Loads config (sources per `args`), validates it and plans. Returns 0 and
// fills `setup`, or prints the error, writes a failed result and returns
// the exit code (2).
int PrepareRun(const CliArgs& args, RunSetup* setup);
// Refuses (before any round) a results directory that holds a result.json
// unless `overwrite`, or that cannot be created or written.
absl::Status CheckResultsDir(const std::string& dir, bool overwrite);

// The same from explicit sources; the result goes to `results_dir`.
int PrepareRun(const LoadOptions& options, const std::string& results_dir,
               RunSetup* setup);

// Records a failure before or outside the rounds, writes the result,
// returns `code`. An object-store results_dir is written by node 0 through
// `via`; without it (no nodes yet) the result goes to a new file in the
// working directory.
int FailRun(const std::string& results_dir, RunResult* result,
            const std::string& error, int code, Coordinator* via = nullptr);

// Preflight, run, DIR/result.json, summary table. Returns the exit code.
// An object-store DIR is checked (before any round, unless `overwrite`) and
// written by node 0.
int ExecuteRun(const std::string& results_dir, Coordinator& coordinator,
               SignalWatcher& signals, RunResult* result,
               bool overwrite = false);

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_RUN_SUPPORT_H_
