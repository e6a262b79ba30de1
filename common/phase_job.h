// What a node is asked to do in a round (the prepare), as both sides hold
// it: the coordinator's workload builds it, wire/prepare_codec.h carries
// it, the node runs it. For the checkpoint (`workload` empty) the fields
// below say which files each of the node's ranks saves or loads; another
// workload names itself and sends its own job, opaque to the protocol.
#ifndef CKPTBENCH_COMMON_PHASE_JOB_H_
#define CKPTBENCH_COMMON_PHASE_JOB_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/kinds.h"

namespace ckpt {

struct SegmentJob {
  uint32_t tensor = 0;  // index into FileJob::tensor_names
  uint64_t tensor_offset = 0;
  uint64_t length = 0;
  uint64_t file_offset = 0;
  uint64_t expected = 0;  // checksum, for loads
  bool has_expected = false;
  // A resharded load's: the file bytes of it the rank owns (0 length: all
  // of it), what a device load copies to the device (Segment in node.proto).
  uint64_t keep_offset = 0;
  uint64_t keep_length = 0;
};

struct FileJob {
  uint32_t rank = 0;  // the rank that writes it (a shifted load's: another)
  uint32_t index = 0;
  // The file's name in the step directory as sent; the node's agent makes
  // it the full path in its storage namespace when it prepares.
  std::string path;
  uint64_t size = 0;
  // Contiguous, covering [0, size); with `ranges`, the byte ranges of the
  // file to read (sorted, disjoint): a resharded restore's.
  std::vector<SegmentJob> segments;
  bool ranges = false;
  // The plan's tensor names (shared by every file of a phase; for errors).
  std::shared_ptr<const std::vector<std::string>> tensor_names;
};

struct RankJob {
  uint32_t rank = 0;
  std::vector<FileJob> files;
};

// Where shard bytes live and how a save meets the training loop
// (TrainingLoop in node.proto).
struct TrainingLoopOptions {
  Accelerator accelerator = Accelerator::kCpu;
  HostStaging staging = HostStaging::kPinned;  // gpu: host memory
  bool async = false;                          // saves: stage, then persist
  double interval_seconds = 0;  // async: simulated training between saves
};

struct PhaseJob {
  std::string run_id;
  uint64_t round_id = 0;
  // "" for the checkpoint (the fields below); another names a workload the
  // node was built with, which reads `workload_job` (its own message,
  // serialized) and nothing else here.
  std::string workload;
  std::string workload_job;
  bool save = true;
  uint64_t seed = 0;
  uint64_t step = 0;
  std::string step_uri;
  IoOptions io;  // checked through the key table by CheckpointWorkload::Prepare
  BackendOptions backend;  // storage.flavour, s3.*, gcs.*
  TrainingLoopOptions loop;
  // The plan's tensor names, the ones every FileJob::tensor_names shares.
  std::shared_ptr<const std::vector<std::string>> tensor_names;
  std::vector<RankJob> ranks;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_PHASE_JOB_H_
