// A coordinator and node processes on loopback: a whole run, registration
// rules, node-local storage, and the health endpoints.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "absl/strings/str_format.h"
#include "testing/proto/grpc/health/v1/health.grpc.pb.h"
#include "tests/testing/chromium.h"
#include "tests/testing/cluster.h"
#include "tests/testing/health_probe.h"
#include "tests/testing/result_files.h"

namespace ckpt {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

json ReadJson(const std::string& path) { return json::parse(ReadFile(path)); }

TEST(Multinode, FourNodesStartedBeforeTheCoordinatorRunTheRounds) {
  Cluster c;
  std::vector<std::unique_ptr<Process>> nodes;
  for (int i = 0; i < 4; ++i) nodes.push_back(c.StartNode(i));
  // The nodes dial a coordinator that is not up yet and keep retrying.
  ASSERT_TRUE(nodes[0]->WaitForOutput("not reachable yet", 10));
  auto coord = c.StartCoordinator(
      {{"NUM_NODES", "4"}, {"NUM_SAVE_CALLS", "2"}, {"NUM_LOAD_CALLS", "2"}});
  ASSERT_EQ(coord->Wait(90), 0) << coord->Err() << NodesErr(nodes);
  for (auto& n : nodes) EXPECT_EQ(n->Wait(10), 0) << n->Err();
  EXPECT_NE(coord->Err().find("without TLS"), std::string::npos);

  json j = ReadJson(c.ResultPath());
  EXPECT_EQ(j["status"], "ok");
  EXPECT_EQ(j["plan"]["world_size"], 8);
  ASSERT_EQ(j["clock"]["nodes"].size(), 4u);
  for (const auto& n : j["clock"]["nodes"]) {
    EXPECT_GT(n["rtt_ms"].get<double>(), 0);
    EXPECT_LT(std::fabs(n["offset_ms"].get<double>()), 50);  // same host
  }
  ASSERT_EQ(j["rounds"].size(), 4u);
  const uint64_t block = 4 << 20;
  for (const auto& round : j["rounds"]) {
    EXPECT_EQ(round["status"], "ok");
    ASSERT_EQ(round["nodes"].size(), 4u);
    std::set<int> indexes;
    uint64_t node_bytes = 0;
    for (const auto& n : round["nodes"]) {
      indexes.insert(n["node_index"].get<int>());
      EXPECT_EQ(n["ranks"].size(), 2u);
      EXPECT_FALSE(n["host"].get<std::string>().empty());
      EXPECT_GT(n["seconds"].get<double>(), 0);
      EXPECT_GT(n["throughput_mib_s"].get<double>(), 0);
      EXPECT_LE(n["first_done_seconds"].get<double>(),
                n["last_done_seconds"].get<double>());
      node_bytes += n["bytes"].get<uint64_t>();
    }
    EXPECT_EQ(indexes, (std::set<int>{0, 1, 2, 3}));
    EXPECT_EQ(node_bytes, round["bytes"].get<uint64_t>());
    ASSERT_EQ(round["ranks"].size(), 8u);
    // Latency histograms are merged across nodes: one write (or read) per
    // block of every rank's file on every node.
    uint64_t ops = 0;
    for (const auto& r : round["ranks"])
      ops += (r["bytes"].get<uint64_t>() + block - 1) / block;
    const char* op = round["phase"] == "save" ? "write" : "read";
    const auto& h = round["op_latency"][op];
    EXPECT_EQ(h["count"].get<uint64_t>(), ops);
    EXPECT_LE(h["p50_ms"].get<double>(), h["p99_ms"].get<double>());
    EXPECT_LE(h["p99_ms"].get<double>(), h["max_ms"].get<double>());
    // Start spread across nodes is measured and small on one host.
    EXPECT_GE(round["start_spread_seconds"].get<double>(), 0);
    EXPECT_LT(round["start_spread_seconds"].get<double>(), 0.05);
    ASSERT_EQ(round["stragglers"].size(), 3u);
    EXPECT_GE(round["stragglers"][0]["ratio_to_median"].get<double>(), 1.0);
    EXPECT_GE(round["seconds"].get<double>(),
              round["transfer_seconds"].get<double>());
    if (round["phase"] == "save") {
      // Node 0 committed; node 1, another process, polled until the step
      // was listed and its .metadata read back. Local disk: at once.
      const json& v = round["time_to_visible"];
      ASSERT_TRUE(v.is_object()) << round.dump();
      EXPECT_TRUE(v["visible"].get<bool>()) << v;
      EXPECT_EQ(v["node"], 1);
      EXPECT_FALSE(v["same_node"].get<bool>());
      EXPECT_GE(v["polls"].get<int>(), 1);
      EXPECT_GE(v["seconds"].get<double>(), 0);
      EXPECT_LT(v["seconds"].get<double>(), 1.0) << v;
    }
    if (round["phase"] == "load") {
      // Shared storage, several nodes: load.rank_shift=auto is one node
      // over (2 ranks), so every node reads only shards another node
      // wrote, and every byte still verifies against the writer's sums.
      EXPECT_EQ(round["rank_shift"], 2);
      EXPECT_TRUE(round["verified"].get<bool>());
      for (const auto& n : round["nodes"]) {
        const int i = n["node_index"].get<int>();
        EXPECT_EQ(n["read_from_nodes"], json::array({(i + 1) % 4})) << n;
      }
      // From the per-file records: every file a node read was written by
      // a rank of another node (__<writer>_<k>.distcp, 2 ranks per node).
      const size_t node_col = FileColumn(round, "node");
      const size_t name_col = FileColumn(round, "name");
      ASSERT_EQ(round["files"]["rows"].size(), 8u);
      for (const auto& row : round["files"]["rows"]) {
        const std::string name = row[name_col];
        ASSERT_EQ(name.rfind("__", 0), 0u) << name;
        const int writer = std::stoi(name.substr(2));
        EXPECT_NE(writer / 2, row[node_col].get<int>()) << row;
      }
      for (const auto& r : round["ranks"]) {
        EXPECT_EQ(r["read_rank"], (r["rank"].get<int>() + 2) % 8) << r;
        EXPECT_NE(r["read_from_node"], r["node"]) << r;
        EXPECT_TRUE(r["verified"].get<bool>()) << r;
      }
    }
  }
  EXPECT_NE(coord->Out().find("clocks:"), std::string::npos) << coord->Out();
  EXPECT_NE(coord->Out().find("time to visible (node 1): median"),
            std::string::npos)
      << coord->Out();
  EXPECT_NE(j["notes"].dump().find("load.rank_shift = 2"), std::string::npos)
      << j["notes"];
}

// Where the time went: one node of three generates its bytes slowly
// (CKPTBENCH_TEST_GENERATE_DELAY_MS on its process only). The save names it
// as the straggler, says why (its files' time making bytes, against the
// median node's) and which files; the per-file records line up on the
// common clock; the report says the same, read in Chromium, with the time
// to visible node 1 measured.
TEST(Multinode, APlantedStragglerIsNamedWithItsFilesInTheResultAndReport) {
  Cluster c;
  auto coord = c.StartCoordinator({{"NUM_NODES", "3"},
                                   {"NUM_DEVICES", "1"},
                                   {"NUM_LAYERS", "1"},
                                   {"CKPT_OPTIMIZER", "none"},
                                   {"CKPT_BLOCK_SIZE", "1MiB"},
                                   {"CKPT_QUEUE_DEPTH", "0"},
                                   {"NUM_SAVE_CALLS", "1"},
                                   {"NUM_LOAD_CALLS", "1"}});
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  // ~17 MiB per node in 1 MiB blocks: +80 ms each is ~1.4 s more, well
  // above the others even in the sanitizer builds.
  auto n2 = c.StartNode(2, {{"CKPTBENCH_TEST_GENERATE_DELAY_MS", "80"}});
  ASSERT_EQ(coord->Wait(90), 0) << coord->Err();
  json j = ReadJson(c.ResultPath());
  const json& save = j["rounds"][0];
  ASSERT_EQ(save["phase"], "save");
  ASSERT_FALSE(save["stragglers"].empty()) << save.dump();
  const json& st = save["stragglers"][0];
  EXPECT_EQ(st["node_index"], 2) << st;
  EXPECT_GE(st["ratio_to_median"].get<double>(), 1.2) << st;
  const std::string reason = st["reason"];
  EXPECT_NE(reason.find("making or checking bytes"), std::string::npos)
      << reason;
  ASSERT_FALSE(st["slowest_files"].empty());
  EXPECT_EQ(st["slowest_files"][0].get<std::string>().rfind("__2_0.distcp", 0),
            0u)
      << st;
  // Per file: one row per rank's file, columns named; on the common clock
  // a file starts before its first byte, which comes before its last and
  // its durability.
  const json& files = save["files"];
  ASSERT_EQ(files["rows"].size(), 3u);
  auto col = [&](const std::string& name) { return FileColumn(save, name); };
  for (const auto& row : files["rows"]) {
    const double start = row[col("start")], first = row[col("first_byte")],
                 last = row[col("last_byte")], done = row[col("done")];
    EXPECT_LE(start, first) << row;
    EXPECT_LE(first, last) << row;
    EXPECT_LE(last, done) << row;
    if (row[col("node")] == 2) {
      EXPECT_GT(row[col("data_seconds")].get<double>(), 0.5) << row;
    }
  }
  // The ranks that finished first waited at the barrier for node 2's.
  for (const auto& rk : save["ranks"]) {
    if (rk["node"] == 2) {
      EXPECT_LT(rk["wait_seconds"].get<double>(), 0.01) << rk;
    } else {
      EXPECT_GT(rk["wait_seconds"].get<double>(), 0.3) << rk;
    }
  }
  EXPECT_NE(coord->Out().find("straggler node 2"), std::string::npos)
      << coord->Out();

  auto rep = RunProcess({CkptbenchBinary(), "report", c.ResultsDir()}, {});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::string dom, console;
  ASSERT_TRUE(RenderInChromium(c.tmp(), c.ResultsDir() + "/report.html", &dom,
                               &console));
  EXPECT_EQ(console, "");
  EXPECT_NE(dom.find("Stragglers"), std::string::npos);
  // Every chart present was laid out by the browser.
  const auto [charts, drawn] = ChartsDrawn(dom);
  EXPECT_GT(charts, 0);
  EXPECT_EQ(charts, drawn) << "charts present but not drawn";
  EXPECT_NE(dom.find("save 1 n2 straggler"), std::string::npos);  // timeline
  EXPECT_NE(dom.find("its files averaged"), std::string::npos) << dom;
  EXPECT_NE(dom.find("__2_0.distcp (rank 2)"), std::string::npos);
  EXPECT_NE(dom.find("Time to visible"), std::string::npos);
  const double visible = save["time_to_visible"]["seconds"].get<double>();
  EXPECT_NE(dom.find(absl::StrFormat("%.3f s", visible)), std::string::npos)
      << visible;
}

// Async saves across node processes: every node stages, persists and
// reports its own blocking and compute; the round takes the latest node's,
// and the load verifies what was written from the staged copies.
TEST(Multinode, AsyncSavesOverTwoNodesReportEachNodesStagingAndVerify) {
  Cluster c;
  std::vector<std::unique_ptr<Process>> nodes;
  for (int i = 0; i < 2; ++i) nodes.push_back(c.StartNode(i));
  auto coord = c.StartCoordinator({{"NUM_NODES", "2"},
                                   {"CKPT_ASYNC", "true"},
                                   {"CKPT_INTERVAL", "0.3"},
                                   {"CKPT_MTTF", "12h"}});
  ASSERT_EQ(coord->Wait(90), 0) << coord->Err() << NodesErr(nodes);
  for (auto& n : nodes) EXPECT_EQ(n->Wait(10), 0) << n->Err();
  json j = ReadJson(c.ResultPath());
  EXPECT_EQ(j["status"], "ok");
  ASSERT_EQ(j["rounds"].size(), 2u);
  const json& save = j["rounds"][0];
  ASSERT_EQ(save["phase"], "save");
  EXPECT_TRUE(save["staging"]["async"].get<bool>());
  double latest_blocking = 0;
  for (const auto& n : save["nodes"]) {
    const auto& st = n["staging"];
    EXPECT_GT(st["blocking_seconds"].get<double>(), 0);
    EXPECT_GE(st["durable_seconds"].get<double>(),
              st["blocking_seconds"].get<double>());
    EXPECT_GT(st["compute_baseline_seconds"].get<double>(), 0.1);
    // Each node stages its own ranks' bytes, once.
    EXPECT_EQ(st["staged_bytes"].get<uint64_t>(), n["bytes"].get<uint64_t>());
    latest_blocking =
        std::max(latest_blocking, n["start_lag_seconds"].get<double>() +
                                      st["blocking_seconds"].get<double>());
  }
  EXPECT_NEAR(save["staging"]["blocking_seconds"].get<double>(),
              latest_blocking, 1e-9);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
  EXPECT_EQ(j["goodput"]["mttf_seconds"].get<double>(), 43200);
}

TEST(Multinode, RegistrationRefusesDuplicatesOtherVersionsAndStrangers) {
  Cluster c;
  auto coord = c.StartCoordinator({{"NUM_NODES", "2"}});
  auto first = c.StartNode(0);
  ASSERT_TRUE(coord->WaitForOutput("node 0 registered", 20)) << coord->Err();

  auto dup = c.StartNode(0);
  EXPECT_EQ(dup->Wait(20), 2) << dup->Err();
  EXPECT_NE(dup->Err().find("already registered"), std::string::npos)
      << dup->Err();
  EXPECT_NE(dup->Err().find("duplicate index"), std::string::npos)
      << dup->Err();

  auto old = c.StartNode(1, {}, {"--protocol-version", "7"});
  EXPECT_EQ(old->Wait(20), 2) << old->Err();
  EXPECT_NE(old->Err().find("speaks protocol version 7"), std::string::npos)
      << old->Err();

  auto stranger = c.StartNode(5);
  EXPECT_EQ(stranger->Wait(20), 2) << stranger->Err();
  EXPECT_NE(stranger->Err().find("out of range; NUM_NODES is 2"),
            std::string::npos);

  // Both sides say it: the coordinator logs each refusal.
  EXPECT_NE(coord->Err().find("duplicate index"), std::string::npos);
  EXPECT_NE(coord->Err().find("protocol version 7"), std::string::npos);

  auto second = c.StartNode(1);
  EXPECT_EQ(coord->Wait(60), 0) << coord->Err();
  EXPECT_EQ(first->Wait(10), 0);
  EXPECT_EQ(second->Wait(10), 0);
}

TEST(Multinode, MissingNodesAreListedAfterTheRegisterTimeout) {
  Cluster c;
  auto coord =
      c.StartCoordinator({{"NUM_NODES", "3"}, {"CKPT_REGISTER_TIMEOUT", "2"}});
  auto n0 = c.StartNode(0);
  auto n2 = c.StartNode(2);
  EXPECT_EQ(coord->Wait(20), 1) << coord->Err();
  EXPECT_NE(coord->Err().find("never registered: node index 1"),
            std::string::npos)
      << coord->Err();
  json j = ReadJson(c.ResultPath());
  EXPECT_EQ(j["status"], "failed");
  // The nodes are told the run failed and exit non-zero.
  EXPECT_EQ(n0->Wait(10), 1);
  EXPECT_EQ(n2->Wait(10), 1);
}

// In a Kubernetes pod the same error says where to look: the JobSet's
// pods, a Pending pod's events, and the table of node types that fit.
TEST(Multinode, MissingNodesOnKubernetesSayWhereToLook) {
  Cluster c;
  auto coord = c.StartCoordinator({{"NUM_NODES", "2"},
                                   {"CKPT_REGISTER_TIMEOUT", "1"},
                                   {"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                   {"JOBSET_NAME", "bench-7"}});
  auto n0 = c.StartNode(0);
  EXPECT_EQ(coord->Wait(20), 1) << coord->Err();
  const std::string err = coord->Err();
  EXPECT_NE(err.find("never registered: node index 1. On Kubernetes: "
                     "`kubectl get pods -l "
                     "jobset.sigs.k8s.io/jobset-name=bench-7`"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("docs/kubernetes-fit.md"), std::string::npos) << err;
  EXPECT_EQ(n0->Wait(10), 1);
  // Outside Kubernetes, no such hint.
  Cluster plain;
  auto alone = plain.StartCoordinator(
      {{"NUM_NODES", "1"}, {"CKPT_REGISTER_TIMEOUT", "1"}});
  EXPECT_EQ(alone->Wait(20), 1) << alone->Err();
  EXPECT_EQ(alone->Err().find("On Kubernetes"), std::string::npos)
      << alone->Err();
}

TEST(Multinode, NodeLocalDisksHoldOwnShardsAndStagePerNode) {
  Cluster c;
  // The boot-disk pattern of the GCS checkpoint benchmark: a save-only run,
  // then a load-only one, each node on its own disk.
  Env env = {{"NUM_NODES", "2"},
             {"CKPT_NODE_LOCAL", "true"},
             {"CKPT_MODE", "save-only"},
             {"CKPT_DIR_PATH", c.tmp().Sub("disk-{node}")}};
  {
    auto coord = c.StartCoordinator(env);
    auto n0 = c.StartNode(0);
    auto n1 = c.StartNode(1);
    ASSERT_EQ(coord->Wait(60), 0) << coord->Err();
    const json saved = ReadJson(c.ResultPath());
    for (const auto& round : saved["rounds"]) EXPECT_EQ(round["phase"], "save");
  }
  for (int node = 0; node < 2; ++node) {
    std::string step =
        c.tmp().Sub("disk-" + std::to_string(node) + "/checkpoints/step-1");
    ASSERT_TRUE(fs::exists(step + "/.metadata")) << step;
    std::set<std::string> files;
    for (const auto& e : fs::directory_iterator(step))
      files.insert(e.path().filename().string());
    std::set<std::string> want =
        node == 0 ? std::set<std::string>{".ckptbench-claim", ".metadata",
                                          "__0_0.distcp", "__1_0.distcp"}
                  : std::set<std::string>{".ckptbench-claim", ".metadata",
                                          "__2_0.distcp", "__3_0.distcp"};
    EXPECT_EQ(files, want);
    json meta = json::parse(ReadFile(step + "/.metadata"));
    EXPECT_EQ(meta["files"].size(), 2u);  // only this node's shards
  }
  // Node 1 loses its disk: a load-only run stages on every node, then loads.
  fs::remove_all(c.tmp().Sub("disk-1"));
  env["CKPT_MODE"] = "load-only";
  // The same results directory as the save run: replacing it is asked for.
  auto coord = c.StartCoordinator(env, {"--overwrite"});
  auto n0 = c.StartNode(0);
  auto n1 = c.StartNode(1);
  ASSERT_EQ(coord->Wait(60), 0) << coord->Err();
  json j = ReadJson(c.ResultPath());
  EXPECT_TRUE(j["rounds"][0]["staged"].get<bool>());
  EXPECT_NE(
      j["notes"][0].get<std::string>().find("common to every node's disk"),
      std::string::npos);
  EXPECT_TRUE(j["rounds"][1]["verified"].get<bool>());
  EXPECT_TRUE(fs::exists(c.tmp().Sub("disk-1/checkpoints/step-2/.metadata")));
}

grpc::health::v1::HealthCheckResponse::ServingStatus Probe(int port) {
  std::string error;
  auto status = ProbeHealth(port, 100, &error);
  if (status == grpc::health::v1::HealthCheckResponse::UNKNOWN) {
    ADD_FAILURE() << "health check: " << error;
  }
  return status;
}

TEST(Multinode, HealthServiceOnCoordinatorAndOptionallyOnNodes) {
  Cluster c;
  // Two nodes expected: the run waits for the second while we probe.
  auto coord = c.StartCoordinator({{"NUM_NODES", "2"}});
  EXPECT_EQ(Probe(c.port()), grpc::health::v1::HealthCheckResponse::SERVING)
      << coord->Err();
  int health_port = FreePort();
  auto n0 =
      c.StartNode(0, {{"CKPT_NODE_HEALTH_PORT", std::to_string(health_port)}});
  EXPECT_EQ(Probe(health_port), grpc::health::v1::HealthCheckResponse::SERVING)
      << n0->Err();
  auto n1 = c.StartNode(1);
  EXPECT_EQ(coord->Wait(60), 0) << coord->Err();
}

TEST(Multinode, NodeIndexFromJobCompletionIndex) {
  Cluster c;
  auto coord = c.StartCoordinator({{"NUM_NODES", "2"}});
  Env env = {{"CKPT_COORDINATOR", c.address()}, {"JOB_COMPLETION_INDEX", "1"}};
  Process n1({CkptbenchBinary(), "node"}, env);
  env["JOB_COMPLETION_INDEX"] = "0";
  Process n0({CkptbenchBinary(), "node"}, env);
  EXPECT_EQ(coord->Wait(60), 0) << coord->Err();
  EXPECT_NE(n1.Err().find("index from JOB_COMPLETION_INDEX"), std::string::npos)
      << n1.Err();
}

}  // namespace
}  // namespace ckpt
