// The round protocol with a second, test-only workload (counting_workload.h)
// end to end: a coordinator's SessionServer and node sessions over loopback
// gRPC (and the same through in-process nodes): prepare, the common start,
// live progress, a mid-phase action answered as a barrier, reports checked
// and aggregated after the clock stopped, and the failure of one node
// aborting the others. Nothing in the protocol knows this workload.
#include <grpcpp/security/credentials.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <future>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "coordinator/coordinator.h"
#include "coordinator/json_codec.h"
#include "coordinator/progress.h"
#include "coordinator/round/round_protocol.h"
#include "coordinator/run_context.h"
#include "coordinator/run_workload.h"
#include "coordinator/session_server.h"
#include "coordinator/summary.h"
#include "coordinator/workload_registry.h"
#include "inprocess/local_node_client.h"
#include "node/node_session.h"
#include "report/html_report.h"
#include "report/sweep_data.h"
#include "tests/testing/counting_run.h"
#include "tests/testing/counting_workload.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

// N node sessions of this process dialling a SessionServer on loopback.
class GrpcNodes {
 public:
  explicit GrpcNodes(int n, bool with_workload = true) {
    SessionServerOptions o;
    o.listen = "127.0.0.1:0";
    o.num_nodes = n;
    o.run_id = "run-w";
    o.node_timeout = 10;
    o.heartbeat_interval = 0.2;
    auto s = SessionServer::Start(o);
    EXPECT_TRUE(s.ok()) << s.status();
    server_ = std::move(*s);
    for (int i = 0; i < n; ++i) {
      NodeSessionOptions no;
      no.coordinator = "127.0.0.1:" + std::to_string(server_->port());
      no.node_index = i;
      no.host = "host-" + std::to_string(i);
      no.credentials = grpc::InsecureChannelCredentials();
      no.connect_timeout = 10;
      if (with_workload) no.workloads = CountingNodeWorkloads();
      sessions_.push_back(
          std::async(std::launch::async, [no] { return RunNodeSession(no); }));
    }
    auto nodes = server_->WaitForNodes(20);
    EXPECT_TRUE(nodes.ok()) << nodes.status();
    if (nodes.ok()) {
      for (RemoteNode* r : *nodes) nodes_.push_back(r);
    }
  }
  ~GrpcNodes() {
    server_->Shutdown(ExitCode::kOk, "test over");
    for (auto& s : sessions_) s.wait();
  }
  std::vector<NodeClient*>& nodes() { return nodes_; }

 private:
  std::unique_ptr<SessionServer> server_;
  std::vector<std::future<absl::Status>> sessions_;
  std::vector<NodeClient*> nodes_;
};

// The same nodes in this process (what `ckptbench run` uses).
class LocalNodes {
 public:
  explicit LocalNodes(int n) {
    for (int i = 0; i < n; ++i) {
      owned_.push_back(std::make_unique<LocalNodeClient>(
          i, "local-" + std::to_string(i), 0.05, nullptr,
          CountingNodeWorkloads()));
      nodes_.push_back(owned_.back().get());
    }
  }
  std::vector<NodeClient*>& nodes() { return nodes_; }

 private:
  std::vector<std::unique_ptr<LocalNodeClient>> owned_;
  std::vector<NodeClient*> nodes_;
};

class RoundProtocolWorkload : public ::testing::TestWithParam<bool> {
 protected:
  // Runs one counting round on 3 nodes, over gRPC or in process.
  RoundResult RunRound(CountingRound& round, uint64_t round_id = 1) {
    Nodes();
    if (!protocol_) {
      protocol_ = std::make_unique<RoundProtocol>(nodes_, &progress_, 0.05);
    }
    return protocol_->Run(round, {"run-w", round_id, nullptr});
  }

