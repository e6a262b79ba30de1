// What a ckptbench process's exit status says, one meaning each, so that a
// scheduler can act on it (a Kubernetes Job's podFailurePolicy: restart on
// 3, stop on 1 or 2). The coordinator tells its nodes which one the run
// ended with (Shutdown.exit_code), and they exit with the same.
#ifndef CKPTBENCH_COMMON_EXIT_CODE_H_
#define CKPTBENCH_COMMON_EXIT_CODE_H_

namespace ckpt {

enum class ExitCode : int {
  kOk = 0,
  // The run started and failed: storage, the network to it, a node's own
  // error. Running it again as it is would fail the same way.
  kFailed = 1,
  // Input to fix (configuration, a path, credentials, a plan), found
  // before any round.
  kBadInput = 2,
  // Interrupted (a signal: preemption, eviction, Ctrl-C) or a peer lost
  // (a node that disconnected or went silent, the coordinator gone): the
  // same run on a new set of pods may finish.
  kInterrupted = 3,
};

inline int ToInt(ExitCode c) { return static_cast<int>(c); }

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_EXIT_CODE_H_
