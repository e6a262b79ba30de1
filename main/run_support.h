// What `run` and `coordinator` share: loading and validating the
// configuration and plan, the signal watcher that turns SIGINT/SIGTERM into
// a clean abort, running the coordinator, and writing result.json and the
// summary table.
#ifndef CKPTBENCH_MAIN_RUN_SUPPORT_H_
#define CKPTBENCH_MAIN_RUN_SUPPORT_H_

#include <signal.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "common/config_loader.h"
#include "common/plan.h"
#include "coordinator/coordinator.h"
#include "coordinator/fleet.h"
#include "coordinator/results.h"
#include "main/cli.h"

namespace ckpt {

// Takes SIGINT, SIGTERM and SIGHUP on a thread of its own (sigwait), and
// ignores SIGPIPE. Construct it before any other thread exists so every
// thread inherits the blocked mask.
// A signal ends the process within kGraceSeconds whatever its threads are
// blocked in (a FIFO, a FUSE mount that stopped answering, a system call
// no signal ends): from the first signal, the work it interrupts has that
// long to end (whoever took it calls Watch again, or Take); if it has not,
// or at a second signal, the `on_expire` watching then runs (it writes what
// was measured) and the process exits with code 3 (ExitCode::kInterrupted).
// Thread-safe.
class SignalWatcher {
 public:
  using OnSignal = std::function<void(const std::string& signal)>;
  // `again`: a second signal ended the wait (`signal` is the second's,
  // `waited` the seconds since the first), not the grace period.
  using OnExpire =
      std::function<void(const std::string& signal, double waited, bool again)>;
  static constexpr double kGraceSeconds = 5;
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;
  // `on_signal` (may be empty) runs on the watcher thread with "SIGINT",
  // "SIGTERM" or "SIGHUP". A signal that arrived while nothing was watched
  // is delivered to the next `on_signal` at once, so it is never lost.
  // Watching anew ends the grace period of a signal already delivered.
  void Watch(OnSignal on_signal, OnExpire on_expire = nullptr);
  // The name of a signal received and not yet delivered ("" if none).
  std::string Pending();
  // The same, taken: it is no longer pending, and its grace period ends
  // (what took it stops the process's work itself).
  std::string Take();
  // The first signal received since construction, delivered or not.
  std::string Received();

 private:
  void Loop();
  // Runs on_expire_ (or says why) and ends the process; mu_ held.
  [[noreturn]] void ExpireLocked(const std::string& name, bool again);
  sigset_t set_;
  std::mutex mu_;
  OnSignal on_signal_;
  OnExpire on_expire_;
  std::string pending_;
  std::string received_;
  // The signal whose grace period runs ("" none), since when, and whether
  // it reached an on_signal.
  std::string waiting_;
  std::chrono::steady_clock::time_point since_;
  bool delivered_ = false;
  std::thread thread_;
};

// The fleet's interrupt hook (coordinator/fleet.h) on `signals`.
inline WatchInterrupts WatchWith(SignalWatcher& signals) {
  return [&signals](SignalWatcher::OnSignal on_signal) {
    signals.Watch(std::move(on_signal));
  };
}

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

// Preflight, run, DIR/result.json, summary table. Returns the exit code:
// 0, 1 (a failed run: Coordinator::FailureCode), 2 (bad input), 3
// (interrupted, or a node lost: Coordinator::FailureCode).
// An object-store DIR is checked (before any round, unless `overwrite`) and
// written by node 0.
int ExecuteRun(const std::string& results_dir, Coordinator& coordinator,
               SignalWatcher& signals, RunResult* result,
               bool overwrite = false);

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_RUN_SUPPORT_H_