  // 3 nodes, over gRPC or in process.
  const std::vector<NodeClient*>& Nodes() {
    if (GetParam()) {
      if (!grpc_) grpc_ = std::make_unique<GrpcNodes>(3);
      nodes_ = grpc_->nodes();
    } else {
      if (!local_) local_ = std::make_unique<LocalNodes>(3);
      nodes_ = local_->nodes();
    }
    return nodes_;
  }

  ProgressPrinter progress_{0.05, false};
  std::unique_ptr<GrpcNodes> grpc_;
  std::unique_ptr<LocalNodes> local_;
  std::vector<NodeClient*> nodes_;
  std::unique_ptr<RoundProtocol> protocol_;
};

TEST_P(RoundProtocolWorkload, RunsPrepareStartActionReportsAndAggregation) {
  CountingSpec spec;
  spec.items = 30;
  spec.item_seconds = 0.01;
  spec.ask_at = 10;
  CountingRound round(3, spec);
  testing::internal::CaptureStderr();
  RoundResult r = RunRound(round);
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  EXPECT_EQ(r.index, 1);  // named by the workload's Begin
  // Every node counted everything; the reports were summed once, after
  // the round's clock stopped, and the round concluded.
  EXPECT_EQ(r.bytes, 90u);
  ASSERT_EQ(r.nodes.size(), 3u);
  EXPECT_EQ(round.aggregations(), 1);
  EXPECT_TRUE(round.concluded());
  EXPECT_GT(round.seconds_at_aggregate(), 0);
  EXPECT_EQ(round.seconds_at_aggregate(), r.seconds);
  // 30 items of 10 ms: the round's time is the transfer's.
  EXPECT_GE(r.transfer_seconds, 0.29);
  EXPECT_LT(r.transfer_seconds, 10);
  // The mid-phase action: each node asked once; the coordinator answered
  // only when all three had asked (each node saw 3 asks, action 1).
  EXPECT_EQ(round.asks(), 3);
  for (const auto& rep : round.reports()) {
    EXPECT_EQ(rep.counted(), 30u);
    EXPECT_EQ(rep.answered_action(), 1u);
    EXPECT_EQ(rep.nodes_asked(), 3u);
  }
  // The common start: every node started at the instant (on one host).
  for (const auto& n : r.nodes) {
    EXPECT_GE(n.start_lag_seconds, -0.01);
    EXPECT_LT(n.start_lag_seconds, 0.5);
  }
  // Remote nodes' clocks were re-estimated for the round.
  EXPECT_EQ(r.clocks.size(), GetParam() ? 3u : 0u);
  // Live progress reached the coordinator's progress line.
  EXPECT_NE(log.find("count 1"), std::string::npos) << log;

  // The next round on the same nodes (a new instance on each node).
  CountingRound second(3, spec, 2);
  RoundResult r2 = RunRound(second, 2);
  ASSERT_EQ(r2.status, RunStatus::kOk) << r2.error;
  EXPECT_EQ(r2.bytes, 90u);
}

TEST_P(RoundProtocolWorkload, OneNodesFailureWinsAndAbortsTheOthers) {
  CountingSpec spec;
  spec.items = 400;  // 4 s unless aborted
  spec.item_seconds = 0.01;
  spec.ask_at = 5;
  spec.fail_node = 1;
  spec.fail_at = 8;
  CountingRound round(3, spec);
  const auto t0 = std::chrono::steady_clock::now();
  RoundResult r = RunRound(round);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(r.status, RunStatus::kFailed);
  // The first error is the cause, named with its node and kind; the
  // aborts it set off in the others are not reported instead.
  EXPECT_NE(r.error.find(GetParam() ? "node 1 (host-1)" : "node 1 (local-1)"),
            std::string::npos)
      << r.error;
  EXPECT_NE(r.error.find("failed on purpose after 8 items"), std::string::npos)
      << r.error;
  EXPECT_EQ(r.error_kind, "data_loss");
  // The others stopped early (aborted), well before their 4 s.
  EXPECT_LT(took, 3.0);
  // Aggregated after the failure all the same; the failed round does not
  // conclude.
  EXPECT_EQ(round.aggregations(), 1);
  EXPECT_FALSE(round.concluded());
}

