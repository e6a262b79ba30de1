// Coordination overhead of a multinode round, without storage: node agents
// (threads of this process, each with its own gRPC session to a real
// coordinator server on loopback) save to null:// storage. Overhead per
// round = round time (coordinator: common start -> last report + commit)
// minus the slowest node's own time (its monotonic start -> its last rank
// done). Aim: under 5 ms at 64 nodes.
//   build/bench/coordination_bench [rounds=20] [nodes=4,16,64]
#include <algorithm>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "common/config.h"
#include "common/grpc_tls.h"
#include "common/log.h"
#include "coordinator/clock_sync.h"
#include "coordinator/coordinator.h"
#include "coordinator/session_server.h"
#include "node/node_session.h"

namespace ckpt {
namespace {

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int RunOnce(int nodes, int rounds) {
  Config config;
  config.storage.path = "null://bench";
  config.cluster.num_nodes = nodes;
  config.cluster.num_devices = "1";
  config.run.mode = "save-only";
  config.run.num_save_calls = rounds;
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
  std::vector<std::thread> agents;
  for (int i = 0; i < nodes; ++i) {
    agents.emplace_back([&, i] {
      NodeSessionOptions o;
      o.coordinator = "127.0.0.1:" + std::to_string((*server)->port());
      o.node_index = i;
      o.host = "agent-" + std::to_string(i);
      o.credentials = grpc::InsecureChannelCredentials();
      o.connect_timeout = 30;
      (void)RunNodeSession(o);
    });
  }
  auto registered = (*server)->WaitForNodes(60);
  if (!registered.ok()) return 1;
  for (auto* n : *registered) {
    auto est = EstimateClock(*n);
    if (est.ok()) n->SetClock(est->offset_ns, est->rtt_seconds);
  }
  std::vector<NodeClient*> clients(registered->begin(), registered->end());
  Coordinator coordinator(config, plan, clients, nullptr, "bench");
  RunResult result;
  absl::Status s = coordinator.Preflight(&result);
  if (s.ok()) s = coordinator.Run(&result);
  (*server)->Shutdown(s.ok(), "");
  for (auto& t : agents) t.join();
  if (!s.ok()) {
    std::fprintf(stderr, "run failed: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::vector<double> overhead, round, spread, commit, lag;
  for (const auto& r : result.rounds) {
    double slowest = 0;
    for (const auto& n : r.nodes) slowest = std::max(slowest, n.seconds);
    overhead.push_back((r.seconds - slowest) * 1e3);
    round.push_back(r.seconds * 1e3);
    spread.push_back(r.start_spread_seconds * 1e3);
    commit.push_back(r.commit_seconds * 1e3);
    double max_lag = 0;
    for (const auto& n : r.nodes)
      max_lag = std::max(max_lag, n.start_lag_seconds);
    lag.push_back(max_lag * 1e3);
  }
  std::printf("%5d %6d %10.2f %8.2f %8.2f %12.2f %12.2f %10.2f %10.2f\n", nodes,
              rounds, Quantile(overhead, 0.5), Quantile(overhead, 0.9),
              Quantile(overhead, 1.0), Quantile(round, 0.5),
              Quantile(spread, 0.5), Quantile(lag, 0.5), Quantile(commit, 0.5));
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace ckpt

int main(int argc, char** argv) {
  ckpt::SetLogLevel(ckpt::LogLevel::kError);
  int rounds = 20;
  std::vector<int> sizes = {4, 16, 64};
  if (argc > 1) (void)absl::SimpleAtoi(argv[1], &rounds);
  if (argc > 2) {
    sizes.clear();
    for (auto part : absl::StrSplit(argv[2], ',')) {
      int n = 0;
      if (absl::SimpleAtoi(part, &n) && n > 0) sizes.push_back(n);
    }
  }
  std::printf(
      "coordination overhead per save round, null:// storage, loopback gRPC\n");
  std::printf("%5s %6s %10s %8s %8s %12s %12s %10s %10s\n", "nodes", "rounds",
              "p50 ms", "p90 ms", "max ms", "round p50 ms", "spread p50 ms",
              "lag p50 ms", "commit p50");
  for (int n : sizes) {
    if (ckpt::RunOnce(n, rounds) != 0) return 1;
  }
  return 0;
}
