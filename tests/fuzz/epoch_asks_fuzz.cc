// libFuzzer target: the coordinator's side of checkpoints during a dataload
// epoch (EpochSaves, coordinator/dataset/epoch_saves.h) fed the asks nodes
// send mid-epoch as hostile input: any node number, any payload (an
// EpochSaveAsk or not), in any order, duplicated, out of turn. Each ask is
// answered or refused (never left waiting once the epoch is over); a save
// whose every node said "saved" is checked and committed through node 0
// (in-process, memory storage) or failed. Nothing may crash, hang or be
// undefined.
//
// Input: records of [node byte][length byte][payload of that length], at
// most kMaxAsks. Seeds (tests/fuzz/corpus/epoch_asks) are honest runs of
// two nodes: starts, saves and a node that finished early.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/dataset/dataload_job.h"
#include "common/dataset/dataset_options.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/dataset/epoch_saves.h"
#include "coordinator/steps.h"
#include "inprocess/local_node_client.h"

namespace ckpt {
namespace {

constexpr size_t kMaxAsks = 64;
constexpr char kDir[] = "mem://fuzz/checkpoints";

struct Fixture {
  Fixture() {
    config.storage.path = "mem://fuzz";
    config.cluster.num_nodes = 2;
    config.cluster.num_devices = "1";
    config.model.num_layers = 1;
    config.model.optimizer = Optimizer::kNone;
    config.run.workload = kDataloadWorkload;
    DataloadOf(config).checkpoint_every = 2;
    plan = *MakePlan(PlanOptionsFromConfig(config));
    for (int i = 0; i < 2; ++i) {
      owned.push_back(std::make_unique<LocalNodeClient>(
          i, "fuzz-" + std::to_string(i), 10, memory));
      nodes.push_back(owned.back().get());
    }
  }
  Config config;
  CheckpointPlan plan;
  std::shared_ptr<MemoryStore> memory = std::make_shared<MemoryStore>();
  std::vector<std::unique_ptr<LocalNodeClient>> owned;
  std::vector<NodeClient*> nodes;
};

}  // namespace
}  // namespace ckpt

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ckpt;
  static Fixture* f = new Fixture();
  uint64_t round = 0;
  EpochSavesContext context;
  context.spec = [&round](uint64_t step) {
    RoundSpec spec;
    spec.run_id = "fuzz";
    spec.round_id = ++round;
    spec.save = true;
    spec.step = step;
    spec.step_uri = StepUri(kDir, step);
    spec.dir = kDir;
    spec.seed = 1;
    return spec;
  };
  context.claim = [](uint64_t step) -> absl::StatusOr<uint64_t> {
    return step;
  };
  context.step_uri = [](uint64_t step) { return StepUri(kDir, step); };
  auto answered = std::make_shared<size_t>(0);
  {
    EpochSaves saves(f->config, f->plan, f->nodes, context, 1);
    (void)saves.JobFor(0);
    size_t at = 0, asks = 0;
    while (at + 2 <= size && asks < kMaxAsks) {
      const size_t node = data[at] % 3;  // 2: no such node
      const size_t len = std::min<size_t>(data[at + 1], size - at - 2);
      ActionAsk ask{
          1, ++asks,
          std::string(reinterpret_cast<const char*>(data + at + 2), len)};
      at += 2 + len;
      saves.OnAsk(node, ask, [answered](ActionAnswer) { ++*answered; });
      (void)saves.SaveStepIs(1, 1);
    }
    (void)saves.TakeRounds();
    (void)saves.uncommitted_step();
    (void)saves.next_step();
  }
  return 0;
}
