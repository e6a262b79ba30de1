// The serve workload's keys: where the model is and whose (serve.path,
// serve.source), what a generated one is made of (model.name's tensors in
// serve.dtype, serve.file_bytes, serve.seed) and how a replica reads it
// (serve.read_mode, serve.split, serve.concurrency, serve.chunk_size).
#include "common/serving/serve_keys.h"

#include <utility>

#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"

namespace ckpt {

using namespace keydefs;  // NOLINT: the key-building helpers

void AddServeKeys(std::vector<KeyDef>* out,
                  std::vector<WorkloadChoice>* workloads) {
  WorkloadChoice serve;
  serve.name = kServeWorkload;
  serve.does =
      "load a model's safetensors files as a serving replica does, each node "
      "a replica of cluster.num_devices ranks: serve.*";
  workloads->push_back(std::move(serve));
  std::vector<KeyDef>& keys = *out;
  keys.push_back(StringKey(
      "serve.path", "CKPT_SERVE_PATH",
      "a path, file://path, s3:// or gs:// URI",
      [](auto& c) -> auto& { return ServeOf(c).path; },
      "the model's directory (default <storage.path>/models/<model.name>-"
      "<serve.dtype>)"));
  keys.push_back(KindKey<DatasetSource>(
      "serve.source", "CKPT_SERVE_SOURCE",
      [](auto& c) -> auto& { return ServeOf(c).source; },
      "ckptbench: a model generated from model.name's tensors, made once "
      "under serve.path and every byte verified on load; listed: your own "
      "*.safetensors (and model.safetensors.index.json) under serve.path, "
      "headers checked, tensors read unverified"));
  keys.push_back(KindKey<ModelDtype>(
      "serve.dtype", "CKPT_SERVE_DTYPE",
      [](auto& c) -> auto& { return ServeOf(c).dtype; },
      "a generated model's element type (published models: bf16)"));
  keys.push_back(SizeKey(
      "serve.file_bytes", "CKPT_SERVE_FILE_BYTES", 4096, 1ull << 40, 1,
      [](auto& c) -> auto& { return ServeOf(c).file_bytes; },
      "a generated model's files: at most this many tensor bytes each, as "
      "save_pretrained's max_shard_size (5GB, 10^9-based)"));
  keys.push_back(CountKey(
      "serve.seed", "CKPT_SERVE_SEED", 0, UINT64_MAX,
      [](auto& c) -> auto& { return ServeOf(c).seed; },
      "seed of a generated model's bytes"));
  keys.push_back(KindKey<ServeReadMode>(
      "serve.read_mode", "CKPT_SERVE_READ_MODE",
      [](auto& c) -> auto& { return ServeOf(c).read_mode; },
      "how a rank reads its tensors: stream (serve.concurrency ranged reads "
      "of serve.chunk_size into a bounded pool, as Run:ai's Model "
      "Streamer); mmap (each file mapped, its tensors copied out through "
      "page faults, one thread, as safetensors' safe_open; local and FUSE "
      "paths); direct (stream's reads with O_DIRECT, past the page cache; "
      "local paths); download (the files copied whole to "
      "serve.download_path first, as an init container does, with stream's "
      "reads, then mapped from there as mmap)"));
  keys.push_back(KindKey<ServeSplit>(
      "serve.split", "CKPT_SERVE_SPLIT",
      [](auto& c) -> auto& { return ServeOf(c).split; },
      "tp: every rank its tensor-parallel slice of every tensor, as vLLM "
      "splits a Llama; files: whole files per rank"));
  keys.push_back(IntKey(
      "serve.concurrency", "CKPT_SERVE_CONCURRENCY", 1, kMaxStreamConcurrency,
      [](auto& c) -> auto& { return ServeOf(c).concurrency; },
      "stream: reads in flight per rank, each into a buffer of its own"));
  keys.push_back(SizeKey(
      "serve.chunk_size", "CKPT_SERVE_CHUNK_SIZE", 4096, kMaxStreamChunk, 1,
      [](auto& c) -> auto& { return ServeOf(c).chunk_bytes; },
      "stream: one read's most bytes (a rank holds serve.concurrency of "
      "them)"));
  KeyDef download = StringKey(
      "serve.download_path", "CKPT_SERVE_DOWNLOAD_PATH",
      "an absolute path of a local directory other than /, at most 1024 "
      "bytes",
      [](auto& c) -> auto& { return ServeOf(c).download_path; },
      "download: the node's local directory the model is copied into (each "
      "load a fresh directory of the run's inside it, removed after the "
      "load)");
  download.set = [expected = download.expected](Config& c,
                                                const std::string& v) {
    std::string path = v;
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    if (path.size() < 2 || path[0] != '/' || path.size() > 1024 ||
        path.find('\0') != std::string::npos) {
      return Expect(expected);
    }
    ServeOf(c).download_path = path;
    return absl::OkStatus();
  };
  keys.push_back(std::move(download));
  keys.push_back(BoolKey(
      "serve.hold", "CKPT_SERVE_HOLD",
      [](auto& c) -> auto& { return ServeOf(c).hold; },
      "each rank keeps what it read in host memory, a CPU-side copy of its "
      "weights (memory: the replica's planned bytes, allocated before the "
      "clock); false: each chunk dropped once checked, memory bounded by "
      "the read mode"));
  keys.push_back(IntKey(
      "serve.loads", "CKPT_SERVE_LOADS", 1, kMaxServeLoads,
      [](auto& c) -> auto& { return ServeOf(c).loads; },
      "cold loads of the model, each a timed round"));
  keys.push_back(DurationKey(
      "serve.stagger", "CKPT_SERVE_STAGGER", kMaxServeStaggerSeconds,
      [](auto& c) -> auto& { return ServeOf(c).stagger_seconds; },
      "load rounds: replica (node) i starts i x this after the first, as an "
      "autoscaler adds replicas one after another (0: all at once; the "
      "last start at most 540 s after the first)"));
  keys.push_back(IntKey(
      "serve.write_threads", "CKPT_SERVE_WRITE_THREADS", 1,
      kMaxServeWriteThreads,
      [](auto& c) -> auto& { return ServeOf(c).write_threads; },
      "generating a model: files each node writes at once"));
  keys.push_back(BoolKey(
      "serve.remove", "CKPT_SERVE_REMOVE",
      [](auto& c) -> auto& { return ServeOf(c).remove; },
      "remove the model ckptbench generated at serve.path (its manifest "
      "first, then exactly the files it names) instead of loading it"));
}

}  // namespace ckpt
