// The signal watcher: SIGINT, SIGTERM and SIGHUP turned into a clean
// abort of whatever work watches, with a grace period after which the
// process exits anyway.
#ifndef CKPTBENCH_MAIN_SIGNAL_WATCHER_H_
#define CKPTBENCH_MAIN_SIGNAL_WATCHER_H_

#include <signal.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "coordinator/fleet.h"

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

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_SIGNAL_WATCHER_H_
