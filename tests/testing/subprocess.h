// Runs a program with a given environment (nothing inherited but PATH)
// and captures its exit code, stdout and stderr.
#ifndef CKPTBENCH_TESTS_TESTING_SUBPROCESS_H_
#define CKPTBENCH_TESTS_TESTING_SUBPROCESS_H_

#include <map>
#include <string>
#include <vector>

namespace ckpt {

struct ProcessResult {
  int exit_code = -1;
  std::string out, err;
};

// With signal_after_ms > 0, sends `sig` to the process after that delay.
ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         int signal_after_ms = 0, int sig = 0);

// A process running in the background; its output goes to files that can
// be read while it runs. Killed (SIGKILL) and reaped on destruction.
class Process {
 public:
  Process(const std::vector<std::string>& argv,
          const std::map<std::string, std::string>& env);
  ~Process();
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;

  int pid() const { return pid_; }
  void Signal(int sig);
  // Waits up to timeout_seconds (times kDeadlineScale, tests/testing/
  // timing.h); exit code, or -1 if still running.
  int Wait(double timeout_seconds);
  std::string Out() const;
  std::string Err() const;
  // Polls stderr (and stdout) until `text` appears; false on timeout
  // (scaled as Wait's).
  bool WaitForOutput(const std::string& text, double timeout_seconds) const;

 private:
  int pid_ = -1;
  int exit_code_ = -1;
  std::string out_path_, err_path_;
};

// The first of `count` consecutive TCP ports on 127.0.0.1 that were free a
// moment ago, picked at random below the kernel's ephemeral range
// (32768-60999 here) so that no outgoing connection can take one of them
// before the server that is meant to binds it.
int FreePorts(int count);
inline int FreePort() { return FreePorts(1); }

// The ckptbench binary under test ($CKPTBENCH_BIN, set by CTest).
std::string CkptbenchBinary();

// `ckptbench ARGS...`, the binary under test, with only `env`.
ProcessResult RunCkptbench(std::vector<std::string> args,
                           const std::map<std::string, std::string>& env);

std::string ReadFile(const std::string& path);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_SUBPROCESS_H_
