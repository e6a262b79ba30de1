#include "common/config.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/config_keys.h"
#include "common/cuda.h"
#include "common/dataset/dataset_options.h"
#include "common/key_recheck.h"
#include "common/status_macros.h"

namespace ckpt {
std::string Config::StepsPath() const {
  std::string p = storage.path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p + "/checkpoints";
}

std::string Config::RestorePath() const {
  if (!storage.restore_path.empty()) {
    std::string p = storage.restore_path;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    return p;
  }
  return StepsPath();
}

int Config::RanksPerNode() const {
  if (cluster.num_devices == "auto" &&
      cluster.accelerator == Accelerator::kGpu) {
    // A rank per GPU this process sees (ValidateConfig refuses none).
    auto gpus = cuda::DeviceCount();
    return gpus.ok() ? *gpus : 1;
  }
  if (cluster.num_devices == "auto") {
    unsigned n = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(n, 1u, 8u));
  }
  return std::stoi(cluster.num_devices);
}

namespace {

// The key table and the workloads' choices, built together once.
struct ConfigKeyTable {
  std::vector<WorkloadChoice> workloads;
  std::vector<KeyDef> keys = BuildConfigKeys(&workloads);
};

const ConfigKeyTable& TheConfigKeyTable() {
  static const ConfigKeyTable* table = new ConfigKeyTable;
  return *table;
}

}  // namespace

const std::vector<KeyDef>& ConfigKeys() { return TheConfigKeyTable().keys; }

const std::vector<WorkloadChoice>& WorkloadChoices() {
  return TheConfigKeyTable().workloads;
}

const KeyDef* FindKey(const std::string& name) {
  for (const auto& k : ConfigKeys()) {
    if (k.key == name || k.env == name) return &k;
  }
  return nullptr;
}

std::vector<std::string> AllKeyNames() {
  std::vector<std::string> names;
  for (const auto& k : ConfigKeys()) {
    names.push_back(k.key);
    if (!k.env.empty()) names.push_back(k.env);
  }
  return names;
}

BackendOptions BackendOptionsOf(const Config& config) {
  return {config.storage.flavour, config.s3, config.gcs};
}

absl::Status CheckBackendOptions(const BackendOptions& options) {
  Config c;
  c.storage.flavour = options.flavour;
  c.s3 = options.s3;
  c.gcs = options.gcs;
  RETURN_IF_ERROR(RecheckKeys(c, "storage.flavour"));
  RETURN_IF_ERROR(RecheckKeys(c, "s3."));
  return RecheckKeys(c, "gcs.");
}

namespace {

absl::Status Recheck(const KeyDef& k, const std::string& v, Config& scratch) {
  if (auto s = k.set(scratch, v); !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(k.key, " = '", v, "': ", s.message()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RecheckKeys(const Config& config, const std::string& prefix) {
  Config scratch;
  for (const auto& k : ConfigKeys()) {
    if (k.key.rfind(prefix, 0) != 0) continue;
    RETURN_IF_ERROR(Recheck(k, k.get(config), scratch));
  }
  return absl::OkStatus();
}

absl::Status RecheckKey(const std::string& key, const std::string& value) {
  const KeyDef* k = FindKey(key);
  if (k == nullptr) {
    return absl::InternalError(absl::StrCat("no configuration key ", key));
  }
  Config scratch;
  return Recheck(*k, value, scratch);
}

absl::Status CheckStorageLocations(const Config& c) {
  RETURN_IF_ERROR(
      CheckStorageUri("storage.path (CKPT_DIR_PATH)", c.storage.path));
  RETURN_IF_ERROR(CheckStorageUri("storage.restore_path (CKPT_RESTORE_PATH)",
                                  c.storage.restore_path));
  RETURN_IF_ERROR(
      CheckStorageUri("dataset.path (CKPT_DATASET_PATH)", DatasetOf(c).path));
  RETURN_IF_ERROR(
      CheckEndpoint("s3.endpoint (AWS_ENDPOINT_URL_S3)", c.s3.endpoint));
  return CheckEndpoint("gcs.endpoint (CKPT_GCS_ENDPOINT)", c.gcs.endpoint);
}

absl::Status CheckSharedKeys(const Config& c) {
  if (c.storage.node_local && CheckpointOf(c).load.rank_shift > 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "load.rank_shift (CKPT_RANK_SHIFT) = ", CheckpointOf(c).load.rank_shift,
        " reads other ranks' shards, and with storage.node_local=true each "
        "node holds only its own: expected 0 or auto, or shared storage"));
  }
  if (!c.storage.node_local &&
      (c.storage.path.find("{node}") != std::string::npos ||
       c.storage.restore_path.find("{node}") != std::string::npos)) {
    return absl::InvalidArgumentError(
        "storage.path / storage.restore_path contain {node}: that placeholder "
        "is for node-local storage; expected storage.node_local=true "
        "(CKPT_NODE_LOCAL) or a path without it");
  }
#ifndef CKPT_HAVE_CUDA
  if (c.cluster.accelerator == Accelerator::kGpu) {
    return absl::InvalidArgumentError(
        "cluster.accelerator (ACCELERATOR) = 'gpu': this build of ckptbench "
        "has no GPU support (it was built without the CUDA toolkit; "
        "scripts/build.sh finds it in /usr/local/cuda or CUDAToolkit_ROOT); "
        "expected cpu");
  }
#else
  if (c.cluster.accelerator == Accelerator::kGpu &&
      c.cluster.num_devices == "auto") {
    if (auto gpus = cuda::DeviceCount(); !gpus.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cluster.num_devices (NUM_DEVICES) = auto with ACCELERATOR=gpu "
          "counts this process's GPUs, and there are none (",
          gpus.status().message(),
          "); expected NUM_DEVICES=N, the GPUs on each node"));
    }
  }
#endif
  if ((c.io.direct_write || c.io.direct_read ||
       c.io.cache_mode == CacheMode::kDirect) &&
      c.io.block_size % 4096 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("io.block_size (CKPT_BLOCK_SIZE) = ", c.io.block_size,
                     ": expected a multiple of 4096 when O_DIRECT is used"));
  }
  return absl::OkStatus();
}

}  // namespace ckpt