TEST_P(RoundProtocolWorkload, AFailureBeforeTheBarrierReleasesTheWaiters) {
  CountingSpec spec;
  spec.items = 50;
  spec.item_seconds = 0.01;
  spec.ask_at = 20;
  spec.fail_node = 2;
  spec.fail_at = 3;  // before it would ask: the others wait at the barrier
  CountingRound round(3, spec);
  const auto t0 = std::chrono::steady_clock::now();
  RoundResult r = RunRound(round);
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count();
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_NE(r.error.find("failed on purpose after 3 items"), std::string::npos)
      << r.error;
  EXPECT_LE(round.asks(), 2);
  EXPECT_LT(took, 5.0);
}

// A workload may give each node its own start instant (a fleet of serving
// replicas coming up one after another); without one, every node starts
// at the common instant. Each node's start lag is against its own instant,
// and the round's clock runs from the common one to the last report.
TEST_P(RoundProtocolWorkload, StartsNodesTogetherOrStaggeredAsTheWorkloadSays) {
  CountingSpec spec;
  spec.items = 10;
  spec.item_seconds = 0.01;
  spec.ask_at = 0;
  auto started_after_node0 = [](const CountingRound& round) {
    std::vector<double> after;
    const auto reports = round.reports();
    for (const auto& rep : reports) {
      after.push_back(static_cast<double>(rep.started_unix_ns() -
                                          reports[0].started_unix_ns()) /
                      1e9);
    }
    return after;
  };
  CountingRound together(3, spec, 1);
  RoundResult r = RunRound(together, 1);
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  ASSERT_EQ(together.reports().size(), 3u);
  for (double d : started_after_node0(together)) EXPECT_LT(std::abs(d), 0.2);

  spec.stagger_seconds = 0.4;
  CountingRound staggered(3, spec, 2);
  r = RunRound(staggered, 2);
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  const std::vector<double> after = started_after_node0(staggered);
  ASSERT_EQ(after.size(), 3u);
  for (size_t i = 1; i < after.size(); ++i) {
    EXPECT_GT(after[i], 0.4 * i - 0.05) << "node " << i;
    EXPECT_LT(after[i], 0.4 * i + 0.2) << "node " << i;
  }
  for (const auto& n : r.nodes) {
    EXPECT_GE(n.start_lag_seconds, -0.01);
    EXPECT_LT(n.start_lag_seconds, 0.2);  // against its own instant
  }
  // The last node started 0.8 s after the first and counted for 0.1 s.
  EXPECT_GE(r.transfer_seconds, 0.85);
  EXPECT_LT(r.transfer_seconds, 10);
}

TEST_P(RoundProtocolWorkload, ARunLevelWorkloadDrivesItsRoundsThroughTheRun) {
  CountingSpec spec;
  spec.items = 10;
  spec.item_seconds = 0.005;
  spec.ask_at = 5;
  CountingRun* made = nullptr;
  auto registry = WorkloadRegistry::BuiltIn().With(
      CountingRunEntry(3, spec, 2, [&](CountingRun* run) { made = run; }));
  ASSERT_TRUE(registry.ok()) << registry.status();
  auto run = registry->New("counting");
  ASSERT_TRUE(run.ok()) << run.status();
  Config config;
  RunContext ctx(config, Nodes(), &progress_, "run-w");
  RunResult result;
  ASSERT_TRUE((*run)->Preflight(ctx, &result).ok());
  testing::internal::CaptureStderr();
  const absl::Status s = (*run)->Run(ctx, &result);
  const std::string log = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(result.notes, std::vector<std::string>{"counting on 3 nodes"});
  // The interrupt after the second round kept the third from starting.
  ASSERT_EQ(result.rounds.size(), 2u);
  for (const RoundResult& r : result.rounds) {
    EXPECT_EQ(r.status, RunStatus::kOk) << r.error;
    EXPECT_EQ(r.nodes.size(), 3u);
    // Under a second: flagged, with this workload's own advice.
    EXPECT_NE(std::find(r.flags.begin(), r.flags.end(), RoundFlag::kShortPhase),
              r.flags.end());
  }
  EXPECT_NE(log.find("expected more items"), std::string::npos) << log;
  ASSERT_NE(made, nullptr);
  EXPECT_EQ(made->published, (std::vector<size_t>{1, 2}));
  EXPECT_TRUE(ctx.interrupted());
  EXPECT_EQ(ctx.interrupt_reason(), "the test has seen enough");
  EXPECT_EQ(ctx.Snapshot().rounds.size(), 2u);
}

