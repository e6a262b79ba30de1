#include "common/config.h"

#include <algorithm>
#include <charconv>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/bytes.h"

namespace ckpt {
namespace {

absl::Status Expect(const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat("expected ", what));
}

absl::Status ParseInt(const std::string& v, int min, int* out) {
  int x = 0;
  const char* end = v.data() + v.size();
  auto [p, ec] = std::from_chars(v.data(), end, x);
  if (ec != std::errc() || p != end || x < min) {
    return Expect(min == 0 ? "a non-negative integer"
                           : absl::StrCat("an integer >= ", min));
  }
  *out = x;
  return absl::OkStatus();
}

absl::Status ParseU64(const std::string& v, uint64_t* out) {
  uint64_t x = 0;
  const char* end = v.data() + v.size();
  auto [p, ec] = std::from_chars(v.data(), end, x);
  if (ec != std::errc() || p != end) return Expect("a non-negative integer");
  *out = x;
  return absl::OkStatus();
}

absl::Status ParseBool(const std::string& v, bool* out) {
  std::string l = absl::AsciiStrToLower(v);
  if (l == "true" || l == "1" || l == "yes" || l == "on") {
    *out = true;
  } else if (l == "false" || l == "0" || l == "no" || l == "off") {
    *out = false;
  } else {
    return Expect("true or false");
  }
  return absl::OkStatus();
}

absl::Status ParseEnum(const std::string& v,
                       const std::vector<std::string>& allowed,
                       std::string* out) {
  if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) {
    return Expect(absl::StrCat("one of ", absl::StrJoin(allowed, ", ")));
  }
  *out = v;
  return absl::OkStatus();
}

std::string BoolStr(bool b) { return b ? "true" : "false"; }

template <typename Member>
KeyDef SecondsKey(std::string key, std::string env, Member member,
                  std::string desc) {
  KeyDef k;
  k.key = std::move(key);
  k.env = std::move(env);
  k.expected = "seconds, a number > 0";
  k.description = std::move(desc);
  k.set = [member](Config& c, const std::string& v) -> absl::Status {
    char* end = nullptr;
    double d = std::strtod(v.c_str(), &end);
    if (v.empty() || *end != '\0' || !(d > 0) || d > 1e7) {
      return Expect("seconds, a number > 0");
    }
    member(c) = d;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) {
    return absl::StrCat(member(const_cast<Config&>(c)));
  };
  return k;
}

template <typename Member>
KeyDef IntKey(std::string key, std::string env, int min, Member member,
              std::string desc) {
  KeyDef k;
  k.key = std::move(key);
  k.env = std::move(env);
  k.expected =
      min == 0 ? "a non-negative integer" : absl::StrCat("an integer >= ", min);
  k.description = std::move(desc);
  k.set = [min, member](Config& c, const std::string& v) {
    return ParseInt(v, min, &member(c));
  };
  k.get = [member](const Config& c) {
    return std::to_string(member(const_cast<Config&>(c)));
  };
  return k;
}

template <typename Member>
KeyDef BoolKey(std::string key, std::string env, Member member,
               std::string desc) {
  KeyDef k;
  k.key = std::move(key);
  k.env = std::move(env);
  k.expected = "true or false";
  k.description = std::move(desc);
  k.set = [member](Config& c, const std::string& v) {
    return ParseBool(v, &member(c));
  };
  k.get = [member](const Config& c) {
    return BoolStr(member(const_cast<Config&>(c)));
  };
  return k;
}

template <typename Member>
KeyDef EnumKey(std::string key, std::string env,
               std::vector<std::string> allowed, Member member,
               std::string desc) {
  KeyDef k;
  k.key = std::move(key);
  k.env = std::move(env);
  k.expected = absl::StrCat("one of ", absl::StrJoin(allowed, ", "));
  k.description = std::move(desc);
  k.set = [allowed, member](Config& c, const std::string& v) {
    return ParseEnum(v, allowed, &member(c));
  };
  k.get = [member](const Config& c) { return member(const_cast<Config&>(c)); };
  return k;
}

