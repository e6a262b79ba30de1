// The benchmark's configuration: a plain struct with in-class defaults, and
// the table of keys that can set it (dotted YAML key, env-var alias, what a
// value must look like). Precedence and sources live in config_loader.h.
// Thread-compatible (plain data).
#ifndef CKPTBENCH_COMMON_CONFIG_H_
#define CKPTBENCH_COMMON_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/config_blocks.h"
#include "common/kinds.h"
#include "common/storage_uri.h"

namespace ckpt {

// The checkpoint workload's name (run.workload): the default one, so
// defined here, where every other workload's is beside its job.
inline constexpr char kCheckpointWorkload[] = "checkpoint";

struct StorageOptions {
  std::string path;          // CKPT_DIR_PATH: path, file://, s3://, gs://
  std::string restore_path;  // CKPT_RESTORE_PATH; "" = <path>/checkpoints
  bool node_local = false;   // CKPT_NODE_LOCAL: each node its own disk
  // Paths: "local" (boot disk), "fuse" (object-store mount: no O_DIRECT,
  // no rename or overwrite, close is the durability point) or "auto"
  // (fuse when the path's mount type is fuse.*).
  StorageFlavour flavour = StorageFlavour::kAuto;
};

struct ModelOptions {
  std::string name = "transformer";  // preset
  int num_layers = 10;               // transformer preset only
  Optimizer optimizer = Optimizer::kAdam;
};

struct ClusterOptions {
  int num_nodes = 1;
  std::string num_devices = "auto";  // ranks per node: "auto" or N
  Accelerator accelerator = Accelerator::kCpu;
  // ACCELERATOR=gpu: host memory device bytes pass through (pinned |
  // pageable, what a naive .cpu() gets).
  HostStaging staging = HostStaging::kPinned;
};

// What every run has of run.* (the checkpoint's saves and loads are its
// block's: common/checkpoint/checkpoint_options.h).
struct RunOptions {
  uint64_t seed = 1234;
  bool keep_all_steps = false;     // the run's own older steps are kept
  double progress_interval = 2.0;  // seconds between progress lines
  // What the run does: a workload's registered name (coordinator/
  // workload_registry.h).
  std::string workload = kCheckpointWorkload;
};

// One struct per area (io, s3, gcs, run): the defaults below are the only
// ones. The coordinator fills them from the key table; a node receives io.*
// in its PrepareRequest and s3.*/gcs.* as typed messages (BackendOptions),
// and re-checks both through the same table (RecheckKeys,
// CheckBackendOptions).
// io.queue_depth=auto (as AutoIntKey stores it): the node picks per phase
// (CheckpointWorkload::Prepare).
inline constexpr int kQueueDepthAuto = -1;

struct IoOptions {
  uint64_t block_size = 4 << 20;  // bytes per write()/read() call
  int queue_depth = -1;       // blocks in flight per file (0: none; -1: auto)
  bool fsync = true;          // fsync each file before it counts
  bool direct_write = false;  // O_DIRECT writes
  bool direct_read = false;   // O_DIRECT reads
  CacheMode cache_mode = CacheMode::kAuto;
  ChecksumKind checksum = ChecksumKind::kCrc32c;  // crc32c (ISA-L) | xxh3
};

// S3 and S3-compatible stores (s3://bucket/prefix).
struct S3Config {
  std::string endpoint;  // "" = AWS (https://s3.<region>.amazonaws.com)
  std::string region = "us-east-1";
  S3Addressing addressing = S3Addressing::kAuto;
  uint64_t part_size = 8 << 20;            // multipart part size
  uint64_t multipart_threshold = 8 << 20;  // single PUT below this
  PayloadSigning payload_signing = PayloadSigning::kUnsigned;
  std::string ca_bundle;
  bool verify_tls = true;
  double stall_timeout = 30;  // seconds below 1 byte/s before a retry
  int max_attempts = 5;
  int parts_in_flight = 4;        // concurrent part uploads per object
  uint64_t range_size = 8 << 20;  // bytes per ranged GET
  int ranges_in_flight = 4;       // concurrent ranged GETs per object
  int spread_prefixes = 0;  // 0 = off; N = shard keys under N hash prefixes
  // none | crc32c (x-amz-checksum-crc32c) | md5 (Content-MD5)
  S3Checksum checksum = S3Checksum::kNone;
  // Step claims: auto (If-None-Match: *, else claim objects + listing) |
  // if_none_match | listing.
  S3Claim claim = S3Claim::kAuto;
  // The Kubernetes Secret the node's access keys come from ("": any source
  // of the chain). Set: only AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY count,
  // and a node without them fails naming the Secret.
  std::string keys_secret;