// The test-only workload registered whole (counting_run.h) and named by
// run.workload: the Coordinator runs it, its sections of the result (the
// run's and each round's, at the round's head) are its own types, its lines
// are in the summary and its section in the report; result.json holds them
// and reads back byte for byte; a build that does not have it carries them
// through, unread, where they were, and says so.
TEST_P(RoundProtocolWorkload, ARegisteredWorkloadRunsThroughTheCoordinator) {
  CountingSpec spec;
  spec.items = 6;
  spec.item_seconds = 0.002;
  spec.ask_at = 3;
  auto registry = WorkloadRegistry::BuiltIn().With(CountingRunEntry(2, spec));
  ASSERT_TRUE(registry.ok()) << registry.status();
  Config config;
  config.run.workload = kCountingWorkload;
  RunResult result;
  {
    Coordinator coordinator(config, Nodes(), &progress_, "run-c", *registry);
    const absl::Status pre = coordinator.Preflight(&result);
    ASSERT_TRUE(pre.ok()) << pre;
    const absl::Status run = coordinator.Run(&result);
    ASSERT_TRUE(run.ok()) << run;
  }
  EXPECT_EQ(result.workload, "counting");
  ASSERT_EQ(result.rounds.size(), 2u);
  const auto* section =
      SectionAs<CountingSection>(result.sections, kCountingSection);
  ASSERT_NE(section, nullptr);
  EXPECT_EQ(section->rounds, 2u);
  EXPECT_EQ(section->per_node, (std::vector<uint64_t>{12, 12, 12}));
  EXPECT_EQ(section->items, 36u);
  const auto* tally =
      SectionAs<TallySection>(result.rounds[1].sections, kTallySection);
  ASSERT_NE(tally, nullptr);
  EXPECT_EQ(tally->items, 18u);
  EXPECT_EQ(tally->nodes, 3u);

  const std::string summary = SummaryTable(result, *registry);
  EXPECT_NE(summary.find("ckptbench ok: counting on 3 node(s)\n"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find("counted: 36 item(s) in 2 round(s); per node 12 12 "
                         "12\n"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("no summary"), std::string::npos) << summary;
  // Its rounds are named its way, in the table's first column and by name.
  EXPECT_NE(summary.find("\ntally  2 "), std::string::npos) << summary;
  EXPECT_EQ(RoundName(result.rounds[1], *registry), "tally 2");
  EXPECT_EQ(RoundName(result.rounds[1]), "counting 2");  // the built-in three

  // Written by the registry that has it (its round's section at its head;
  // the built-in one would put that at the round's end).
  const std::string text = ResultToJson(result, *registry);
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["workload"], "counting");
  EXPECT_EQ(j["counting"]["per_node"], nlohmann::json({12, 12, 12}));
  EXPECT_EQ(j["rounds"][1]["workload"], "counting");
  // The round's section at its head: after its workload's name.
  const auto round = nlohmann::ordered_json::parse(text)["rounds"][1];
  ASSERT_GE(round.size(), 3u);
  EXPECT_EQ(round.begin().key(), "workload");
  EXPECT_EQ(std::next(round.begin()).key(), "tally");
  EXPECT_EQ(round["tally"],
            nlohmann::ordered_json::parse(R"({"items":18,"nodes":3})"));
  auto back = ResultFromJson(text, "result.json", *registry);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->foreign.empty());
  const auto* read =
      SectionAs<CountingSection>(back->sections, kCountingSection);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->per_node, section->per_node);
  const auto* read_tally =
      SectionAs<TallySection>(back->rounds[1].sections, kTallySection);
  ASSERT_NE(read_tally, nullptr);
  EXPECT_EQ(read_tally->items, 18u);
  EXPECT_EQ(ResultToJson(*back, *registry), text);

  auto unread = ResultFromJson(text, "result.json");  // the built-in three
  ASSERT_TRUE(unread.ok()) << unread.status();
  EXPECT_EQ(unread->foreign.workload, "counting");
  EXPECT_TRUE(unread->sections.empty());
  EXPECT_TRUE(unread->rounds[1].sections.empty());
  EXPECT_EQ(ResultToJson(*unread), text);  // the tally where it was
  const std::string unread_summary = SummaryTable(*unread);
  EXPECT_NE(unread_summary.find(
                "no summary of workload 'counting' beyond its rounds"),
            std::string::npos);
  EXPECT_NE(unread_summary.find("round 2 of rounds[]: workload 'counting' "
                                "(unknown to this build); sections carried "
                                "through unread: tally"),
            std::string::npos)
      << unread_summary;

  TempDir dir;
  ASSERT_TRUE(WriteFileAtomically(dir.Sub("result.json"), text).ok());
  auto data = LoadSweepDir(dir.path(), *registry);
  ASSERT_TRUE(data.ok()) << data.status();
  const std::string html = HtmlReport(*data, *registry);
  EXPECT_NE(html.find("<section id=\"counting\"><h2>Counting</h2>"),
            std::string::npos);
  EXPECT_NE(html.find("</td><td>2</td><td>36</td><td>12 12 12</td></tr>"),
            std::string::npos);
  EXPECT_NE(html.find("tally 2"), std::string::npos);  // its timeline's rows
  EXPECT_NE(
      html.find("<td>first run&#39;s tally</td><td>2 round(s) counted</td>"),
      std::string::npos);  // its row of the overview
  auto plain = LoadSweepDir(dir.path());
  ASSERT_TRUE(plain.ok()) << plain.status();
  const std::string plain_html = HtmlReport(*plain);
  EXPECT_EQ(plain_html.find("id=\"counting\""), std::string::npos);
  EXPECT_EQ(plain_html.find("tally 2"), std::string::npos);
  EXPECT_NE(plain_html.find("counting 2"), std::string::npos);
  EXPECT_EQ(plain_html.find("first run&#39;s tally"), std::string::npos);
  EXPECT_NE(plain_html.find("Not read by this build"), std::string::npos);
}

