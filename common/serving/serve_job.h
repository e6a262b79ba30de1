// The serve workload's messages as both sides hold them: what a node is
// asked (ServeJob: make its share of a generated model, load the model as
// one replica of `ranks` ranks, or remove a generated model), what its
// prepare found (ServePrepared) and what it did (ServeReport). The
// coordinator's side (coordinator/serving/serve_round.h) builds the job and
// reads the other two; the node's (node/serving/serve_workload.h) the
// reverse; wire/serve_codec.h carries each inside the round protocol's
// workload bytes, checked.
#ifndef CKPTBENCH_COMMON_SERVING_SERVE_JOB_H_
#define CKPTBENCH_COMMON_SERVING_SERVE_JOB_H_

#include <cstdint>
#include <string>
#include <vector>

#include "common/config.h"
#include "common/kinds.h"
#include "common/serving/model_manifest.h"

namespace ckpt {

// The workload's name on the wire (PhaseJob::workload), in a node's
// registry of workloads and as run.workload's value.
inline constexpr char kServeWorkload[] = "serve";

enum class ServeAction { kMake, kLoad, kRemove };

struct ServeJob {
  ServeAction action = ServeAction::kLoad;
  std::string model_uri;  // the node's view of the model's directory
  // A generated model (making; loading one ckptbench made, verified).
  bool generated = true;
  GeneratedModel model;
  // Making: node `share_index` of `share_count` writes the files
  // [k * n / count, (k + 1) * n / count); the manifest owner claims the
  // directory and writes the pending manifest at prepare.
  uint32_t share_index = 0, share_count = 1;
  bool manifest_owner = false;
  uint32_t write_threads = 4;
  uint64_t block_size = 4 << 20;
  bool fsync = true;
  // Loading: the replica's ranks and how they read.
  uint32_t ranks = 1;
  ServeReadMode read_mode = ServeReadMode::kStream;
  ServeSplit split = ServeSplit::kTp;
  uint32_t concurrency = 8;
  uint64_t chunk_bytes = 8 << 20;
  // download: the node's local directory the model is copied into.
  std::string download_path;
  bool hold = false;    // each rank keeps its share in host memory
  bool on_gpu = false;  // ACCELERATOR=gpu: each rank's share in GPU memory
  CacheMode cache_mode = CacheMode::kAuto;
  BackendOptions backend;
};

struct ServePrepared {
  bool manifest_found = false;
  bool reuse = false;  // making: the manifest matches, nothing written
  // Loading: the model as its headers say, and the replica's plan.
  uint64_t files = 0, tensors = 0;
  uint64_t model_bytes = 0;   // the files' bytes
  uint64_t header_bytes = 0;  // their headers' (8 + N each)
  uint64_t read_bytes = 0;    // the ranks' planned tensor bytes, summed
  uint64_t ranges = 0;        // their byte ranges, summed
};

// One rank's load: its tensor bytes, after every file's header.
struct ServeRankReport {
  uint64_t bytes = 0;
  uint64_t requests = 0;  // reads of its ranges (stream: chunks)
  // Since the phase's start: its first tensor byte in, its last.
  double first_byte_seconds = 0, last_byte_seconds = 0;
  // Object stores: the requests its reads (headers' and tensors') sent
  // again after a throttle or an error, and the responses that were
  // throttles (503 SlowDown, 429).
  uint64_t retries = 0, throttles = 0;
  // File systems: bytes of its reads the host's page cache held when they
  // were to be read (another replica on the host, or an earlier load,
  // had read them).
  uint64_t cached_bytes = 0;
};

// An object store's requests for one of the model's objects (a file), by
// a replica: its ranks' tensor reads and its download's copy. A report
// names at most kMaxModelReportObjects, each name at most
// kMaxModelObjectName bytes (a listing's bound on a model's directory).
inline constexpr int kMaxModelReportObjects = 1 << 16;
inline constexpr size_t kMaxModelObjectName = 1024;
struct ServeObjectReport {
  std::string name;
  uint64_t requests = 0, retries = 0, throttles = 0;
};

struct ServeReport {
  // Loading in download mode, since the phase's start: the files copied
  // whole to the local directory (their bytes, headers included, and the
  // reads that fetched them), before the headers are read from the copy.
  double download_seconds = 0;
  uint64_t download_bytes = 0, download_requests = 0;
  uint64_t download_retries = 0, download_throttles = 0;  // as a rank's
  uint64_t download_cached_bytes = 0;                     // as a rank's
  // File systems: bytes of the model's files in the host's page cache at
  // the replica's start, before its first read.
  uint64_t cached_at_start_bytes = 0;
  // Object stores: per object that was sent requests, in the model's order.
  std::vector<ServeObjectReport> objects;
  // Loading: the headers, read by every rank before its tensors (each a
  // read of 8 bytes then one of N, as safetensors' readers read them),
  // summed over ranks; the seconds are the slowest rank's.
  uint64_t header_reads = 0, header_bytes = 0;
  double headers_seconds = 0;
  std::vector<ServeRankReport> ranks;
  bool verified = false;  // every byte checked against the pattern
  // Making or removing: files written (with their bytes) or removed.
  uint64_t files = 0, bytes = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_SERVE_JOB_H_
