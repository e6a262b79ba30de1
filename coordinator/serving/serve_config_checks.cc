// The serve workload's checks of the configuration (CheckServeKeys,
// coordinator/serving/serve_run.h).
#include "absl/strings/str_cat.h"
#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"
#include "common/storage_uri.h"
#include "coordinator/serving/serve_run.h"

namespace ckpt {

absl::Status CheckServeKeys(const Config& c, const KeyCheckScope& scope) {
  const ServeOptions& s = ServeOf(c);
  if (c.run.workload != kServeWorkload) {
    if (s.remove) {
      return absl::InvalidArgumentError(absl::StrCat(
          "serve.remove (CKPT_SERVE_REMOVE) = true with run.workload = ",
          c.run.workload, ": expected run.workload = serve"));
    }
    return absl::OkStatus();
  }
  if (scope.need_storage && s.path.empty() && c.storage.path.empty()) {
    return absl::InvalidArgumentError(
        "serve.path (CKPT_SERVE_PATH) is not set, nor storage.path "
        "(CKPT_DIR_PATH): expected the model's directory or URI, e.g. "
        "CKPT_SERVE_PATH=s3://bucket/models/llama-3.1-8b");
  }
  if ((s.read_mode == ServeReadMode::kMmap ||
       s.read_mode == ServeReadMode::kDirect) &&
      IsObjectStoreUri(ServeModelPath(c))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve.read_mode (CKPT_SERVE_READ_MODE) = ",
        std::string(Name(s.read_mode)), " with the model at ",
        ServeModelPath(c),
        ": expected stream or download for an object store (mmap and direct "
        "read a file system: a local path, or a FUSE mount's for mmap)"));
  }
  // O_DIRECT asked of reads that go through the page cache: only
  // serve.read_mode=direct reads with it.
  if ((c.io.direct_read || c.io.cache_mode == CacheMode::kDirect) &&
      s.read_mode != ServeReadMode::kDirect) {
    return absl::InvalidArgumentError(absl::StrCat(
        c.io.direct_read ? "io.direct_read (CKPT_DIRECT_READ) = true"
                         : "io.cache_mode (CKPT_CACHE_MODE) = direct",
        " with serve.read_mode (CKPT_SERVE_READ_MODE) = ",
        std::string(Name(s.read_mode)),
        ": a serve load reads with O_DIRECT only in serve.read_mode = direct; "
        "expected that, or io.cache_mode auto, drop or fadvise"));
  }
  if (s.source == DatasetSource::kListed && s.path.empty()) {
    return absl::InvalidArgumentError(
        "serve.source (CKPT_SERVE_SOURCE) = listed: expected serve.path "
        "(CKPT_SERVE_PATH), the directory of your model's *.safetensors");
  }
  if (s.source == DatasetSource::kListed && s.remove) {
    return absl::InvalidArgumentError(
        "serve.remove (CKPT_SERVE_REMOVE) = true with serve.source = listed: "
        "ckptbench removes only a model it generated");
  }
  // The last replica's start: the round protocol waits at most so long.
  const double last_start = (c.cluster.num_nodes - 1) * s.stagger_seconds;
  if (last_start > kMaxServeStaggerSeconds) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve.stagger (CKPT_SERVE_STAGGER) = ", s.stagger_seconds, " s over ",
        c.cluster.num_nodes, " replicas starts the last ", last_start,
        " s after the first; expected at most ", kMaxServeStaggerSeconds,
        " s (a smaller stagger, or fewer nodes)"));
  }
  const int ranks = c.RanksPerNode();
  if (ranks > kMaxServeRanks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cluster.num_devices (NUM_DEVICES) = ", ranks,
        ": a serving replica has at most ", kMaxServeRanks, " ranks"));
  }
  if (s.source == DatasetSource::kCkptbench && !s.remove) {
    GeneratedModel m;
    m.preset = c.model.name;
    m.num_layers = c.model.num_layers;
    m.dtype = s.dtype;
    m.file_bytes = s.file_bytes;
    m.seed = s.seed;
    absl::StatusOr<GeneratedFiles> files = GeneratedModelFiles(m);
    if (!files.ok()) return files.status();
  }
  return absl::OkStatus();
}

}  // namespace ckpt