// A section's reader is the workload's own: what it refuses, the file is
// refused for, naming the member; a member every result has, or another
// workload's, cannot be taken.
TEST(RegisteredWorkloadSections, ABadSectionIsRefusedNamingItsMember) {
  auto registry =
      WorkloadRegistry::BuiltIn().With(CountingRunEntry(1, CountingSpec{}));
  ASSERT_TRUE(registry.ok()) << registry.status();
  const std::string good =
      R"({"workload":"counting","counting":{"rounds":1,"items":3,"per_node":[1,2]}})";
  auto ok = ResultFromJson(good, "r.json", *registry);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(SectionAs<CountingSection>(ok->sections, kCountingSection)->items,
            3u);
  std::string deep = "1";  // 40 objects deep
  for (int i = 0; i < 40; ++i) deep = absl::StrCat(R"({"a":)", deep, "}");
  for (const auto& [text, why] :
       std::vector<std::pair<std::string, std::string>>{
           {R"({"counting":{"rounds":1,"items":4,"per_node":[1,2]}})",
            "counting: expected items 4 to be per_node's sum, 3"},
           {R"({"counting":{"rounds":1,"items":3,"per_node":[1,2],"x":1}})",
            "counting: expected rounds, items and per_node only, found 'x'"},
           {R"({"counting":[1]})", "counting: expected an object, found"},
           {R"({"rounds":[{"workload":"counting","tally":{"items":1}}]})",
            "rounds[0].tally: expected items and nodes, counts"},
           {R"({"workload":3})",
            "workload: expected one of checkpoint, datagen, dataload, serve, "
            "counting, found"},
           {absl::StrCat(R"({"counting":)", deep, "}"),
            "counting: expected an object nested at most 32 deep"}}) {
    auto bad = ResultFromJson(text, "r.json", *registry);
    ASSERT_FALSE(bad.ok()) << text;
    EXPECT_NE(bad.status().message().find("r.json: " + why), std::string::npos)
        << bad.status();
  }
  auto taken = WorkloadRegistry::BuiltIn().With(RunWorkloadEntry(
      "other", [] { return std::unique_ptr<RunWorkload>(); }, {},
      {ResultSectionCodec{"rounds", ReadCountingSection}}));
  EXPECT_EQ(taken.status().code(), absl::StatusCode::kAlreadyExists);
  auto twice = registry->With(RunWorkloadEntry(
      "other", [] { return std::unique_ptr<RunWorkload>(); }, {},
      {ResultSectionCodec{kCountingSection, ReadCountingSection}}));
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kAlreadyExists);
  // A round's section: not under a member every round has, nor another
  // workload's, nor at the run's places (nor the run's at a round's).
  auto round_entry = [](ResultSectionCodec codec, bool round) {
    RunWorkloadEntry e("other", [] { return std::unique_ptr<RunWorkload>(); },
                       {});
    if (round) {
      e.round_result = std::move(codec);
    } else {
      e.results = {std::move(codec)};
    }
    return e;
  };
  ResultSectionCodec phase = TallySectionCodec();
  phase.member = "phase";
  EXPECT_EQ(WorkloadRegistry::BuiltIn()
                .With(round_entry(phase, true))
                .status()
                .code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(
      registry->With(round_entry(TallySectionCodec(), true)).status().code(),
      absl::StatusCode::kAlreadyExists);
  ResultSectionCodec own = TallySectionCodec();
  own.member = "own_tally";
  EXPECT_TRUE(registry->With(round_entry(own, true)).ok());
  own.place = ResultPlace::kAtEnd;
  EXPECT_EQ(registry->With(round_entry(own, true)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      registry->With(round_entry(TallySectionCodec(), false)).status().code(),
      absl::StatusCode::kInvalidArgument);
}

INSTANTIATE_TEST_SUITE_P(Nodes, RoundProtocolWorkload, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& p) {
                           return p.param ? std::string("Grpc")
                                          : std::string("InProcess");
                         });

TEST(RoundProtocolWorkloads, ANodeWithoutTheWorkloadRefusesItAtPrepare) {
  GrpcNodes nodes(2, /*with_workload=*/false);
  RoundProtocol protocol(nodes.nodes(), nullptr, 0.05);
  CountingRound round(2, CountingSpec{});
  RoundResult r = protocol.Run(round, {"run-w", 1, nullptr});
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_NE(r.error.find("prepare: workload 'counting' is not one this node "
                         "runs (it runs: checkpoint, datagen, dataload, "
                         "serve)"),
            std::string::npos)
      << r.error;
  EXPECT_EQ(r.error_kind, "bad_input");
  EXPECT_EQ(round.aggregations(), 0);  // nothing started
}

}  // namespace
}  // namespace ckpt
