// The serve workload's node side (serve_workload.h) as its two files
// share it: serve_workload.cc (prepare, make, remove and the phase's run)
// and serve_load.cc (a load: its plan at prepare, the download, the
// headers and the ranks' reads on the clock). For those two files only.
#ifndef CKPTBENCH_NODE_SERVING_SERVE_WORKLOAD_IMPL_H_
#define CKPTBENCH_NODE_SERVING_SERVE_WORKLOAD_IMPL_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/dataset/dataset_manifest.h"
#include "common/serving/model_files.h"
#include "common/serving/model_manifest.h"
#include "common/serving/replica_plan.h"
#include "common/serving/serve_job.h"
#include "common/step_layout.h"
#include "node/round/node_workload.h"
#include "node/serving/held_weights.h"
#include "node/serving/model_download.h"
#include "node/serving/model_headers.h"
#include "node/serving/range_stream.h"
#include "node/storage/storage_factory.h"

namespace ckpt::serve_node {

// A model directory's entries: its files, the index, the manifest.
inline constexpr uint64_t kMaxModelDirEntries = 1 << 16;

// A generated model in words, for messages.
std::string Describe(const GeneratedModel& m);

// Runs fn(0), ..., fn(n - 1) each on a thread of its own, the calling
// thread waiting in the phase's progress reporter; the first error wins
// and aborts the others. Aborted (`what` aborted) when the round was.
absl::Status RunEach(size_t n, const NodePhaseContext& ctx,
                     const std::function<absl::Status(size_t)>& fn,
                     const char* what);

class ServeWorkload : public NodeWorkload {
 public:
  absl::StatusOr<PrepareOutcome> Prepare(
      PhaseJob job, StorageSet& storage,
      const std::atomic<bool>& abort) override;
  PhaseOutcome Run(const NodePhaseContext& ctx) override;
  std::vector<RankProgress> Progress() const override;

 private:
  Storage& St() const { return *location_.storage; }
  // Where the replica reads the model: the storage, or after a download
  // the local copy.
  Storage& ReadSt() const {
    return download_ ? *local_.storage : *location_.storage;
  }
  const std::string& ReadDir() const {
    return download_ ? download_->dir() : location_.path;
  }
  std::string ClaimDirPath() const {
    return JoinPath(location_.path, kMakeClaimDir);
  }
  std::string ManifestShown() const {
    return absl::StrCat(shown_, "/", kModelManifestName);
  }
  // The pending manifest this run writes in its claim: the model, by run.
  std::string PendingManifest() const {
    ModelManifest m;
    m.model = job_.model;
    m.files = gen_.files.size();
    m.bytes = gen_.bytes;
    m.run_id = run_id_;
    m.created_unix_ns = NowUnixNs();
    return ModelManifestToJson(m);
  }
  // The manifest at the directory, parsed; nullopt when there is none.
  absl::StatusOr<std::optional<ModelManifest>> FindManifest(
      std::string* text = nullptr);
  absl::Status PrepareMake(ServePrepared* prepared);
  // The model's config.json as stored: the text this model's make writes
  // (gen_.config), NotFound when there is none, or another text (a user's,
  // or one past kMaxModelConfigBytes: FailedPrecondition), which stays.
  absl::StatusOr<bool> StoredConfigIsOurs();
  absl::Status Claim();
  absl::Status PrepareLoad(ServePrepared* prepared);
  absl::Status PrepareRemove(ServePrepared* prepared);
  // The headers agree with the model ckptbench generated: its files, by
  // name and size, and each tensor's name, dtype, shape and bytes.
  absl::Status CheckGenerated(const ModelHeaders& headers) const;
  absl::Status RunMake(const NodePhaseContext& ctx);
  absl::Status RunLoad(const NodePhaseContext& ctx, PhaseOutcome* out);
  // How the load reads: serve.concurrency, chunk size, O_DIRECT
  // (serve.read_mode=direct), what the page cache held counted.
  StreamOptions LoadOptions() const;
  // An object's requests, retries and throttles added to the report's (by
  // name: the download's copy and the ranks' reads of one file add up).
  void AddObjectIo(const std::string& name, const StreamTally::FileIo& io);
  // Each rank's, per file of its plan.
  void AddRanksObjectIo(const std::vector<StreamTally>& tallies);
  // At the replica's start, before its first read: bytes of the model's
  // files in the host's page cache (left by another replica on the host or
  // an earlier load; mincore through ReadableFile::CachedBytes); 0 where
  // the storage cannot tell (object stores, FUSE mounts).
  uint64_t CachedAtStart();
  // The headers read again on the clock, as a replica's rank reads them
  // (from the copy, after a download); the model must be the one prepare
  // planned. Their bytes.
  absl::StatusOr<uint64_t> ReadHeadersAgain();
  // download: the model's directory listed (as a downloader lists it; the
  // files must be the ones prepare found) and its files and index copied
  // whole to the local directory.
  absl::Status Download(const StreamOptions& options,
                        const NodePhaseContext& ctx,
                        SteadyClock::time_point t0);
  // Rank `r`'s reads, each chunk verified (a generated model) and counted.
  absl::StatusOr<StreamTally> LoadRank(size_t r, const StreamOptions& options,
                                       const NodePhaseContext& ctx);
  absl::Status RunRemove();

  ServeJob job_;
  std::string run_id_;
  std::string shown_;
  StorageLocation location_;
  const ObjectStoreCounters* counters_ = nullptr;
  GeneratedFiles gen_;  // the generated model (make, load of one, remove)
  bool reuse_ = false;  // make: the manifest matches
  bool owner_ = false;  // remove: this node removes
  uint64_t first_ = 0, end_ = 0;  // make: this node's files
  // Load: the files and plan prepare found (the clock reads the headers
  // again, as a replica does).
  ModelHeaders headers_;
  ReplicaPlan plan_;
  ServeReport report_;
  // Where each object is in report_.objects (AddObjectIo), by name.
  std::unordered_map<std::string, size_t> object_at_;
  uint64_t total_bytes_ = 0;
  std::atomic<uint64_t> written_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> rank_bytes_;
  // download: the local directory and the run's copy in it.
  StorageLocation local_;
  std::unique_ptr<ModelDownload> download_;
  std::unique_ptr<HeldWeights> held_;  // serve.hold: the ranks' shares
};

}  // namespace ckpt::serve_node

#endif  // CKPTBENCH_NODE_SERVING_SERVE_WORKLOAD_IMPL_H_
