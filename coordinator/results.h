// What a run measured, as plain structs: rounds with per-node and per-rank
// detail, merged latency histograms, CPU, and the run's context. Written to
// result.json by json_codec.h and printed by summary.h. Plain data.
#ifndef CKPTBENCH_COORDINATOR_RESULTS_H_
#define CKPTBENCH_COORDINATOR_RESULTS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/config.h"
#include "common/file_record.h"
#include "common/histogram.h"
#include "common/kinds.h"
#include "common/stats.h"
#include "coordinator/result_section.h"

namespace ckpt {

struct RankResult {
  uint32_t rank = 0;
  int node = 0;
  uint64_t bytes = 0;
  double first_byte_seconds = -1;
  double seconds = 0;  // from the node's start to durable / verified
  bool verified = false;
  // Loads: the rank whose shards it read (rank + load.rank_shift, mod the
  // world size) and the node that wrote them.
  uint32_t read_rank = 0;
  int read_from_node = 0;
  // Where its time went, summed over its files (they overlap): making or
  // checking bytes, storage calls, fsync/close; and the wait at the
  // round's barrier, from its last file done to the round's last rank
  // done (on the common clock).
  double data_seconds = 0, io_seconds = 0, sync_seconds = 0;
  double wait_seconds = 0;
  // Its files' storage requests and object-store retries, summed
  // (FileRecord): what it measured, beside a resharded plan's reads.
  uint64_t requests = 0, retries = 0;
};

// Where bytes meet host memory on a node (StagingReport in node.proto):
// device copies with ACCELERATOR=gpu, and an async save's staging,
// persistence and the training compute that overlapped it.
struct NodeStaging {
  double copy_seconds = 0;  // summed over the node's files
  uint64_t copy_bytes = 0;
  double blocking_seconds = 0, durable_seconds = 0;  // since the node's start
  double compute_seconds = 0, compute_baseline_seconds = 0;
  uint64_t staged_bytes = 0;
  bool pinned = false;
};

struct NodeResult {
  int node = 0;
  std::string host;
  std::vector<uint32_t> ranks;
  uint64_t bytes = 0;
  double seconds = 0;  // last rank done
  double throughput_mib_s = 0;
  double first_done_seconds = 0;
  double last_done_seconds = 0;
  double cpu_user_seconds = 0;
  double cpu_system_seconds = 0;
  double host_cpu_busy = 0;
  double start_lag_seconds = 0;
  double dir_sync_seconds = 0;
  std::string storage_kind, filesystem, mount_point, mount_options;
  uint64_t requests = 0, retries = 0, throttles = 0;
  double backoff_seconds = 0;    // slept before retries, over its threads
  uint64_t new_connections = 0;  // HTTP connections opened in the round
  NodeStaging staging;
  // The node's own limits: the share of its file threads' time spent
  // making or checking bytes (generation, checksums, verification), and
  // of its usable CPUs' time this process used (coordinator/client_check.h).
  double data_busy = 0;
  double cpu_busy = 0;
  int cpus = 0;
  // Memory still available to the node at the phase's end (its staged
  // copies held), as common/memory.h reads it; 0 = unknown.
  uint64_t memory_available_bytes = 0;
  // The node process's peak resident set during the phase; 0 = unknown.
  uint64_t peak_rss_bytes = 0;
  // Loads: the nodes that wrote the shards this node read (its own index
  // among them only without a rank shift), ascending.
  std::vector<int> read_from_nodes;
};

struct CacheResult {
  std::string method;
  uint64_t resident_bytes = 0;
  uint64_t checked_bytes = 0;
  std::string note;
  std::string probe;  // each distinct file-system probe finding, "; "-joined
};

// A node this much slower than the median node is called out as the
// round's straggler (terminal, report).
inline constexpr double kStragglerRatio = 1.2;

// One of the slowest nodes of a round, against the median node.
struct Straggler {
  int node = 0;
  std::string host;
  double seconds = 0;
  double ratio_to_median = 0;
  // What set it apart from the median node (start lag, making or checking
  // bytes, storage calls, fsync/close), and its slowest files.
  std::string reason;
  std::vector<std::string> files;
};

// A round's training-loop view (all times on the coordinator's common
// start, each node's start lag added): docs/results.md defines each.
struct RoundStaging {
  Accelerator accelerator = Accelerator::kCpu;
  bool async = false;  // an async save
  // Device <-> host copies (gpu) or staging memcpys (async): bytes and the
  // seconds summed over files; rate = bytes / seconds, per stream.
  uint64_t copy_bytes = 0;
  double copy_seconds = 0;
  double copy_gib_s = 0;
  // Async saves: all of them over the blocking time (every stream at once).
  double staging_gib_s = 0;
  bool pinned = false;
  // Async saves:
  double blocking_seconds = 0;  // training blocked: the last file staged
  double persist_seconds = 0;   // then, until the last file durable
  double compute_seconds = 0;   // the interval's simulated training, as run
  double compute_baseline_seconds = 0;  // the same work, nothing else running
  double compute_slowdown = 0;  // compute / baseline, the most of any node
  double slowdown_seconds = 0;  // compute - baseline (>= 0), the most of any
  // A node's persisting took longer than run.interval: the next save would
  // wait for it.
  bool fell_behind = false;
  // What this save cost training at run.interval: blocking + the worst
  // node's slowdown + wait for persistence (fell_behind); the whole round
  // when synchronous.
  double checkpoint_cost_seconds = 0;
  uint64_t staged_bytes = 0;  // the most any node held staged
};

// An operation's latency as a result written before result.json carried
// histogram buckets gives it (count and percentiles in ms): what readers
// fall back to (ResultFromJson fills it; ResultToJson never writes it).
struct OpPercentiles {
  uint64_t count = 0;
  double min_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
};

struct NodeClock {
  int node = 0;
  std::string host;
  double offset_ms = 0;  // node clock - coordinator clock
  double rtt_ms = 0;
};

// What a result.json held that this build does not read: a workload it
// does not know (another build's), and sections it has no reader for.
// ResultFromJson keeps them as they were, ResultToJson writes them back,
// and the summary and the report say they were carried through unread.
struct ForeignParts {
  std::string workload;  // the file's name for it; "" when known
  // Each section's name and its JSON text, in the file's order.
  std::vector<std::pair<std::string, std::string>> sections;
  // A section's name -> the member this build reads that followed it in
  // the file, before which it is written back (absent: none followed; it
  // goes at the end).
  std::map<std::string, std::string, std::less<>> before;
  bool empty() const { return workload.empty() && sections.empty(); }
};

struct RoundResult {
  // The checkpoint's rounds are saves and loads; a dataset's round
  // (datagen) is a save that writes the dataset (a removal: one that
  // removes it); result.json names a workload other than the checkpoint.
  std::string workload = kCheckpointWorkload;
  Phase phase = Phase::kSave;
  int index = 0;        // 1-based within its phase
  bool staged = false;  // untimed staging save for a load-only run
  uint64_t step = 0;
  RunStatus status = RunStatus::kOk;
  std::string error;
  // The failing node's kind (common/kinds.h: ErrorKind): "retryable", "auth",
  // "not_found", "no_space", "bad_input", "data_loss", "internal"; "" when
  // the coordinator itself failed the round (a lost node, an interrupt).
  std::string error_kind;
  double seconds = 0;           // common start -> last rank durable + commit
  double transfer_seconds = 0;  // common start -> last node report
  double commit_seconds = 0;
  uint64_t bytes = 0;
  double throughput_mib_s = 0;
  // Loads: every byte of every planned file was read and matched the
  // checksum recorded at save (checked_* == planned_*).
  bool verified = false;
  uint64_t checked_bytes = 0, planned_bytes = 0;
  uint64_t checked_files = 0, planned_files = 0;
  // What makes the round's number mean less than it seems: page cache
  // resident (bytes were still cached at start) or allowed
  // (io.cache_mode=none), memory backed (tmpfs), unverified (not every byte
  // checked), a short phase (a timed round under kShortPhaseSeconds: the
  // rate is mostly noise), client bound (ckptbench itself was near a
  // limit: client_bound says which), not visible. Later checks add theirs
  // (common/kinds.h RoundFlag).
  std::vector<RoundFlag> flags;
  std::string client_bound;  // why the round was client-bound; "" if not
  int rank_shift = 0;        // loads: load.rank_shift in effect
  // A resharded restore's load: bytes the nodes read over the bytes the
  // ranks needed (planned_bytes), as measured.
  bool resharded = false;
  double read_amplification = 0;
  uint64_t bytes_read = 0;  // resharded: what the nodes read (`bytes`: needed)
  double start_spread_seconds = 0;
  CacheResult cache;
  std::map<std::string, Histogram> ops;  // merged across ranks and nodes
  std::map<std::string, OpPercentiles> ops_without_buckets;  // older results
  double cpu_user_seconds = 0;
  double cpu_system_seconds = 0;
  double host_cpu_busy = 0;                           // mean over nodes
  uint64_t requests = 0, retries = 0, throttles = 0;  // object stores
  double backoff_seconds = 0;  // slept before retries, over nodes' threads
  // HTTP connections the nodes opened in the round: with storage clients
  // kept for the whole run, 0 after the first round unless the server
  // closed kept-alive connections.
  uint64_t new_connections = 0;
  std::vector<NodeResult> nodes;
  std::vector<RankResult> ranks;
  std::vector<FileRecord> files;
  std::vector<Straggler> stragglers;  // slowest first; multinode only
  RoundStaging staging;
  // Clock offsets re-estimated in this round's prepare (remote nodes),
  // used for its start instant and its clock-corrected times.
  std::vector<NodeClock> clocks;
  // Each registered workload's own section of this round (a dataload's
  // epoch, a save's time to visible), by member (coordinator/
  // result_section.h, at a round's place).
  ResultSections sections;
  ForeignParts foreign;  // read back from another build's result.json
};

struct PhaseSummary {
  int count = 0;
  // Per round: time, and rate (a distribution; its mean is not the
  // phase's rate when rounds differ).
  Spread seconds, mib_s;
  // The phase's rate: all its timed rounds' bytes over their summed time.
  uint64_t bytes = 0;
  double total_seconds = 0;
  double total_mib_s = 0;
  std::map<RoundFlag, int> flags;  // flag -> rounds counted that carry it
};

struct EnvironmentInfo {
  std::string host;
  std::string kernel;
  int cpus = 0;
  uint64_t memory_bytes = 0;
  std::string storage_kind;
  std::string filesystem;
  std::string mount_point;
  std::string mount_options;
  std::string version;
};

struct ResolvedKey {
  std::string key, env, value, source;
};

// Where a run sits in a sweep (ckptbench sweep); index < 0 outside one.
struct SweepInfo {
  std::string name;  // the experiment's name
  int index = -1;    // 0-based run of the sweep
  int runs = 0;      // runs in the sweep
  std::string run_name, point_name;
  int repeat = 1;
  std::vector<std::pair<std::string, std::string>> values;
};

// Where a round's name appears: reports and the summary ("save 2",
// "load 1", "stage 1" for a load-only run's untimed staging save), the
// progress line ("stage (untimed)"), the log ("save round 2", also for the
// staging save).
enum class RoundNameForm { kReport, kProgress, kLog };
// The round's name in reports (kReport): its workload's (WorkloadSummary::
// round_name, in the built-in registry or `registry`), or "<workload> <n>"
// (summary.cc).
class WorkloadRegistry;
std::string RoundName(const RoundResult& r);
std::string RoundName(const RoundResult& r, const WorkloadRegistry& registry);

struct RunResult {
  std::string workload = kCheckpointWorkload;  // run.workload
  RunStatus status = RunStatus::kOk;
  std::vector<std::string> errors;
  std::vector<std::string> notes;
  // What this run wrote and could not remove (a failed save's step, a
  // multipart upload), each with where it is and why it stayed.
  std::vector<std::string> leftovers;
  std::string run_id;
  std::string started_at, finished_at;  // ISO 8601 UTC
  std::vector<ResolvedKey> config;
  EnvironmentInfo environment;
  // Plan summary.
  std::string model, model_description, sharding, fingerprint, layout;
  uint64_t parameters = 0, checkpoint_bytes = 0;
  int world_size = 0, num_nodes = 0, ranks_per_node = 0, thread_count = 0;
  size_t files = 0;
  std::vector<RoundResult> rounds;
  std::vector<NodeClock> clocks;  // multinode: estimated per node
  SweepInfo sweep;
  // Each registered workload's own section of result.json, by member
  // (coordinator/result_section.h): a resharded restore's plan, what
  // goodput is computed at, a dataset.
  ResultSections sections;
  ForeignParts foreign;  // read back from another build's result.json

  // The checkpoint's figures (coordinator/checkpoint/checkpoint_figures.cc).
  // Count, mean, stdev, min, max of the timed rounds of a phase.
  PhaseSummary Summarize(Phase phase) const;
};

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RESULTS_H_
