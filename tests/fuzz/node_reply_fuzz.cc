// libFuzzer target: the coordinator's handling of a node's reply to a
// round's start. The input is a serialized v1::NodeMessage, as it arrives
// on the Session stream from whoever reached the control port, goes
// through CheckNodeReply (its type, then its values against what the node
// was asked, for a save and for a load of the same plan), and what passes
// is aggregated into a round as RoundRunner does, then written as
// result.json and the summary table. Nothing may crash or be undefined.
//
// Seeds (tests/fuzz/corpus/node_reply) are real replies: with
// CKPTBENCH_FUZZ_WRITE_SEEDS=DIR, the target first runs a save and a load
// round of its plan through an in-process node agent on memory storage and
// writes what that node answered into DIR. Inputs that are not phase
// reports are checked as listings (CheckInspectReply's part).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "common/config.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/checkpoint/round_runner.h"
#include "coordinator/json_codec.h"
#include "coordinator/reply_check.h"
#include "coordinator/summary.h"
#include "inprocess/local_node_client.h"
#include "wire/phase_report_codec.h"

namespace ckpt {

// RoundRunner's request building and aggregation, reached by this target.
struct NodeReplyFuzz {
  static PhaseJob Prepare(const RoundRunner& r, const RoundSpec& s) {
    return r.BuildPrepare(s, 0);
  }
  static void Aggregate(const RoundRunner& r,
                        const std::vector<PhaseOutcome>& reports,
                        const RoundSpec& s, RoundResult* out) {
    r.Aggregate(reports, s, out);
  }
};

namespace {

// Records the phase reports of the in-process node it wraps.
class RecordingNode : public LocalNodeClient {
 public:
  RecordingNode() : LocalNodeClient(0, "fuzz-host", 10) {}
  absl::StatusOr<v1::PhaseReport> SendStartPhase(
      const v1::StartPhaseRequest& r, const WireListener& listener) override {
    auto rep = LocalNodeClient::SendStartPhase(r, listener);
    if (rep.ok()) reports.push_back(*rep);
    return rep;
  }
  std::vector<v1::PhaseReport> reports;
};

struct Rig {
  Rig() {
    config.storage.path = "mem://fuzz/run";
    config.model.num_layers = 1;
    config.model.optimizer = Optimizer::kNone;
    config.cluster.num_nodes = 1;
    config.cluster.num_devices = "2";
    config.io.block_size = 64 << 10;
    plan = *MakePlan(PlanOptionsFromConfig(config));
  }
  RoundSpec Spec(bool save) const {
    RoundSpec spec;
    spec.run_id = "run-fuzz";
    spec.round_id = save ? 1 : 2;
    spec.save = save;
    spec.index = 1;
    spec.step = 1;
    spec.seed = config.run.seed;
    spec.dir = "mem://fuzz/run/checkpoints";
    spec.step_uri = spec.dir + "/step-1";
    spec.expected = [](uint32_t, uint32_t, uint32_t, uint64_t* sum) {
      *sum = 0;
      return true;
    };
    return spec;
  }
  Config config;
  CheckpointPlan plan;
  RecordingNode node;
};

Rig& TheRig() {
  static Rig* rig = new Rig();
  return *rig;
}

void WriteSeeds(const std::string& dir) {
  Rig& rig = TheRig();
  RoundRunner runner(rig.config, rig.plan, {&rig.node}, nullptr);
  RoundResult saved = runner.Run(rig.Spec(true));
  // The load verifies against the checksums the save reported.
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint64_t> sums;
  for (const auto& c : rig.node.reports.at(0).checksums()) {
    sums[{c.rank(), c.file_index(), c.segment_index()}] = c.checksum();
  }
  RoundSpec load = rig.Spec(false);
  load.expected = [&sums](uint32_t r, uint32_t f, uint32_t s, uint64_t* sum) {
    auto it = sums.find({r, f, s});
    if (it == sums.end()) return false;
    *sum = it->second;
    return true;
  };
  RoundResult loaded = runner.Run(load);
  int k = 0;
  for (const auto& rep : rig.node.reports) {
    // A real report passes the check it seeds (no false alarm).
    const bool save = k == 0;
    const auto expect = ExpectPhase(
        NodeReplyFuzz::Prepare(runner, save ? rig.Spec(true) : load), 0);
    const absl::Status s = CheckNodeReply(
        [&] {
          v1::NodeMessage m;
          *m.mutable_phase_report() = rep;
          return m;
        }(),
        v1::NodeMessage::kPhaseReport, rig.node.Who(), &expect);
    std::fprintf(
        stderr, "seed %d (%s): %s\n", k, save ? "save" : "load",
        s.ok() ? "passes the check" : std::string(s.message()).c_str());
    v1::NodeMessage msg;
    msg.set_call_id(7);
    *msg.mutable_phase_report() = rep;
    std::ofstream(dir + "/report-" + std::to_string(k++), std::ios::binary)
        << msg.SerializeAsString();
  }
  std::fprintf(stderr, "wrote %d seeds to %s (save %s, load %s)\n", k,
               dir.c_str(), std::string(Name(saved.status)).c_str(),
               std::string(Name(loaded.status)).c_str());
}

}  // namespace
}  // namespace ckpt

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  if (const char* dir = std::getenv("CKPTBENCH_FUZZ_WRITE_SEEDS")) {
    ckpt::WriteSeeds(dir);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ckpt;
  v1::NodeMessage msg;
  if (!msg.ParseFromArray(data, static_cast<int>(size))) return 0;
  Rig& rig = TheRig();
  const std::string who = rig.node.Who();
  // A listing (its steps), or a phase report for a save and for a load of
  // the same plan: either round's report may fit.
  if (!msg.has_phase_report()) {
    (void)CheckNodeReply(msg, v1::NodeMessage::kInspect, who);
    return 0;
  }
  RoundRunner runner(rig.config, rig.plan, {&rig.node}, nullptr);
  for (bool save : {true, false}) {
    RoundSpec spec = rig.Spec(save);
    const PhaseExpectation expect =
        ExpectPhase(NodeReplyFuzz::Prepare(runner, spec), 0.002);
    msg.mutable_phase_report()->set_round_id(spec.round_id);
    if (!CheckNodeReply(msg, v1::NodeMessage::kPhaseReport, who, &expect)
             .ok()) {
      continue;
    }
    RunResult run;
    run.rounds.emplace_back();
    RoundResult& round = run.rounds.back();
    round.phase = save ? Phase::kSave : Phase::kLoad;
    round.index = 1;
    // What passed the check is what the codec holds (CheckNodeReply held it).
    NodeReplyFuzz::Aggregate(runner, {*FromWire(msg.phase_report())}, spec,
                             &round);
    (void)ResultToJson(run);
    (void)SummaryTable(run);
  }
  return 0;
}
