#include "tests/testing/subprocess.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ckpt {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string CkptbenchBinary() {
  const char* b = std::getenv("CKPTBENCH_BIN");
  return b ? b : "build/ckptbench";
}

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         int signal_after_ms, int sig) {
  char out_name[] = "/tmp/ckptbench-out-XXXXXX";
  char err_name[] = "/tmp/ckptbench-err-XXXXXX";
  int out_fd = mkstemp(out_name);
  int err_fd = mkstemp(err_name);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_strings;
  if (const char* path = std::getenv("PATH"))
    env_strings.push_back(std::string("PATH=") + path);
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  ProcessResult r;
  pid_t pid;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data()) == 0) {
    int status = 0;
    if (signal_after_ms > 0) {
      usleep(static_cast<useconds_t>(signal_after_ms) * 1000);
      kill(pid, sig);
    }
    waitpid(pid, &status, 0);
    r.exit_code =
        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&fa);
  close(out_fd);
  close(err_fd);
  r.out = ReadFile(out_name);
  r.err = ReadFile(err_name);
  unlink(out_name);
  unlink(err_name);
  return r;
}

}  // namespace ckpt
