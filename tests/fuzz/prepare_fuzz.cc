// libFuzzer target: a node's handling of a round's prepare, as it arrives
// on the Session stream from whoever holds the coordinator's end. The
// input is a serialized v1::PrepareRequest. It goes through the codec
// (FromWire), which must refuse or accept it without crashing; what it
// accepts must come back from ToWire as a request the codec reads to the
// same job (ToWire of that is the same message again). A small checkpoint
// job on mem:// storage is then prepared by the node's CheckpointWorkload
// (names inside the step directory, the io keys rechecked, sizes against
// the store) and given back. Larger jobs are left at the codec: their
// buffers are what the node would allocate, bounded by CheckBufferMemory,
// not by this target's memory limit.
//
// Seeds (tests/fuzz/corpus/prepare) are real requests: with
// CKPTBENCH_FUZZ_WRITE_SEEDS=DIR, the target first writes a save's and a
// load's prepare, a resharded load's and another workload's into DIR.
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/message_differencer.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "common/phase_job.h"
#include "node/checkpoint/checkpoint_workload.h"
#include "node/storage/storage_factory.h"
#include "wire/prepare_codec.h"

namespace ckpt {
namespace {

using google::protobuf::util::MessageDifferencer;

// Whether the node may prepare `job` within this target's memory: a few
// small files of a checkpoint on mem:// storage, on the cpu, synchronous.
bool SmallEnoughToPrepare(const PhaseJob& job) {
  if (!job.workload.empty() || job.step_uri.rfind("mem://", 0) != 0) {
    return false;
  }
  if (job.loop.async || job.loop.accelerator != Accelerator::kCpu) {
    return false;
  }
  if (job.io.block_size > (1u << 20) || job.io.queue_depth > 8) return false;
  size_t files = 0;
  for (const RankJob& r : job.ranks) {
    for (const FileJob& f : r.files) {
      if (++files > 8 || f.size > (1u << 20)) return false;
    }
  }
  return true;
}

PhaseJob SeedJob(bool save) {
  PhaseJob job;
  job.run_id = "seed-run";
  job.round_id = save ? 1 : 2;
  job.save = save;
  job.seed = 7;
  job.step = 1;
  job.step_uri = "mem://fuzz/checkpoints/step_00000001";
  job.io.block_size = 64 << 10;
  job.io.queue_depth = 2;
  job.tensor_names = std::make_shared<const std::vector<std::string>>(
      std::vector<std::string>{"model.weight"});
  for (uint32_t rank = 0; rank < 2; ++rank) {
    RankJob r;
    r.rank = rank;
    FileJob f;
    f.path = "__" + std::to_string(rank) + "_0.distcp";
    f.size = 100 << 10;
    r.files.push_back(f);
    job.ranks.push_back(r);
  }
  return job;
}

void WriteSeeds(const std::string& dir) {
  auto write = [&](const std::string& name, const v1::PrepareRequest& req) {
    std::ofstream(dir + "/" + name, std::ios::binary)
        << req.SerializeAsString();
  };
  write("save", ToWire(SeedJob(true)));
  write("load", ToWire(SeedJob(false)));
  PhaseJob resharded = SeedJob(false);
  FileJob& f = resharded.ranks[0].files[0];
  f.ranges = true;
  f.segments.push_back({0, 0, 4096, 0, 0, false, 0, 0});
  f.segments.push_back({0, 4096, 4096, 8192, 0x1234, true, 0, 0});
  write("load_ranges", ToWire(resharded));
  PhaseJob other;
  other.run_id = "seed-run";
  other.round_id = 3;
  other.workload = "counting";
  other.workload_job = std::string("\x08\x03", 2);
  write("other_workload", ToWire(other));
}

}  // namespace
}  // namespace ckpt

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A string field of invalid UTF-8 fails the parse, as it should, and
  // protobuf logs each one: quiet, or the fuzzer spends its time writing.
  google::protobuf::SetLogHandler(nullptr);
  if (const char* dir = std::getenv("CKPTBENCH_FUZZ_WRITE_SEEDS")) {
    ckpt::WriteSeeds(dir);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ckpt::v1::PrepareRequest req;
  if (!req.ParseFromArray(data, static_cast<int>(size))) return 0;
  absl::StatusOr<ckpt::PhaseJob> job = ckpt::FromWire(req);
  if (!job.ok()) return 0;
  // What the codec accepted crosses again unchanged.
  const ckpt::v1::PrepareRequest once = ckpt::ToWire(*job);
  absl::StatusOr<ckpt::PhaseJob> again = ckpt::FromWire(once);
  if (!again.ok()) std::abort();
  if (!ckpt::MessageDifferencer::Equals(once, ckpt::ToWire(*again))) {
    std::abort();
  }
  if (ckpt::SmallEnoughToPrepare(*job)) {
    ckpt::StorageSet storage;
    ckpt::CheckpointWorkload workload;
    const std::atomic<bool> abort{false};
    (void)workload.Prepare(*std::move(job), storage, abort);
    workload.GiveBack();
  }
  return 0;
}