template <typename Member>
KeyDef StringKey(std::string key, std::string env, std::string expected,
                 Member member, std::string desc) {
  KeyDef k;
  k.key = std::move(key);
  k.env = std::move(env);
  k.expected = std::move(expected);
  k.description = std::move(desc);
  k.set = [member](Config& c, const std::string& v) {
    member(c) = v;
    return absl::OkStatus();
  };
  k.get = [member](const Config& c) { return member(const_cast<Config&>(c)); };
  return k;
}

std::vector<KeyDef> BuildKeys() {
  std::vector<KeyDef> keys;
  keys.push_back(StringKey(
      "storage.path", "CKPT_DIR_PATH",
      "a path, file://path, s3:// or gs:// URI",
      [](Config& c) -> std::string& { return c.storage.path; },
      "where checkpoints are written (saves go under <path>/checkpoints/)"));
  keys.push_back(StringKey(
      "storage.restore_path", "CKPT_RESTORE_PATH", "a path or URI",
      [](Config& c) -> std::string& { return c.storage.restore_path; },
      "where checkpoints are loaded from (default <path>/checkpoints)"));
  keys.push_back(StringKey(
      "model.name", "CKPT_MODEL", "a model preset name (ckptbench plan --list)",
      [](Config& c) -> std::string& { return c.model.name; },
      "model preset: transformer, llama-7b..70b, vit-base, llama3-8b..1t"));
  keys.push_back(IntKey(
      "model.num_layers", "NUM_LAYERS", 1,
      [](Config& c) -> int& { return c.model.num_layers; },
      "transformer preset: encoder and decoder layers (model size)"));
  keys.push_back(EnumKey(
      "model.optimizer", "CKPT_OPTIMIZER", {"adam", "sgd", "none"},
      [](Config& c) -> std::string& { return c.model.optimizer; },
      "optimizer state saved with the weights (adam: 2 fp32 moments)"));
  keys.push_back(IntKey(
      "cluster.num_nodes", "NUM_NODES", 1,
      [](Config& c) -> int& { return c.cluster.num_nodes; },
      "nodes taking part"));
  {
    KeyDef k;
    k.key = "cluster.num_devices";
    k.env = "NUM_DEVICES";
    k.expected = "auto or an integer >= 1";
    k.description = "ranks per node (auto: online CPUs, at most 8)";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      if (v == "auto") {
        c.cluster.num_devices = v;
        return absl::OkStatus();
      }
      int n = 0;
      if (!ParseInt(v, 1, &n).ok()) return Expect("auto or an integer >= 1");
      c.cluster.num_devices = v;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return c.cluster.num_devices; };
    keys.push_back(k);
  }
  keys.push_back(EnumKey(
      "cluster.accelerator", "ACCELERATOR", {"cpu", "gpu"},
      [](Config& c) -> std::string& { return c.cluster.accelerator; },
      "where shard bytes live before a save"));
  keys.push_back(EnumKey(
      "sharding.strategy", "CKPT_SHARDING", {"full", "hybrid"},
      [](Config& c) -> std::string& { return c.sharding.strategy; },
      "full: shard across all ranks; hybrid: within a node, node 0 writes"));
  keys.push_back(IntKey(
      "sharding.thread_count", "CKPT_THREAD_COUNT", 1,
      [](Config& c) -> int& { return c.sharding.thread_count; },
      "files per rank, each written by its own thread (DCP thread_count)"));
  keys.push_back(EnumKey(
      "run.mode", "CKPT_MODE", {"save+load", "save-only", "load-only"},
      [](Config& c) -> std::string& { return c.run.mode; },
      "which phases run"));
  keys.push_back(IntKey(
      "run.num_save_calls", "NUM_SAVE_CALLS", 0,
      [](Config& c) -> int& { return c.run.num_save_calls; },
      "timed save rounds"));
  keys.push_back(IntKey(
      "run.num_load_calls", "NUM_LOAD_CALLS", 0,
      [](Config& c) -> int& { return c.run.num_load_calls; },
      "timed load rounds"));
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
      [](Config& c) -> bool& { return c.run.keep_all_steps; },
      "keep every saved step (default: keep only the newest committed)"));
  keys.push_back(SecondsKey(
      "run.progress_interval", "CKPT_PROGRESS_INTERVAL",
      [](Config& c) -> double& { return c.run.progress_interval; },
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
  keys.push_back(BoolKey(
      "io.fsync", "CKPT_FSYNC", [](Config& c) -> bool& { return c.io.fsync; },
      "fsync each file (and the step directory) before a rank is durable"));
  keys.push_back(BoolKey(
      "io.direct_write", "CKPT_DIRECT_WRITE",
      [](Config& c) -> bool& { return c.io.direct_write; },
      "O_DIRECT for writes"));
  keys.push_back(BoolKey(
      "io.direct_read", "CKPT_DIRECT_READ",
      [](Config& c) -> bool& { return c.io.direct_read; },
      "O_DIRECT for reads"));
  keys.push_back(EnumKey(
      "io.cache_mode", "CKPT_CACHE_MODE",
      {"auto", "drop", "fadvise", "direct", "none"},
      [](Config& c) -> std::string& { return c.io.cache_mode; },
      "how loads avoid the page cache (none: allow cached reads)"));
  keys.push_back(EnumKey(
      "io.checksum", "CKPT_CHECKSUM", {"xxh3", "crc32c"},
      [](Config& c) -> std::string& { return c.io.checksum; },
      "checksum recorded in .metadata and verified on load"));
  keys.push_back(StringKey(
      "s3.endpoint", "AWS_ENDPOINT_URL_S3",
      "a URL such as http://127.0.0.1:9000",
      [](Config& c) -> std::string& { return c.s3.endpoint; },
      "S3 endpoint override (MinIO, Ceph, GCS XML); default AWS"));
  keys.push_back(StringKey(
      "s3.region", "AWS_REGION", "a region such as us-east-1",
      [](Config& c) -> std::string& { return c.s3.region; },
      "S3 signing region"));
  keys.push_back(EnumKey(
      "s3.addressing", "CKPT_S3_ADDRESSING", {"auto", "path", "virtual"},
      [](Config& c) -> std::string& { return c.s3.addressing; },
      "path-style or virtual-hosted URLs (auto: path for IPs and localhost)"));
  {
    KeyDef k;
    k.key = "s3.part_size";
    k.env = "CKPT_S3_PART_SIZE";
    k.expected = "a byte size from 5MiB to 5GiB";
    k.description = "multipart part size";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      auto s = ParseByteSize(v);
      if (!s.ok() || *s < (5ull << 20) || *s > (5ull << 30)) {
        return Expect("a byte size from 5MiB to 5GiB");
      }
      c.s3.part_size = *s;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return std::to_string(c.s3.part_size); };
    keys.push_back(k);
  }
  {
    KeyDef k;
    k.key = "s3.multipart_threshold";
    k.env = "CKPT_S3_MULTIPART_THRESHOLD";
    k.expected = "a byte size";
    k.description = "objects at least this large use multipart upload";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      auto s = ParseByteSize(v);
      if (!s.ok()) return Expect("a byte size");
      c.s3.multipart_threshold = *s;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) {
      return std::to_string(c.s3.multipart_threshold);
    };
    keys.push_back(k);
  }
  keys.push_back(EnumKey(
      "s3.payload_signing", "CKPT_S3_PAYLOAD_SIGNING", {"unsigned", "signed"},
      [](Config& c) -> std::string& { return c.s3.payload_signing; },
      "UNSIGNED-PAYLOAD, or a SHA-256 of every body in the signature"));
  keys.push_back(StringKey(
      "s3.ca_bundle", "AWS_CA_BUNDLE", "a PEM file path",
      [](Config& c) -> std::string& { return c.s3.ca_bundle; },
      "CA bundle to verify the S3 endpoint's certificate"));
  keys.push_back(BoolKey(
      "s3.verify_tls", "CKPT_S3_VERIFY_TLS",
      [](Config& c) -> bool& { return c.s3.verify_tls; },
      "verify the S3 endpoint's TLS certificate"));
  keys.push_back(SecondsKey(
      "s3.stall_timeout", "CKPT_S3_STALL_TIMEOUT",
      [](Config& c) -> double& { return c.s3.stall_timeout; },
      "a transfer below 1 byte/s this long is retried"));
  keys.push_back(IntKey(
      "s3.max_attempts", "CKPT_S3_MAX_ATTEMPTS", 1,
      [](Config& c) -> int& { return c.s3.max_attempts; },
      "attempts per S3 request (retries with jittered backoff)"));
  keys.push_back(IntKey(
      "s3.parts_in_flight", "CKPT_S3_PARTS_IN_FLIGHT", 1,
      [](Config& c) -> int& { return c.s3.parts_in_flight; },
      "concurrent part uploads per object (memory: +1 part each)"));
  {
    KeyDef k;
    k.key = "s3.range_size";
    k.env = "CKPT_S3_RANGE_SIZE";
    k.expected = "a byte size from 64KiB to 1GiB";
    k.description = "bytes per ranged GET";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      auto s = ParseByteSize(v);
      if (!s.ok() || *s < (64u << 10) || *s > (1ull << 30)) {
        return Expect("a byte size from 64KiB to 1GiB");
      }
      c.s3.range_size = *s;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return std::to_string(c.s3.range_size); };
    keys.push_back(k);
  }
  keys.push_back(IntKey(
      "s3.ranges_in_flight", "CKPT_S3_RANGES_IN_FLIGHT", 1,
      [](Config& c) -> int& { return c.s3.ranges_in_flight; },
      "concurrent ranged GETs per object (read-ahead of a sequential load)"));
  keys.push_back(IntKey(
      "s3.spread_prefixes", "CKPT_S3_SPREAD_PREFIXES", 0,
      [](Config& c) -> int& { return c.s3.spread_prefixes; },
      "0 = shard keys follow the posix layout; N = under N hash prefixes "
      "(<hh>/<key>), since S3 throttles per prefix"));
  keys.push_back(EnumKey(
      "s3.checksum", "CKPT_S3_CHECKSUM", {"none", "crc32c"},
      [](Config& c) -> std::string& { return c.s3.checksum; },
      "crc32c: send x-amz-checksum-crc32c with every PUT and part, so the "
      "server rejects bytes that changed on the way"));
  keys.push_back(BoolKey(
      "storage.node_local", "CKPT_NODE_LOCAL",
      [](Config& c) -> bool& { return c.storage.node_local; },
      "each node saves to and loads from its own disk (boot disks)"));
  keys.push_back(StringKey(
      "control.listen", "CKPT_LISTEN", "HOST:PORT",
      [](Config& c) -> std::string& { return c.control.listen; },
      "coordinator: address to serve the node sessions and health on"));
  keys.push_back(StringKey(
      "control.coordinator", "CKPT_COORDINATOR", "HOST:PORT",
      [](Config& c) -> std::string& { return c.control.coordinator; },
      "node: the coordinator's address (a DNS name in Kubernetes)"));
  {
    KeyDef k;
    k.key = "control.node_index";
    k.env = "CKPT_NODE_INDEX";
    k.expected = "auto or an integer >= 0";
    k.description =
        "node: its index (auto: JOB_COMPLETION_INDEX, NODE_RANK or the host "
        "name's trailing number)";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      if (v == "auto") {
        c.control.node_index = -1;
        return absl::OkStatus();
      }
      if (!ParseInt(v, 0, &c.control.node_index).ok()) {
        return Expect("auto or an integer >= 0");
      }
      return absl::OkStatus();
    };
    k.get = [](const Config& c) {
      return c.control.node_index < 0 ? std::string("auto")
                                      : std::to_string(c.control.node_index);
    };
    keys.push_back(k);
  }
  keys.push_back(SecondsKey(
      "control.register_timeout", "CKPT_REGISTER_TIMEOUT",
      [](Config& c) -> double& { return c.control.register_timeout; },
      "coordinator: how long to wait for all NUM_NODES nodes"));
  keys.push_back(SecondsKey(
      "control.node_timeout", "CKPT_NODE_TIMEOUT",
      [](Config& c) -> double& { return c.control.node_timeout; },
      "a node silent this long is failed (heartbeats every interval)"));
  keys.push_back(SecondsKey(
      "control.heartbeat_interval", "CKPT_HEARTBEAT_INTERVAL",
      [](Config& c) -> double& { return c.control.heartbeat_interval; },
      "how often nodes send a heartbeat"));
  keys.push_back(SecondsKey(
      "control.connect_timeout", "CKPT_CONNECT_TIMEOUT",
      [](Config& c) -> double& { return c.control.connect_timeout; },
      "node: how long to keep dialing a coordinator that is not up"));
  keys.push_back(IntKey(
      "control.node_health_port", "CKPT_NODE_HEALTH_PORT", 0,
      [](Config& c) -> int& { return c.control.node_health_port; },
      "node: port of its gRPC health service, 0 = off"));
  keys.push_back(StringKey(
      "tls.cert", "CKPT_TLS_CERT", "a PEM file path",
      [](Config& c) -> std::string& { return c.control.tls_cert; },
      "certificate: the coordinator's server cert, or a node's client cert"));
  keys.push_back(StringKey(
      "tls.key", "CKPT_TLS_KEY", "a PEM file path",
      [](Config& c) -> std::string& { return c.control.tls_key; },
      "private key of tls.cert"));
  keys.push_back(StringKey(
      "tls.ca", "CKPT_TLS_CA", "a PEM file path",
      [](Config& c) -> std::string& { return c.control.tls_ca; },
      "CA bundle to verify the peer; on the coordinator it requires client "
      "certificates (mutual TLS)"));
  keys.push_back(StringKey(
      "tls.server_name", "CKPT_TLS_SERVER_NAME", "a host name",
      [](Config& c) -> std::string& { return c.control.tls_server_name; },
      "node: name to verify in the coordinator's certificate"));
  {
    KeyDef k = StringKey(
        "auth.token", "CKPT_TOKEN", "a shared secret string",
        [](Config& c) -> std::string& { return c.control.token; },
        "shared secret nodes must present to register (never logged)");
    k.secret = true;
    k.get = [](const Config& c) {
      return c.control.token.empty() ? std::string()
                                     : std::string("<redacted>");
    };
    keys.push_back(k);
  }
  return keys;
}

}  // namespace