  bool operator==(const S3Config&) const = default;
};

// Google Cloud Storage over its JSON API (gs://bucket/prefix).
struct GcsConfig {
  std::string endpoint;  // "" = https://storage.googleapis.com
  std::string project;   // PROJECT: recorded; quota project if user_project
  bool user_project = false;
  GcsUpload upload = GcsUpload::kResumable;  // resumable | composite
  uint64_t single_threshold = 8ull << 20;    // one request below this
  uint64_t chunk_size = 8ull << 20;          // multiple of 256 KiB
  int parts_in_flight = 4;                   // composite: concurrent parts
  uint64_t range_size = 8ull << 20;          // bytes per ranged GET
  int ranges_in_flight = 4;                  // concurrent ranged GETs
  int max_attempts = 5;
  double stall_timeout = 30;
  std::string ca_bundle;
  bool verify_tls = true;
  // Send no credentials (an emulator): STORAGE_EMULATOR_HOST sets it where
  // the configuration is resolved, so a node never sends a token to an
  // emulator's plain-HTTP endpoint, whatever its own environment holds.
  bool anonymous = false;

  bool operator==(const GcsConfig&) const = default;
};

// The coordinator's control port when an address names none.
inline constexpr int kDefaultControlPort = 50051;

// The coordinator <-> node control channel.
struct ControlOptions {
  std::string listen = "0.0.0.0:50051";  // coordinator: address to serve on
  std::string coordinator;          // node: address to dial (no port: 50051)
  int node_index = -1;              // node: -1 = from JOB_COMPLETION_INDEX etc.
  double register_timeout = 300;    // coordinator: wait for all nodes (s)
  double node_timeout = 15;         // silence after which a node is dead (s)
  double heartbeat_interval = 1;    // node heartbeat period (s)
  double connect_timeout = 120;     // node: keep dialing this long (s)
  int node_health_port = 0;         // node: gRPC health port, 0 = off
  int coordinator_health_port = 0;  // coordinator: plaintext health, 0 = off
  std::string tls_cert;             // PEM certificate (server or client)
  std::string tls_key;              // PEM private key for tls_cert
  std::string tls_ca;               // PEM CA: verify the peer (mTLS on server)
  std::string tls_server_name;      // node: expected server name override
  std::string token;                // shared secret nodes must present
};

struct Config {
  StorageOptions storage;
  ModelOptions model;
  ClusterOptions cluster;
  RunOptions run;
  IoOptions io;
  ControlOptions control;
  S3Config s3;
  GcsConfig gcs;
  // Each workload's own block of keys (common/config_blocks.h), e.g. the
  // checkpoint's CheckpointOf(config), the dataset workloads' DatasetOf
  // and DataloadOf.
  ConfigBlocks blocks;

  // Resolved helpers.
  std::string RestorePath() const;
  // <storage.path>/checkpoints: where the run's steps (step-<n>) are
  // claimed, written, listed and removed.
  std::string StepsPath() const;
  int RanksPerNode() const;  // resolves "auto"
};

// One settable key.
struct KeyDef {
  std::string key;          // dotted YAML key, e.g. "run.num_save_calls"
  std::string env;          // env-var alias, e.g. "NUM_SAVE_CALLS"
  std::string expected;     // what a valid value looks like, for errors
  std::string description;  // one line, for `ckptbench keys`
  bool secret = false;      // redacted in results and logs
  // Parses and stores `value`; the error text says what was expected.
  std::function<absl::Status(Config&, const std::string& value)> set;
  std::function<std::string(const Config&)> get;
};

const std::vector<KeyDef>& ConfigKeys();
// Finds a key by dotted name or env alias; nullptr if unknown.
const KeyDef* FindKey(const std::string& name);
// All dotted names and env aliases, for suggestions.
std::vector<std::string> AllKeyNames();

// The backend settings every storage command carries to a node: what
// storage.flavour, s3.* and gcs.* resolved to in the configuration (the
// environment's share included: config_loader.h), so a node never reads
// them from its own environment.
struct BackendOptions {
  StorageFlavour flavour = StorageFlavour::kAuto;
  S3Config s3;
  GcsConfig gcs;

  bool operator==(const BackendOptions&) const = default;
};
BackendOptions BackendOptionsOf(const Config& config);
// Checks every value through the key table (what a node does with the
// options it receives); errors name the key, the value and what was
// expected.
absl::Status CheckBackendOptions(const BackendOptions& options);

// Checks every key under `prefix` (e.g. "io.") of `config` through the key
// table, as a node does with the options it receives; errors name the key,
// the value and what was expected.
absl::Status RecheckKeys(const Config& config, const std::string& prefix);

// Cross-field checks of the keys every run has, after all sources are
// merged: the storage locations and endpoints (CheckStorageLocations),
// then what storage, load, cluster and io keys need of each other
// (CheckSharedKeys). ValidateConfig (coordinator/config_checks.h) runs
// them around each workload's own checks.
absl::Status CheckStorageLocations(const Config& config);
absl::Status CheckSharedKeys(const Config& config);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_CONFIG_H_
