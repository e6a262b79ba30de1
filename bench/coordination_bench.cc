// Coordination overhead of a multinode round, without storage: node agents
// save 64 KiB each to null:// storage over their own gRPC sessions to a
// real coordinator on loopback. The agents run as threads of a child
// process of this one (or of several: --agents-per-process=K), so this
// process is the coordinator alone: its peak RSS and its CPU time per round
// are the coordinator's. On 2 cores one child is the fairest packing: each
// extra process brings its own gRPC threads to wake and switch between.
// Per round:
//   overhead = round time (coordinator: common start -> last report +
//              commit) minus the slowest node's own time (its start -> its
//              last rank done); includes the nodes' start lag;
//   after    = round time minus the last instant a node finished (its lag +
//              its time): what the coordinator adds after the last byte
//              (collecting reports, the commit);
//   lag      = the latest node's start after the common instant. Here all
//              agents wake at once on this machine's cores, so it grows
//              with the agents' own CPU work; real nodes each have theirs.
//   offset   = the largest clock offset estimated for a node, in us: all
//              agents share this host's clock, so it is the estimate's error
//              (a node started that much early or late).
//   threads  = this process's most threads during the rounds (the sampler
//              itself left out): the coordinator serves nodes with gRPC's
//              callback API, so it must not grow with the node count.
//   agents CPU = the agents' processes' CPU per round (/proc/PID/stat);
//   busy     = the coordinator's and agents' CPU over the run's wall time
//              (its rounds with their untimed steps) times the cores: near
//              100% the machine, not the coordinator, sets the figures
//              (they share the cores).
//   build/bench/coordination_bench [rounds=20] [nodes=4,16,64]
//       [--agents-per-process=K (default: all in one)]
//       [--max-coordinator-threads=T: fail (exit 3) if threads > T + 2 per
//        CPU core (gRPC's pollers and executor grow with cores)]
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/config.h"
#include "common/cpu_usage.h"
#include "common/grpc_tls.h"
#include "common/log.h"
#include "coordinator/checkpoint/checkpoint_run.h"
#include "coordinator/coordinator.h"
#include "coordinator/round/clock_sync.h"
#include "coordinator/session_server.h"
#include "node/node_session.h"

extern char** environ;