std::string Config::CheckpointsPath() const {
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
  return CheckpointsPath();
}

int Config::RanksPerNode() const {
  if (cluster.num_devices == "auto") {
    unsigned n = std::thread::hardware_concurrency();
    return static_cast<int>(std::clamp(n, 1u, 8u));
  }
  return std::stoi(cluster.num_devices);
}

const std::vector<KeyDef>& ConfigKeys() {
  static const std::vector<KeyDef>* keys = new std::vector<KeyDef>(BuildKeys());
  return *keys;
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

std::map<std::string, std::string> StorageOptionsOf(const Config& config) {
  std::map<std::string, std::string> out;
  for (const auto& k : ConfigKeys()) {
    if (k.key.rfind("s3.", 0) == 0) out[k.key] = k.get(config);
  }
  return out;
}

std::string ForNode(const std::string& uri, int node) {
  std::string out = uri;
  const std::string token = "{node}";
  for (size_t at = out.find(token); at != std::string::npos;
       at = out.find(token, at)) {
    out.replace(at, token.size(), std::to_string(node));
  }
  return out;
}

absl::Status ValidateConfig(const Config& c, bool need_storage) {
  if (!c.storage.node_local &&
      (c.storage.path.find("{node}") != std::string::npos ||
       c.storage.restore_path.find("{node}") != std::string::npos)) {
    return absl::InvalidArgumentError(
        "storage.path / storage.restore_path contain {node}: that placeholder "
        "is for node-local storage; expected storage.node_local=true "
        "(CKPT_NODE_LOCAL) or a path without it");
  }
  if (c.cluster.accelerator == "gpu") {
    return absl::InvalidArgumentError(
        "cluster.accelerator (ACCELERATOR) = 'gpu': this build of ckptbench "
        "has no GPU support; expected cpu");
  }
  if (need_storage && c.storage.path.empty() &&
      !(c.run.mode == "load-only" && !c.storage.restore_path.empty())) {
    return absl::InvalidArgumentError(
        "storage.path (CKPT_DIR_PATH) is not set: expected the directory or "
        "URI where checkpoints are written, e.g. CKPT_DIR_PATH=/mnt/ckpt");
  }
  if ((c.io.direct_write || c.io.direct_read || c.io.cache_mode == "direct") &&
      c.io.block_size % 4096 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("io.block_size (CKPT_BLOCK_SIZE) = ", c.io.block_size,
                     ": expected a multiple of 4096 when O_DIRECT is used"));
  }
  return absl::OkStatus();
}

}  // namespace ckpt
