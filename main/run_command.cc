// `ckptbench run`: single node, coordinator and node agent in one process,
// talking through the same NodeClient interface as the multinode build.
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/config_loader.h"
#include "common/log.h"
#include "coordinator/coordinator.h"
#include "coordinator/environment.h"
#include "coordinator/json_codec.h"
#include "coordinator/local_node_client.h"
#include "coordinator/planner.h"
#include "coordinator/summary.h"
#include "main/commands.h"

namespace ckpt {
namespace {

void FillConfig(const LoadedConfig& loaded, RunResult* r) {
  for (const auto& k : ConfigKeys()) {
    ResolvedKey rk;
    rk.key = k.key;
    rk.env = k.env;
    rk.value = k.secret ? "<redacted>" : k.get(loaded.config);
    auto it = loaded.sources.find(k.key);
    rk.source = it == loaded.sources.end() ? "default" : it->second;
    r->config.push_back(rk);
  }
}

void FillPlan(const CheckpointPlan& p, RunResult* r) {
  r->model = p.model;
  r->model_description = p.description;
  r->sharding = p.sharding;
  r->fingerprint = p.fingerprint;
  r->parameters = p.parameters;
  r->checkpoint_bytes = p.total_bytes;
  r->world_size = p.world_size;
  r->num_nodes = p.num_nodes;
  r->ranks_per_node = p.ranks_per_node;
  r->thread_count = p.thread_count;
  r->files = p.FileCount();
  for (const auto& n : p.notes) r->notes.push_back(n);
}

// Writes DIR/result.json; returns false (and says why) on failure.
bool WriteResult(const std::string& dir, const RunResult& r,
                 bool announce = true) {
  if (dir.empty()) return true;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string path = dir + "/result.json";
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << ResultToJson(r);
    if (!out) {
      LOG_ERROR("cannot write %s", tmp);
      return false;
    }
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    LOG_ERROR("cannot write %s: %s", path, ec.message());
    return false;
  }
  if (announce) LOG_INFO("results: %s", path);
  return true;
}

int Fail(const std::string& dir, RunResult* r, const std::string& error,
         int code) {
  std::fprintf(stderr, "ckptbench: %s\n", error.c_str());
  r->status = "failed";
  r->errors.push_back(error);
  r->finished_at = UtcNowIso8601();
  WriteResult(dir, *r, /*announce=*/false);
  return code;
}

}  // namespace

// SIGINT / SIGTERM are taken by a thread of ours (sigwait) that interrupts
// the coordinator: the round in flight fails, results are still written.
class SignalWatcher {
 public:
  SignalWatcher() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    sigaddset(&set_, SIGUSR1);  // our own wake-up at the end
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this] {
      int sig = 0;
      while (sigwait(&set_, &sig) == 0) {
        if (sig == SIGUSR1) return;
        std::lock_guard<std::mutex> lock(mu_);
        if (target_ == nullptr) continue;
        const char* name = sig == SIGINT ? "SIGINT" : "SIGTERM";
        std::fprintf(stderr, "\nckptbench: %s: aborting the run\n", name);
        target_->Interrupt(absl::StrCat("interrupted by ", name));
      }
    });
  }
  ~SignalWatcher() {
    Watch(nullptr);
    pthread_kill(thread_.native_handle(), SIGUSR1);
    thread_.join();
  }
  void Watch(Coordinator* c) {
    std::lock_guard<std::mutex> lock(mu_);
    target_ = c;
  }

 private:
  sigset_t set_;
  std::mutex mu_;
  Coordinator* target_ = nullptr;
  std::thread thread_;
};

int RunCommand(const CliArgs& args) {
  SignalWatcher signals;  // first, before any other thread exists
  RunResult result;
  result.started_at = UtcNowIso8601();
  result.environment = ProbeHost();
  result.environment.version = CKPTBENCH_VERSION;

  LoadOptions opts;
  opts.yaml_path = args.config_path;
  opts.overrides = args.overrides;
  auto loaded = LoadConfig(opts);
  if (!loaded.ok()) {
    return Fail(args.results_dir, &result,
                std::string(loaded.status().message()), 2);
  }
  FillConfig(*loaded, &result);
  const Config& config = loaded->config;
  if (auto s = ValidateConfig(config, /*need_storage=*/true); !s.ok()) {
    return Fail(args.results_dir, &result, std::string(s.message()), 2);
  }
  if (config.cluster.num_nodes != 1) {
    return Fail(args.results_dir, &result,
                absl::StrCat("cluster.num_nodes (NUM_NODES) = ",
                             config.cluster.num_nodes,
                             ": `ckptbench run` is single-node; expected 1"),
                2);
  }
  auto plan = MakePlan(PlanOptionsFromConfig(config));
  if (!plan.ok())
    return Fail(args.results_dir, &result, std::string(plan.status().message()),
                2);
  FillPlan(*plan, &result);

  LocalNodeClient node(0, HostName(), config.run.progress_interval);
  std::unique_ptr<ProgressPrinter> progress;
  if (!args.quiet) {
    progress = std::make_unique<ProgressPrinter>(config.run.progress_interval,
                                                 isatty(STDERR_FILENO) != 0);
  }
  Coordinator coordinator(config, *plan, {&node}, progress.get());
  if (auto s = coordinator.Preflight(&result); !s.ok()) {
    return Fail(args.results_dir, &result, std::string(s.message()), 2);
  }
  LOG_INFO(
      "run %s: %s, %s per checkpoint, %d rank(s), %d save + %d load round(s)",
      result.run_id, plan->model, FormatBytes(plan->total_bytes),
      plan->world_size, config.DoSave() ? config.run.num_save_calls : 0,
      config.DoLoad() ? config.run.num_load_calls : 0);
  signals.Watch(&coordinator);
  absl::Status status = coordinator.Run(&result);
  signals.Watch(nullptr);
  for (const auto& round : result.rounds) {
    if (!round.nodes.empty() && result.environment.filesystem.empty()) {
      result.environment.storage_kind =
          round.nodes[0].filesystem == "memory" ? "memory" : "posix";
      result.environment.filesystem = round.nodes[0].filesystem;
      result.environment.mount_point = round.nodes[0].mount_point;
      result.environment.mount_options = round.nodes[0].mount_options;
    }
  }
  result.finished_at = UtcNowIso8601();
  if (!status.ok()) {
    result.status = "failed";
    result.errors.push_back(std::string(status.message()));
  }
  bool wrote = WriteResult(args.results_dir, result);
  std::fputs(SummaryTable(result).c_str(), stdout);
  std::fflush(stdout);
  if (!status.ok()) {
    std::fprintf(stderr, "ckptbench: %s\n",
                 std::string(status.message()).c_str());
    return 1;
  }
  return wrote ? 0 : 1;
}

}  // namespace ckpt
