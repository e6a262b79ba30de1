// The serve workload's sections of result.json (coordinator/
// result_section.h): the run's "serving_model", before the rounds (the
// model: where, whose, what it holds, and whether this run made, reused or
// removed it), and each load round's "replica_load", at the round's head
// (how the replica read and what each rank and replica took). Their codecs
// are serve_result_json.cc's.
#ifndef CKPTBENCH_COORDINATOR_SERVING_SERVE_RESULTS_H_
#define CKPTBENCH_COORDINATOR_SERVING_SERVE_RESULTS_H_

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/kinds.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {

inline constexpr char kServingModelSection[] = "serving_model";
inline constexpr char kReplicaLoadSection[] = "replica_load";

struct ServingModelResult : ResultSection {
  std::string uri;
  DatasetSource source = DatasetSource::kCkptbench;
  // A generated model's recipe (source ckptbench).
  std::string preset;
  ModelDtype dtype = ModelDtype::kBf16;
  uint64_t file_bytes = 0, seed = 0;
  // What its files hold (from the first load's headers, or the recipe).
  uint64_t files = 0, tensors = 0, bytes = 0;
  bool reused = false;   // made before: its manifest matched
  bool removed = false;  // this run removed it
  uint64_t written_files = 0, written_bytes = 0;
  double written_seconds = 0;  // the make round's
  std::string ToJson(const RunResult& run) const override;
};

// A load round's replicas, one per node.
struct ReplicaLoadResult : ResultSection {
  ServeReadMode read_mode = ServeReadMode::kStream;
  ServeSplit split = ServeSplit::kTp;
  uint32_t ranks = 1;  // per replica
  uint32_t concurrency = 0;
  uint64_t chunk_bytes = 0;
  bool hold = false;    // each rank kept its share (host or GPU)
  bool on_gpu = false;  // ... in GPU memory (ACCELERATOR=gpu)
  // Where the ranks kept their shares, as the summary and the report say
  // it: ", held on GPUs", ", held in memory" or "".
  const char* HeldText() const {
    return on_gpu ? ", held on GPUs" : hold ? ", held in memory" : "";
  }
  uint64_t model_bytes = 0;  // the files' bytes
  uint64_t read_bytes = 0;   // one replica's ranks' tensor bytes, summed
  bool verified = false;     // every byte checked against the pattern
  struct Replica {
    int node = 0;
    std::string host;  // the node's: replicas on one host share its cache
    // Since the round's start: its own start (serve.stagger's delay and its
    // start lag), every rank's headers read, the first tensor byte in (the
    // fastest rank's), the last rank done.
    double start_seconds = 0;
    double headers_seconds = 0, first_byte_seconds = 0, load_seconds = 0;
    double loaded_seconds = 0;  // from its own start to its last rank done
    uint64_t header_reads = 0, bytes = 0, requests = 0;
    // Its object-store requests sent again, and the throttles among the
    // responses: its ranks' and its download's.
    uint64_t retries = 0, throttles = 0;
    // File systems: bytes of its ranks' tensor reads the host's page cache
    // held when they were to be read (filled by another replica on the
    // host, or left by an earlier load); download: of the copy's reads.
    uint64_t cached_bytes = 0, download_cached_bytes = 0;
    // File systems: bytes of the model's files in the host's page cache at
    // its start, before its first read (another replica's, an earlier
    // load's), at most model_bytes.
    uint64_t cached_at_start_bytes = 0;
    // download mode: the copy to the node done (since the round's start),
    // its bytes (the files whole, with the index) and its reads; then the
    // headers and tensors are read from the copy (requests: page faults).
    double download_seconds = 0;
    uint64_t download_bytes = 0, download_requests = 0;
    double mib_per_second = 0;  // its tensor bytes over loaded_seconds
    // Object stores: per object it sent requests for (its ranks' tensor
    // reads and its download's copy), the model's order.
    struct Object {
      std::string name;
      uint64_t requests = 0, retries = 0, throttles = 0;
    };
    std::vector<Object> objects;
  };
  std::vector<Replica> replicas;
  // What of a replica's reads from the model's storage the host's page
  // cache held, as a whole percent: its tensor reads, or in download mode
  // the copy's.
  int CachedPercent(const Replica& p) const {
    const bool copy = read_mode == ServeReadMode::kDownload;
    return Percent(copy ? p.download_cached_bytes : p.cached_bytes,
                   copy ? p.download_bytes : p.bytes);
  }
  // ... and of the model's files at its start.
  int CachedAtStartPercent(const Replica& p) const {
    return Percent(p.cached_at_start_bytes, model_bytes);
  }
  // (part is at most whole: a figure read from a file is not trusted.)
  static int Percent(uint64_t part, uint64_t whole) {
    part = std::min(part, whole);
    return whole == 0 ? 0
                      : static_cast<int>(100.0 * static_cast<double>(part) /
                                             static_cast<double>(whole) +
                                         0.5);
  }
  // The fleet (the round's replicas, one per node): each one's time to
  // loaded from its own start, its distribution (nearest rank), the last
  // loaded from the first start, and the slowest named with why.
  struct Fleet {
    double loaded_p50_seconds = 0, loaded_p90_seconds = 0;
    double loaded_max_seconds = 0;
    double first_start_seconds = 0;  // since the round's start
    double all_loaded_seconds = 0;   // the last loaded, from the first start
    struct Slow {
      int node = 0;
      double loaded_seconds = 0;
      std::string why;
    };
    std::vector<Slow> slowest;  // slower than the median: at most 3
  };
  Fleet fleet;
  // Object stores: per object, over the fleet, most throttled first: the
  // replicas that read it and those among them that met throttles, and
  // the requests, retries and throttles. A hot object every replica reads
  // at once is where a store throttles first.
  struct HotObject {
    std::string name;
    uint32_t replicas = 0, throttled_replicas = 0;
    uint64_t requests = 0, retries = 0, throttles = 0;
  };
  std::vector<HotObject> objects;
  struct Rank {
    int node = 0;
    uint32_t rank = 0;
    uint64_t bytes = 0, requests = 0;
    double first_byte_seconds = 0, last_byte_seconds = 0;
    uint64_t retries = 0, throttles = 0;  // as a replica's
    uint64_t cached_bytes = 0;            // as a replica's
  };
  std::vector<Rank> rank_loads;
  std::string ToJson(const RunResult& run) const override;
};

ResultSectionCodec ServingModelSectionCodec();
ResultSectionCodec ReplicaLoadSectionCodec();

inline const ServingModelResult* ServingModelOf(const RunResult& r) {
  return SectionAs<ServingModelResult>(r.sections, kServingModelSection);
}
inline const ReplicaLoadResult* ReplicaLoadOf(const RoundResult& r) {
  return SectionAs<ReplicaLoadResult>(r.sections, kReplicaLoadSection);
}

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_SERVING_SERVE_RESULTS_H_