namespace ckpt {
namespace {

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// A number field of /proc/self/status ("VmHWM:", "Threads:"), without
// its unit; 0 when absent.
double StatusField(const char* field) {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (absl::StartsWith(line, field)) {
      double v = 0;
      (void)absl::SimpleAtod(absl::StripAsciiWhitespace(absl::StripSuffix(
                                 absl::StripPrefix(line, field), "kB")),
                             &v);
      return v;
    }
  }
  return 0;
}

// The peak resident memory of this process so far (VmHWM), in MiB.
double PeakRssMib() { return StatusField("VmHWM:") / 1024; }

// The number of threads of this process now.
int ThreadCount() { return static_cast<int>(StatusField("Threads:")); }

// User + system CPU seconds of the processes so far (/proc/PID/stat fields
// 14 and 15, after the command's closing parenthesis); 0 for one gone.
double ProcessesCpuSeconds(const std::vector<pid_t>& pids) {
  double ticks = 0;
  for (pid_t pid : pids) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    const size_t paren = line.rfind(')');
    if (paren == std::string::npos) continue;
    std::vector<std::string> f =
        absl::StrSplit(line.substr(paren + 2), ' ', absl::SkipEmpty());
    double user = 0, sys = 0;  // fields 14, 15: f[11], f[12] after state
    if (f.size() > 12 && absl::SimpleAtod(f[11], &user) &&
        absl::SimpleAtod(f[12], &sys)) {
      ticks += user + sys;
    }
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// Samples ThreadCount every 10 ms from construction to Stop; Peak leaves the
// sampler's own thread out.
class ThreadPeak {
 public:
  ThreadPeak()
      : thread_([this] {
          std::unique_lock<std::mutex> lock(mu_);
          while (!stop_) {
            peak_ = std::max(peak_, ThreadCount() - 1);
            cv_.wait_for(lock, std::chrono::milliseconds(10));
          }
        }) {}
  ~ThreadPeak() { Stop(); }
  int Stop() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    return peak_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  int peak_ = 0;
  std::thread thread_;
};

// Agent mode: `count` node agents, indexes first.., as threads of this
// process, until the coordinator ends the run.
int RunAgents(const std::string& address, int first, int count) {
  std::vector<std::thread> agents;
  for (int i = first; i < first + count; ++i) {
    agents.emplace_back([&address, i] {
      NodeSessionOptions o;
      o.coordinator = address;
      o.node_index = i;
      o.host = "agent-" + std::to_string(i);
      o.credentials = grpc::InsecureChannelCredentials();
      o.connect_timeout = 30;
      (void)RunNodeSession(o);
    });
  }
  for (auto& t : agents) t.join();
  return 0;
}

int RunOnce(const std::string& self, int nodes, int rounds, int per_process,
            int max_threads) {
  Config config;
  config.storage.path = "null://bench";
  config.cluster.num_nodes = nodes;
  config.cluster.num_devices = "1";
  CheckpointOf(config).mode = RunMode::kSaveOnly;
  CheckpointOf(config).num_save_calls = rounds;
  config.io.block_size = 1 << 20;
  config.control.node_timeout = 30;
  // A tiny plan (64 KiB per rank, one tensor) so the agents' own data work
  // does not contend for this machine's 2 cores: what is left is
  // coordination.
  CheckpointPlan plan;
  plan.model = "bench";
  plan.num_nodes = nodes;
  plan.ranks_per_node = 1;
  plan.world_size = nodes;
  plan.sharding = "bench";
  plan.fingerprint = "bench";
  const uint64_t per_rank = 64 * 1024;
  plan.tensors.push_back(
      {"w", "fp32", 4, {per_rank / 4 * static_cast<uint64_t>(nodes)}});
  for (int r = 0; r < nodes; ++r) {
    RankPlan rp;
    rp.rank = static_cast<uint32_t>(r);
    rp.node = static_cast<uint32_t>(r);
    rp.bytes = per_rank;
    FilePlan f;
    f.name = ShardFileName(rp.rank, 0);
    f.size = per_rank;
    f.segments.push_back({0, per_rank * static_cast<uint64_t>(r), per_rank, 0});
    rp.files.push_back(f);
    plan.ranks.push_back(rp);
    plan.total_bytes += per_rank;
  }

  SessionServerOptions so;
  so.listen = "127.0.0.1:0";
  so.tls.credentials = grpc::InsecureServerCredentials();
  so.num_nodes = nodes;
  so.node_timeout = 30;
  so.heartbeat_interval = 1;
  so.run_id = "bench";
  auto server = SessionServer::Start(so);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n",
                 std::string(server.status().message()).c_str());
    return 1;
  }
  const std::string address = "127.0.0.1:" + std::to_string((*server)->port());
  if (per_process == 0) per_process = nodes;
  std::vector<pid_t> children;
  for (int first = 0; first < nodes; first += per_process) {
    const int count = std::min(per_process, nodes - first);
    std::vector<std::string> args = {self, "--agents", address,
                                     std::to_string(first),
                                     std::to_string(count)};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(),
                    environ) != 0) {
      std::perror("posix_spawn");
      return 1;
    }
    children.push_back(pid);
  }
  auto reap = [&children] {
    for (pid_t pid : children) waitpid(pid, nullptr, 0);
  };
  // Says why, ends the agents and waits for them.
  auto fail = [&](const absl::Status& status) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    (*server)->Shutdown(ExitCode::kFailed, "bench failed");
    reap();
    return 1;
  };
  auto registered = (*server)->WaitForNodes(60);
  if (!registered.ok()) return fail(registered.status());
  // One host: every true offset is 0, so what is estimated is its error.
  double worst_offset_us = 0;
  for (auto* n : *registered) {
    auto est = EstimateClock(*n);
    if (!est.ok()) continue;
    n->SetClock(est->offset_ns, est->rtt_seconds);
    worst_offset_us = std::max(
        worst_offset_us, std::abs(static_cast<double>(est->offset_ns)) / 1e3);
  }
  std::vector<NodeClient*> clients(registered->begin(), registered->end());
  // The checkpoint's run with the tiny plan, as a workload of its own.
  auto registry = WorkloadRegistry::BuiltIn().With(RunWorkloadEntry(
      "checkpoint-bench",
      [plan] { return std::make_unique<CheckpointRun>(plan); }));
  if (!registry.ok()) return fail(registry.status());
  config.run.workload = "checkpoint-bench";
  Coordinator coordinator(config, clients, nullptr, "bench", *registry);
  RunResult result;
  absl::Status s = coordinator.Preflight(&result);
  const CpuSample cpu0 = SampleCpu();
  const double agents0 = ProcessesCpuSeconds(children);
  const auto wall0 = std::chrono::steady_clock::now();
  ThreadPeak threads;
  if (s.ok()) s = coordinator.Run(&result);
  const int peak_threads = threads.Stop();
  const CpuDelta cpu = CpuBetween(cpu0, SampleCpu());
  const double agents_cpu = ProcessesCpuSeconds(children) - agents0;
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0)
          .count();
  (*server)->Shutdown(s.ok() ? ExitCode::kOk : ExitCode::kFailed, "");
  reap();
  if (!s.ok()) {
    std::fprintf(stderr, "run failed: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::vector<double> overhead, after, round, spread, commit, lag;
  for (const auto& r : result.rounds) {
    double slowest = 0, last_done = 0, max_lag = 0;
    for (const auto& n : r.nodes) {
      slowest = std::max(slowest, n.seconds);
      last_done = std::max(last_done, n.start_lag_seconds + n.seconds);
      max_lag = std::max(max_lag, n.start_lag_seconds);
    }
    overhead.push_back((r.seconds - slowest) * 1e3);
    after.push_back((r.seconds - last_done) * 1e3);
    round.push_back(r.seconds * 1e3);
    spread.push_back(r.start_spread_seconds * 1e3);
    commit.push_back(r.commit_seconds * 1e3);
    lag.push_back(max_lag * 1e3);
  }
  const double per_round =
      1e3 / static_cast<double>(std::max<size_t>(1, result.rounds.size()));
  const double coord_cpu = cpu.user_seconds + cpu.system_seconds;
  const double busy =
      100 * (coord_cpu + agents_cpu) / (wall * std::max(1, UsableCpus()));
  std::printf(
      "%5d %6d %10.2f %8.2f %8.2f %10.2f %10.2f %12.2f %12.2f %10.2f %10.2f "
      "%12.1f %10.2f %8d %10.1f %12.1f %6.0f%%\n",
      nodes, rounds, Quantile(overhead, 0.5), Quantile(overhead, 0.9),
      Quantile(overhead, 1.0), Quantile(after, 0.5), Quantile(after, 0.9),
      Quantile(round, 0.5), Quantile(spread, 0.5), Quantile(lag, 0.5),
      Quantile(commit, 0.5), PeakRssMib(), coord_cpu * per_round, peak_threads,
      worst_offset_us, agents_cpu * per_round, busy);
  std::fflush(stdout);
  // gRPC's own pollers and executor grow with the cores, not the nodes.
  const int allowed =
      max_threads + 2 * static_cast<int>(std::thread::hardware_concurrency());
  if (max_threads > 0 && peak_threads > allowed) {
    std::fprintf(stderr,
                 "the coordinator ran %d threads with %d nodes; at most %d "
                 "expected (--max-coordinator-threads=%d + 2 per core): a "
                 "thread per node?\n",
                 peak_threads, nodes, allowed, max_threads);
    return 3;
  }
  return 0;
}

}  // namespace
}  // namespace ckpt

