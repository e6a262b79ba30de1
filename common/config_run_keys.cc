// The configuration's keys, in the order `ckptbench keys` lists them (the
// object stores' in config_store_keys.cc).
#include <algorithm>
#include <iterator>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/checkpoint/checkpoint_keys.h"
#include "common/config_keys.h"
#include "common/dataset/dataset_keys.h"
#include "common/serving/serve_keys.h"

namespace ckpt {

using namespace keydefs;  // NOLINT: the key-building helpers

namespace {

// run.workload: one of the workloads' names, each said in its help.
KeyDef WorkloadKey(const std::vector<WorkloadChoice>& workloads) {
  std::vector<std::string> names;
  std::vector<std::string> said;
  for (const WorkloadChoice& w : workloads) {
    names.push_back(w.name);
    said.push_back(absl::StrCat(w.name, " (", w.does, ")"));
  }
  return EnumKey(
      "run.workload", "CKPT_WORKLOAD", std::move(names),
      [](auto& c) -> auto& { return c.run.workload; },
      absl::StrCat("what the run does: ", absl::StrJoin(said, ", ")));
}

// Each run of `placed` right after the key it follows.
void PlaceAfter(std::vector<KeysAfter> placed, std::vector<KeyDef>* keys) {
  for (KeysAfter& run : placed) {
    auto at = std::find_if(keys->begin(), keys->end(),
                           [&](const KeyDef& k) { return k.key == run.after; });
    if (at != keys->end()) ++at;  // else at the end: a unit test says so
    keys->insert(at, std::make_move_iterator(run.keys.begin()),
                 std::make_move_iterator(run.keys.end()));
  }
}

}  // namespace

std::vector<KeyDef> BuildConfigKeys(std::vector<WorkloadChoice>* workloads) {
  std::vector<KeyDef> keys;
  keys.push_back(StringKey(
      "storage.path", "CKPT_DIR_PATH",
      "a path, file://path, s3:// or gs:// URI",
      [](auto& c) -> auto& { return c.storage.path; },
      "where checkpoints are written (saves go under <path>/checkpoints/)"));
  keys.push_back(StringKey(
      "storage.restore_path", "CKPT_RESTORE_PATH", "a path or URI",
      [](auto& c) -> auto& { return c.storage.restore_path; },
      "where checkpoints are loaded from (default <path>/checkpoints)"));
  keys.push_back(StringKey(
      "model.name", "CKPT_MODEL", "a model preset name (ckptbench plan --list)",
      [](auto& c) -> auto& { return c.model.name; },
      "model preset: transformer, llama-7b..70b, vit-base, llama3-8b..1t"));
  keys.push_back(IntKey(
      "model.num_layers", "NUM_LAYERS", 1,
      [](auto& c) -> auto& { return c.model.num_layers; },
      "transformer preset: encoder and decoder layers (model size)"));
  keys.push_back(KindKey<Optimizer>(
      "model.optimizer", "CKPT_OPTIMIZER",
      [](auto& c) -> auto& { return c.model.optimizer; },
      "optimizer state saved with the weights (adam: 2 fp32 moments)"));
  keys.push_back(IntKey(
      "cluster.num_nodes", "NUM_NODES", 1,
      [](auto& c) -> auto& { return c.cluster.num_nodes; },
      "nodes taking part"));
  {
    KeyDef k;
    k.key = "cluster.num_devices";
    k.env = "NUM_DEVICES";
    k.expected =
        absl::StrCat("auto or ", IntRange(1, std::numeric_limits<int>::max()));
    k.description = "ranks per node (auto: online CPUs, at most 8)";
    k.set = [expected = k.expected](Config& c,
                                    const std::string& v) -> absl::Status {
      if (v == "auto") {
        c.cluster.num_devices = v;
        return absl::OkStatus();
      }
      int n = 0;
      if (!ParseInt(v, 1, &n).ok()) return Expect(expected);
      c.cluster.num_devices = v;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return c.cluster.num_devices; };
    keys.push_back(k);
  }
  keys.push_back(KindKey<Accelerator>(
      "cluster.accelerator", "ACCELERATOR",
      [](auto& c) -> auto& { return c.cluster.accelerator; },
      "where shard bytes live before a save"));
  keys.push_back(KindKey<HostStaging>(
      "cluster.staging", "CKPT_STAGING",
      [](auto& c) -> auto& { return c.cluster.staging; },
      "ACCELERATOR=gpu: host memory that device bytes are copied through "
      "(pageable is what a plain .cpu() copy gets)"));
  {
    KeyDef k;
    k.key = "run.seed";
    k.env = "CKPT_SEED";
    k.expected = "a non-negative integer";
    k.description = "seed of the deterministic shard bytes";
    k.set = [](Config& c, const std::string& v) {
      return ParseU64(v, &c.run.seed);
    };
    k.get = [](const Config& c) { return std::to_string(c.run.seed); };
    keys.push_back(k);
  }
  keys.push_back(BoolKey(
      "run.keep_all_steps", "CKPT_KEEP_ALL_STEPS",
      [](auto& c) -> auto& { return c.run.keep_all_steps; },
      "keep every saved step (default: keep only the newest committed)"));
  keys.push_back(SecondsKey(
      "run.progress_interval", "CKPT_PROGRESS_INTERVAL",
      [](auto& c) -> auto& { return c.run.progress_interval; },
      "seconds between progress lines during a round"));
  {
    KeyDef k;
    k.key = "io.block_size";
    k.env = "CKPT_BLOCK_SIZE";
    k.expected = "a byte size >= 4KiB such as 1MiB or 4MiB";
    k.description = "bytes per write()/read() call";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      auto s = ParseByteSize(v);
      if (!s.ok() || *s < 4096 || *s > (1ull << 30)) {
        return Expect("a byte size from 4KiB to 1GiB such as 1MiB or 4MiB");
      }
      c.io.block_size = *s;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return std::to_string(c.io.block_size); };
    keys.push_back(k);
  }
  keys.push_back(AutoIntKey(
      "io.queue_depth", "CKPT_QUEUE_DEPTH", 0, 64,
      [](auto& c) -> auto& { return c.io.queue_depth; },
      "blocks in flight per file: a load keeps this many reads going on "
      "their own threads while the file's thread verifies (reads of one "
      "file at once: only on paths; object stores have "
      "s3.ranges_in_flight); a save generates this many blocks ahead of "
      "its sequential writes; 0: generate/verify and write/read take "
      "turns on one thread; auto: 2 where the I/O call waits without "
      "using the CPU (direct I/O, FUSE mounts, object stores), 0 for "
      "buffered local files (the call is the kernel's copy)"));
  keys.push_back(BoolKey(
      "io.fsync", "CKPT_FSYNC", [](auto& c) -> auto& { return c.io.fsync; },
      "fsync each file (and the step directory) before a rank is durable"));
  keys.push_back(BoolKey(
      "io.direct_write", "CKPT_DIRECT_WRITE",
      [](auto& c) -> auto& { return c.io.direct_write; },
      "O_DIRECT for writes"));
  keys.push_back(BoolKey(
      "io.direct_read", "CKPT_DIRECT_READ",
      [](auto& c) -> auto& { return c.io.direct_read; }, "O_DIRECT for reads"));
  keys.push_back(KindKey<CacheMode>(
      "io.cache_mode", "CKPT_CACHE_MODE",
      [](auto& c) -> auto& { return c.io.cache_mode; },
      "how loads avoid the page cache (none: allow cached reads)"));
  keys.push_back(KindKey<ChecksumKind>(
      "io.checksum", "CKPT_CHECKSUM",
      [](auto& c) -> auto& { return c.io.checksum; },
      "checksum recorded in .metadata and verified on load"));
  AddObjectStoreKeys(&keys);
  // The names WorkloadRegistry::BuiltIn() registers (a unit test holds
  // them equal): the workloads this binary runs, the checkpoint's first.
  // The checkpoint's keys sit among the shared ones, the others' after the
  // key that chooses the workload.
  workloads->clear();
  std::vector<KeysAfter> placed = AddCheckpointKeys(workloads);
  std::vector<KeyDef> workload_keys;
  AddDatasetKeys(&workload_keys, workloads);
  AddServeKeys(&workload_keys, workloads);
  keys.push_back(WorkloadKey(*workloads));
  for (KeyDef& k : workload_keys) keys.push_back(std::move(k));
  keys.push_back(KindKey<StorageFlavour>(
      "storage.flavour", "CKPT_STORAGE_FLAVOUR",
      [](auto& c) -> auto& { return c.storage.flavour; },
      "paths: local disk, or a FUSE object-store mount (sequential writes, no "
      "O_DIRECT, no rename, close is the durability point); auto: from the "
      "mount type"));
  keys.push_back(BoolKey(
      "storage.node_local", "CKPT_NODE_LOCAL",
      [](auto& c) -> auto& { return c.storage.node_local; },
      "each node saves to and loads from its own disk (boot disks)"));
  keys.push_back(StringKey(
      "control.listen", "CKPT_LISTEN", "HOST:PORT",
      [](auto& c) -> auto& { return c.control.listen; },
      "coordinator: address to serve the node sessions and health on"));
  keys.push_back(StringKey(
      "control.coordinator", "CKPT_COORDINATOR", "HOST[:PORT]",
      [](auto& c) -> auto& { return c.control.coordinator; },
      "node: the coordinator's address (a DNS name in Kubernetes; port "
      "50051 if none)"));
  keys.push_back(AutoIntKey(
      "control.node_index", "CKPT_NODE_INDEX", 0,
      std::numeric_limits<int>::max(),
      [](auto& c) -> auto& { return c.control.node_index; },
      "node: its index (auto: JOB_COMPLETION_INDEX, NODE_RANK or the host "
      "name's trailing number)"));
  keys.push_back(SecondsKey(
      "control.register_timeout", "CKPT_REGISTER_TIMEOUT",
      [](auto& c) -> auto& { return c.control.register_timeout; },
      "coordinator: how long to wait for all NUM_NODES nodes"));
  keys.push_back(SecondsKey(
      "control.node_timeout", "CKPT_NODE_TIMEOUT",
      [](auto& c) -> auto& { return c.control.node_timeout; },
      "a node silent this long is failed (heartbeats every interval)"));
  keys.push_back(SecondsKey(
      "control.heartbeat_interval", "CKPT_HEARTBEAT_INTERVAL",
      [](auto& c) -> auto& { return c.control.heartbeat_interval; },
      "how often nodes send a heartbeat"));
  keys.push_back(SecondsKey(
      "control.connect_timeout", "CKPT_CONNECT_TIMEOUT",
      [](auto& c) -> auto& { return c.control.connect_timeout; },
      "node: how long to keep dialing a coordinator that is not up"));
  keys.push_back(IntKey(
      "control.node_health_port", "CKPT_NODE_HEALTH_PORT", 0,
      [](auto& c) -> auto& { return c.control.node_health_port; },
      "node: port of its gRPC health service, 0 = off"));
  keys.push_back(IntKey(
      "control.coordinator_health_port", "CKPT_COORDINATOR_HEALTH_PORT", 0,
      [](auto& c) -> auto& { return c.control.coordinator_health_port; },
      "coordinator: port of a plaintext gRPC health service of its own, for "
      "probes that cannot speak TLS (Kubernetes'), 0 = off"));
  keys.push_back(StringKey(
      "tls.cert", "CKPT_TLS_CERT", "a PEM file path",
      [](auto& c) -> auto& { return c.control.tls_cert; },
      "certificate: the coordinator's server cert, or a node's client cert"));
  keys.push_back(StringKey(
      "tls.key", "CKPT_TLS_KEY", "a PEM file path",
      [](auto& c) -> auto& { return c.control.tls_key; },
      "private key of tls.cert"));
  keys.push_back(StringKey(
      "tls.ca", "CKPT_TLS_CA", "a PEM file path",
      [](auto& c) -> auto& { return c.control.tls_ca; },
      "CA bundle to verify the peer; on the coordinator it requires client "
      "certificates (mutual TLS)"));
  keys.push_back(StringKey(
      "tls.server_name", "CKPT_TLS_SERVER_NAME", "a host name",
      [](auto& c) -> auto& { return c.control.tls_server_name; },
      "node: name to verify in the coordinator's certificate"));
  {
    KeyDef k = StringKey(
        "auth.token", "CKPT_TOKEN", "a shared secret string",
        [](auto& c) -> auto& { return c.control.token; },
        "shared secret nodes must present to register (never logged)");
    k.secret = true;
    k.get = [](const Config& c) {
      return c.control.token.empty() ? std::string()
                                     : std::string("<redacted>");
    };
    keys.push_back(k);
  }
  PlaceAfter(std::move(placed), &keys);
  return keys;
}

}  // namespace ckpt
