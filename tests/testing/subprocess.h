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

// The ckptbench binary under test ($CKPTBENCH_BIN, set by CTest).
std::string CkptbenchBinary();

std::string ReadFile(const std::string& path);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_SUBPROCESS_H_