int main(int argc, char** argv) {
  ckpt::SetLogLevel(ckpt::LogLevel::kError);
  if (argc == 5 && std::strcmp(argv[1], "--agents") == 0) {
    int first = 0, count = 0;
    if (!absl::SimpleAtoi(argv[3], &first) ||
        !absl::SimpleAtoi(argv[4], &count)) {
      return 2;
    }
    return ckpt::RunAgents(argv[2], first, count);
  }
  int rounds = 20;
  int per_process = 0;  // all in one child
  int max_threads = 0;  // no limit
  std::vector<int> sizes = {4, 16, 64};
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    absl::string_view a = argv[i];
    if (absl::ConsumePrefix(&a, "--agents-per-process=")) {
      if (!absl::SimpleAtoi(a, &per_process) || per_process < 0) {
        std::fprintf(stderr,
                     "--agents-per-process=%s: expected a whole number (0: all "
                     "in one)\n",
                     std::string(a).c_str());
        return 2;
      }
    } else if (absl::ConsumePrefix(&a, "--max-coordinator-threads=")) {
      if (!absl::SimpleAtoi(a, &max_threads) || max_threads < 1) {
        std::fprintf(stderr,
                     "--max-coordinator-threads=%s: expected a whole number "
                     ">= 1\n",
                     std::string(a).c_str());
        return 2;
      }
    } else {
      positional.emplace_back(a);
    }
  }
  if (!positional.empty() && !absl::SimpleAtoi(positional[0], &rounds)) {
    std::fprintf(stderr, "rounds %s: expected a whole number\n",
                 positional[0].c_str());
    return 2;
  }
  if (positional.size() > 1) {
    sizes.clear();
    for (auto part : absl::StrSplit(positional[1], ',')) {
      int n = 0;
      if (!absl::SimpleAtoi(part, &n) || n < 1) {
        std::fprintf(stderr, "nodes %s: expected whole numbers >= 1\n",
                     positional[1].c_str());
        return 2;
      }
      sizes.push_back(n);
    }
  }
  char self[4096];
  ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (len <= 0) return 1;
  self[len] = 0;
  std::printf(
      "coordination overhead per save round, null:// storage, loopback gRPC, "
      "%s agents per process\n",
      per_process == 0 ? "all" : std::to_string(per_process).c_str());
  std::printf(
      "%5s %6s %10s %8s %8s %10s %10s %12s %12s %10s %10s %12s %10s %8s "
      "%10s %12s %7s\n",
      "nodes", "rounds", "p50 ms", "p90 ms", "max ms", "after p50", "after p90",
      "round p50 ms", "spread p50 ms", "lag p50 ms", "commit p50", "coord MiB",
      "coord CPU ms/round", "threads", "offset us", "agents CPU ms", "busy");
  for (int n : sizes) {
    int rc = ckpt::RunOnce(self, n, rounds, per_process, max_threads);
    if (rc != 0) return rc;
  }
  return 0;
}
