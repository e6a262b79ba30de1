#include "tests/testing/subprocess.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

#include "tests/testing/timing.h"

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

ProcessResult RunCkptbench(std::vector<std::string> args,
                           const std::map<std::string, std::string>& env) {
  args.insert(args.begin(), CkptbenchBinary());
  return RunProcess(args, env);
}

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env,
                         int signal_after_ms, int sig) {
  Process p(argv, env);
  if (signal_after_ms > 0) {
    usleep(static_cast<useconds_t>(signal_after_ms) * 1000);
    p.Signal(sig);
  }
  ProcessResult r;
  r.exit_code = p.Wait(3600);
  r.out = p.Out();
  r.err = p.Err();
  return r;
}

namespace {
std::vector<char*> Argv(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  return args;
}
}  // namespace

Process::Process(const std::vector<std::string>& argv,
                 const std::map<std::string, std::string>& env) {
  char out_name[] = "/tmp/ckptbench-pout-XXXXXX";
  char err_name[] = "/tmp/ckptbench-perr-XXXXXX";
  int out_fd = mkstemp(out_name);
  int err_fd = mkstemp(err_name);
  out_path_ = out_name;
  err_path_ = err_name;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
  posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
  std::vector<std::string> env_strings;
  // PATH, and the sanitizers' settings (suppressions, halt_on_error) so a
  // sanitized child runs under the same rules as the test, unless the
  // caller gives the child its own.
  for (const char* name : {"PATH", "TSAN_OPTIONS", "ASAN_OPTIONS",
                           "UBSAN_OPTIONS", "LSAN_OPTIONS"}) {
    if (env.count(name) != 0) continue;
    if (const char* v = std::getenv(name)) {
      env_strings.push_back(std::string(name) + "=" + v);
    }
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : env_strings) envp.push_back(e.data());
  envp.push_back(nullptr);
  auto args = Argv(argv);
  pid_t pid;
  if (posix_spawn(&pid, args[0], &fa, nullptr, args.data(), envp.data()) == 0)
    pid_ = pid;
  posix_spawn_file_actions_destroy(&fa);
  close(out_fd);
  close(err_fd);
}

Process::~Process() {
  if (pid_ > 0 && exit_code_ < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  unlink(out_path_.c_str());
  unlink(err_path_.c_str());
}

void Process::Signal(int sig) {
  if (pid_ > 0 && exit_code_ < 0) kill(pid_, sig);
}

int Process::Wait(double timeout_seconds) {
  if (exit_code_ >= 0 || pid_ <= 0) return exit_code_;
  timeout_seconds *= kDeadlineScale;
  for (double waited = 0;; waited += 0.02) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) {
      exit_code_ =
          WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return exit_code_;
    }
    if (waited >= timeout_seconds) return -1;
    usleep(20000);
  }
}

std::string Process::Out() const { return ReadFile(out_path_); }
std::string Process::Err() const { return ReadFile(err_path_); }

bool Process::WaitForOutput(const std::string& text,
                            double timeout_seconds) const {
  timeout_seconds *= kDeadlineScale;
  for (double waited = 0; waited < timeout_seconds; waited += 0.05) {
    if (Err().find(text) != std::string::npos ||
        Out().find(text) != std::string::npos) {
      return true;
    }
    usleep(50000);
  }
  return false;
}

namespace {

bool CanBind(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

}  // namespace

int FreePorts(int count) {
  constexpr int kLow = 20000, kHigh = 32000;  // below the ephemeral range
  static std::mt19937 rng(std::random_device{}() ^
                          static_cast<unsigned>(getpid()));
  std::uniform_int_distribution<int> pick(kLow, kHigh - count);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    int base = pick(rng);
    bool all = true;
    for (int i = 0; i < count && all; ++i) all = CanBind(base + i);
    if (all) return base;
  }
  return -1;
}

}  // namespace ckpt
