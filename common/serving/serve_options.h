// The serve workload's block of the configuration (serve.*): a model on
// storage loaded as a serving replica loads it (run.workload=serve). A
// block of Config (common/config_blocks.h): ServeOf(config); its keys are
// in serve_keys.cc. Thread-compatible (plain data).
#ifndef CKPTBENCH_COMMON_SERVING_SERVE_OPTIONS_H_
#define CKPTBENCH_COMMON_SERVING_SERVE_OPTIONS_H_

#include <cstdint>
#include <string>

#include "common/config.h"
#include "common/kinds.h"
#include "common/serving/model_files.h"

namespace ckpt {

// Bounds the key table and the node share (wire/serve_codec.h checks a job
// through the table).
inline constexpr int kMaxServeRanks = 1024;  // ranks of one replica
inline constexpr int kMaxServeLoads = 10000;
// Replicas `ckptbench run` holds in one process (NUM_NODES): a fleet on
// one host, each replica its ranks' threads and buffers.
inline constexpr int kMaxServeReplicasInOneProcess = 16;
inline constexpr int kMaxServeWriteThreads = 256;
// stream mode: reads in flight per rank, and one read's most bytes.
inline constexpr int kMaxStreamConcurrency = 1024;
inline constexpr uint64_t kMaxStreamChunk = 1ull << 30;
// serve.stagger: the gap between two replicas' starts; the last replica's
// start, (nodes - 1) x the gap, is held to the round protocol's most
// (kMaxStartDelaySeconds) by the coordinator's check.
inline constexpr double kMaxServeStaggerSeconds = 540;

struct ServeOptions {
  // Where the model lives; "" = <storage.path>/models/<model.name>-<dtype>.
  std::string path;
  // ckptbench: a model this workload generates (model.name's tensors, in
  // serve.dtype), made once and every byte verified on load; listed: the
  // *.safetensors under serve.path, read unverified.
  DatasetSource source = DatasetSource::kCkptbench;
  ModelDtype dtype = ModelDtype::kBf16;
  uint64_t file_bytes = kHfMaxShardBytes;  // a generated model's files
  uint64_t seed = 1;                       // its bytes
  ServeReadMode read_mode = ServeReadMode::kStream;
  ServeSplit split = ServeSplit::kTp;
  int concurrency = 8;             // reads in flight per rank (stream)
  uint64_t chunk_bytes = 8 << 20;  // one read's most bytes (stream)
  // download: the local directory each load copies the model into (a
  // fresh directory of the run's in it, removed after the load).
  std::string download_path = "/tmp";
  // Each rank keeps what it read in host memory (its share), instead of
  // dropping each chunk once checked.
  bool hold = false;
  int loads = 1;  // cold loads, each a timed round
  // Load rounds: replica (node) i starts i x this after the first, as an
  // autoscaler adds replicas one after another; 0: all at once.
  double stagger_seconds = 0;
  int write_threads = 4;  // generating: files written at once
  bool remove = false;    // remove the generated model instead
};

inline ServeOptions& ServeOf(Config& config) {
  return config.blocks.Get<ServeOptions>();
}
inline const ServeOptions& ServeOf(const Config& config) {
  return config.blocks.Get<ServeOptions>();
}

// serve.path, or <storage.path>/models/<model.name>-<serve.dtype>.
std::string ServeModelPath(const Config& config);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_SERVING_SERVE_OPTIONS_H_
