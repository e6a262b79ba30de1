#include "node/serving/serve_workload.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/dataset/dataset_manifest.h"
#include "common/error_kind.h"
#include "common/serving/model_files.h"
#include "common/serving/model_manifest.h"
#include "common/serving/replica_plan.h"
#include "common/serving/serve_job.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/manifest_read.h"
#include "node/round/phase_usage.h"
#include "node/serving/mapped_ranges.h"
#include "node/serving/model_bytes.h"
#include "node/serving/model_headers.h"
#include "node/serving/range_stream.h"
#include "node/storage/listing_pager.h"
#include "wire/serve_codec.h"

namespace ckpt {
namespace {

// A model directory's entries: its files, the index, the manifest.
constexpr uint64_t kMaxModelDirEntries = 1 << 16;

std::string Describe(const GeneratedModel& m) {
  return absl::StrCat(EscapeForTerminal(m.preset.substr(0, 64)), " in ",
                      std::string(Name(m.dtype)), ", files of at most ",
                      m.file_bytes, " tensor bytes, seed ", m.seed);
}

// Runs fn(0), ..., fn(n - 1) each on a thread of its own, the calling
// thread waiting in the phase's progress reporter; the first error wins
// and aborts the others. Aborted (`what` aborted) when the round was.
absl::Status RunEach(size_t n, const NodePhaseContext& ctx,
                     const std::function<absl::Status(size_t)>& fn,
                     const char* what) {
  std::mutex mu;
  std::condition_variable cv;
  absl::Status first_error;
  size_t running = n;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      absl::Status s = fn(i);
      std::lock_guard<std::mutex> lock(mu);
      if (!s.ok()) {
        if (first_error.ok() && !ctx.aborted()) first_error = std::move(s);
        ctx.abort->store(true);
      }
      if (--running == 0) cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    ctx.progress->AwaitDone(lock, cv, [&] { return running == 0; });
  }
  for (std::thread& t : threads) t.join();
  RETURN_IF_ERROR(first_error);
  if (ctx.aborted()) return absl::AbortedError(absl::StrCat(what, " aborted"));
  return absl::OkStatus();
}

class ServeWorkload : public NodeWorkload {
 public:
  absl::StatusOr<PrepareOutcome> Prepare(
      PhaseJob job, StorageSet& storage,
      const std::atomic<bool>& abort) override;
  PhaseOutcome Run(const NodePhaseContext& ctx) override;
  std::vector<RankProgress> Progress() const override;

 private:
  Storage& St() const { return *location_.storage; }
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
  absl::Status Claim();
  absl::Status PrepareLoad(ServePrepared* prepared);
  absl::Status PrepareRemove(ServePrepared* prepared);
  // The headers agree with the model ckptbench generated: its files, by
  // name and size, and each tensor's name, dtype, shape and bytes.
  absl::Status CheckGenerated(const ModelHeaders& headers) const;
  absl::Status RunMake(const NodePhaseContext& ctx);
  absl::Status RunLoad(const NodePhaseContext& ctx, PhaseOutcome* out);
  // The headers read again on the clock, as a replica reads them; the
  // model must be the one prepare planned.
  absl::Status ReadHeadersAgain(SteadyClock::time_point t0);
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
  uint64_t total_bytes_ = 0;
  std::atomic<uint64_t> written_{0};
  std::unique_ptr<std::atomic<uint64_t>[]> rank_bytes_;
};

absl::StatusOr<std::optional<ModelManifest>> ServeWorkload::FindManifest(
    std::string* text) {
  ASSIGN_OR_RETURN(
      std::optional<std::string> found,
      ReadManifest(St(), location_.path, shown_, kModelManifestName));
  if (!found) return std::nullopt;
  ASSIGN_OR_RETURN(ModelManifest m,
                   ModelManifestFromJson(*found, ManifestShown()));
  if (text != nullptr) *text = *std::move(found);
  return m;
}

absl::Status ServeWorkload::Claim() {
  RETURN_IF_ERROR(St().CreateDirs(location_.path));
  absl::StatusOr<std::string> claim = St().ClaimDir(ClaimDirPath(), run_id_);
  if (absl::IsAlreadyExists(claim.status())) {
    return absl::FailedPreconditionError(absl::StrCat(
        "serve: ", shown_, " is claimed (", kMakeClaimDir,
        "/) by another run that has not written its manifest: one making a "
        "model or a dataset there now, or one killed before it finished. "
        "Nothing written. If none is running, a serve run with "
        "serve.remove=true (same serve.path) removes what a model's make "
        "wrote"));
  }
  RETURN_IF_ERROR(claim.status());
  absl::Status written = St().WriteAtomic(
      JoinPath(ClaimDirPath(), kPendingManifestName), PendingManifest());
  if (!written.ok()) (void)ReleaseMakeClaim(St(), ClaimDirPath());
  return written;
}

absl::Status ServeWorkload::PrepareMake(ServePrepared* prepared) {
  ASSIGN_OR_RETURN(std::optional<ModelManifest> m, FindManifest());
  if (m) {
    prepared->manifest_found = true;
    if (!(m->model == job_.model) || m->files != gen_.files.size() ||
        m->bytes != gen_.bytes) {
      return absl::FailedPreconditionError(absl::StrCat(
          "serve: ", shown_, " holds another model (its ", kModelManifestName,
          ": ", Describe(m->model), "); expected ", Describe(job_.model),
          ". Nothing written: choose another serve.path, or remove that one "
          "first (serve.remove=true with its settings)"));
    }
    reuse_ = true;
    prepared->reuse = true;
    return absl::OkStatus();
  }
  if (job_.manifest_owner) {
    if (const std::optional<uint64_t> free = St().FreeBytes(location_.path);
        free && *free < gen_.bytes) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "serve: the model is ", FormatBytes(gen_.bytes), " but ", shown_,
          " has ", FormatBytes(*free),
          " free: nothing written. Expected a smaller model (model.name, "
          "serve.dtype) or another serve.path"));
    }
    RETURN_IF_ERROR(Claim());
  } else {
    RETURN_IF_ERROR(St().CreateDirs(location_.path));
  }
  const uint64_t n = gen_.files.size();
  first_ = n * job_.share_index / job_.share_count;
  end_ = n * (job_.share_index + 1) / job_.share_count;
  for (uint64_t i = first_; i < end_; ++i) total_bytes_ += gen_.files[i].Size();
  return absl::OkStatus();
}

absl::Status ServeWorkload::CheckGenerated(const ModelHeaders& headers) const {
  const std::vector<ModelFile>& want = gen_.files;
  auto differs = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(
        "serve: ", shown_, " is not the model its ", kModelManifestName,
        " says (", Describe(job_.model), "): ", what));
  };
  if (headers.files.size() != want.size()) {
    return differs(
        absl::StrCat(headers.files.size(), " file(s), expected ", want.size()));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const ModelFileHeader& got = headers.files[i];
    const ModelFile& w = want[i];
    if (got.name != w.name || got.size != w.Size() ||
        got.header.DataStart() != w.header.size() ||
        got.header.tensors.size() != w.tensors.size()) {
      return differs(absl::StrCat("file ", EscapeForTerminal(got.name), " of ",
                                  got.size, " bytes, expected ", w.name, " of ",
                                  w.Size()));
    }
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      const StTensor& a = got.header.tensors[t];
      const StTensor& b = w.tensors[t];
      if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape ||
          a.begin != b.begin || a.end != b.end) {
        return differs(absl::StrCat("tensor ", EscapeForTerminal(a.name),
                                    " of ", w.name, " is not as generated"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ServeWorkload::PrepareLoad(ServePrepared* prepared) {
  // mmap and O_DIRECT read a file system: a path (mmap: a FUSE mount's
  // too; O_DIRECT: a local one, FUSE mounts have none).
  const StorageKind kind = St().Kind();
  if (job_.read_mode == ServeReadMode::kDownload ||
      (job_.read_mode == ServeReadMode::kMmap && kind != StorageKind::kPosix &&
       kind != StorageKind::kFuse) ||
      (job_.read_mode == ServeReadMode::kDirect &&
       kind != StorageKind::kPosix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve.read_mode = ", std::string(Name(job_.read_mode)), " at ", shown_,
        " (", std::string(Name(kind)),
        "): expected stream there (mmap: a local or FUSE path; direct: a "
        "local path; download is not built yet)"));
  }
  if (job_.generated) {
    ASSIGN_OR_RETURN(std::optional<ModelManifest> m, FindManifest());
    if (!m) {
      return absl::FailedPreconditionError(
          absl::StrCat("serve: no model ckptbench generated at ", shown_,
                       " (no ", kModelManifestName, ")"));
    }
    prepared->manifest_found = true;
    if (!(m->model == job_.model)) {
      return absl::FailedPreconditionError(
          absl::StrCat("serve: ", shown_, " holds ", Describe(m->model),
                       "; expected ", Describe(job_.model)));
    }
  }
  ASSIGN_OR_RETURN(headers_, ReadModelHeaders(St(), location_.path,
                                              AtMost(kMaxModelDirEntries)));
  if (job_.generated) RETURN_IF_ERROR(CheckGenerated(headers_));
  std::vector<PlannedFile> planned;
  for (const ModelFileHeader& f : headers_.files) {
    planned.push_back({f.name, f.size, f.header});
  }
  ASSIGN_OR_RETURN(plan_, PlanReplica(planned,
                                      job_.split == ServeSplit::kTp
                                          ? ReplicaSplit::kTensorParallel
                                          : ReplicaSplit::kWholeFiles,
                                      static_cast<int>(job_.ranks),
                                      job_.generated ? gen_.head_dim : 0));
  prepared->files = headers_.files.size();
  prepared->tensors = headers_.tensors;
  prepared->model_bytes = plan_.model_bytes;
  prepared->header_bytes = headers_.header_bytes;
  prepared->read_bytes = plan_.read_bytes;
  for (const RankReads& r : plan_.ranks) prepared->ranges += r.ranges;
  rank_bytes_ = std::make_unique<std::atomic<uint64_t>[]>(plan_.ranks.size());
  return absl::OkStatus();
}

absl::Status ServeWorkload::PrepareRemove(ServePrepared* prepared) {
  owner_ = job_.manifest_owner;
  std::string text;
  ASSIGN_OR_RETURN(std::optional<ModelManifest> m, FindManifest(&text));
  if (!m) {
    // A make that did not finish left its pending manifest.
    ASSIGN_OR_RETURN(
        std::optional<std::string> pending,
        ReadManifest(St(), ClaimDirPath(), shown_, kPendingManifestName));
    if (!pending) {
      return absl::NotFoundError(absl::StrCat(
          "serve: no model ckptbench generated at ", shown_, ": no ",
          kModelManifestName, " and no ", kMakeClaimDir,
          "/ of an unfinished make; ckptbench removes only the files a "
          "manifest names"));
    }
    ASSIGN_OR_RETURN(m, ModelManifestFromJson(
                            *pending, absl::StrCat(shown_, "/", kMakeClaimDir,
                                                   "/", kPendingManifestName)));
  } else {
    prepared->manifest_found = true;
  }
  job_.model = m->model;
  ASSIGN_OR_RETURN(gen_, GeneratedModelFiles(m->model));
  return absl::OkStatus();
}

absl::StatusOr<PrepareOutcome> ServeWorkload::Prepare(
    PhaseJob job, StorageSet& storage, const std::atomic<bool>& /*abort*/) {
  ASSIGN_OR_RETURN(job_, DecodeServeJob(job.workload_job));
  run_id_ = job.run_id;
  ASSIGN_OR_RETURN(location_, storage.Open(job_.model_uri, job_.backend,
                                           LocationRoot::kAsGiven));
  counters_ = &storage.counters();
  shown_ = EscapeForTerminal(job_.model_uri);
  if (job_.action != ServeAction::kRemove && job_.generated) {
    ASSIGN_OR_RETURN(gen_, GeneratedModelFiles(job_.model));
  }
  ServePrepared prepared;
  PrepareOutcome out;
  out.cache.method = CacheMethod::kNone;
  switch (job_.action) {
    case ServeAction::kMake:
      RETURN_IF_ERROR(PrepareMake(&prepared));
      break;
    case ServeAction::kLoad: {
      RETURN_IF_ERROR(PrepareLoad(&prepared));
      std::vector<std::string> paths;
      for (const ModelFileHeader& f : headers_.files) {
        paths.push_back(JoinPath(location_.path, f.name));
      }
      ASSIGN_OR_RETURN(out.cache, St().PrepareColdRead(paths, job_.cache_mode));
      break;
    }
    case ServeAction::kRemove:
      RETURN_IF_ERROR(PrepareRemove(&prepared));
      break;
  }
  out.storage_kind = St().Kind();
  out.filesystem = St().Filesystem(location_.path);
  out.workload_outcome = EncodeServePrepared(prepared);
  return out;
}

std::vector<RankProgress> ServeWorkload::Progress() const {
  if (job_.action != ServeAction::kLoad || !rank_bytes_) {
    return {{0, written_.load(std::memory_order_relaxed), total_bytes_}};
  }
  std::vector<RankProgress> out;
  for (size_t r = 0; r < plan_.ranks.size(); ++r) {
    out.push_back({static_cast<uint32_t>(r),
                   rank_bytes_[r].load(std::memory_order_relaxed),
                   plan_.ranks[r].bytes});
  }
  return out;
}

absl::Status ServeWorkload::RunMake(const NodePhaseContext& ctx) {
  if (reuse_ || end_ <= first_) return absl::OkStatus();
  std::atomic<uint64_t> next{first_};
  const size_t n = static_cast<size_t>(
      std::min<uint64_t>(job_.write_threads, end_ - first_));
  RETURN_IF_ERROR(RunEach(
      n, ctx,
      [&](size_t) -> absl::Status {
        for (uint64_t i; !ctx.aborted() && (i = next.fetch_add(1)) < end_;) {
          absl::Status s = WriteModelFile(
              St(), location_.path, gen_.files[i], static_cast<uint32_t>(i),
              job_.model.seed, static_cast<size_t>(job_.block_size), job_.fsync,
              &written_);
          if (!s.ok()) {
            return WithPrefix(
                s, absl::StrCat("serve: writing ", gen_.files[i].name, ": "));
          }
        }
        return absl::OkStatus();
      },
      "serve: make"));
  report_.files = end_ - first_;
  // The index, by the node that claimed the directory (the manifest,
  // written after every node's files, says the model is there).
  if (job_.manifest_owner && gen_.files.size() > 1) {
    RETURN_IF_ERROR(St().WriteAtomic(JoinPath(location_.path, kModelIndexName),
                                     ModelIndexJson(gen_.files)));
  }
  if (job_.fsync) RETURN_IF_ERROR(St().SyncDir(location_.path));
  return absl::OkStatus();
}

absl::Status ServeWorkload::ReadHeadersAgain(SteadyClock::time_point t0) {
  ASSIGN_OR_RETURN(
      ModelHeaders headers,
      ReadModelHeaders(St(), location_.path, AtMost(kMaxModelDirEntries)));
  report_.headers_seconds = SecondsSince(t0);
  report_.header_reads = 2 * headers.files.size();
  report_.header_bytes = headers.header_bytes;
  bool same = headers.files.size() == headers_.files.size();
  for (size_t i = 0; same && i < headers.files.size(); ++i) {
    same = headers.files[i].name == headers_.files[i].name &&
           headers.files[i].size == headers_.files[i].size &&
           headers.files[i].header.length == headers_.files[i].header.length;
  }
  if (!same) {
    return absl::DataLossError(
        absl::StrCat("serve: the model at ", shown_,
                     " changed between the round's prepare and its load"));
  }
  return absl::OkStatus();
}

absl::StatusOr<StreamTally> ServeWorkload::LoadRank(
    size_t r, const StreamOptions& options, const NodePhaseContext& ctx) {
  std::vector<StreamedFile> files;
  std::vector<size_t> index;
  for (const FileReads& f : plan_.ranks[r].files) {
    files.push_back({JoinPath(location_.path, headers_.files[f.file].name),
                     headers_.files[f.file].size, f.ranges});
    index.push_back(f.file);
  }
  ChunkSink sink = [&](size_t f, uint64_t off, const unsigned char* data,
                       size_t len) -> absl::Status {
    if (job_.generated) {
      RETURN_IF_ERROR(
          CheckModelChunk(gen_.files[index[f]], static_cast<uint32_t>(index[f]),
                          job_.model.seed, files[f].path, off, data, len));
    }
    rank_bytes_[r].fetch_add(len, std::memory_order_relaxed);
    return absl::OkStatus();
  };
  if (job_.read_mode == ServeReadMode::kMmap) {
    return MapRanges(location_.path, files, options.chunk_bytes, sink,
                     ctx.abort);
  }
  return StreamRanges(St(), files, options, sink, ctx.abort);
}

absl::Status ServeWorkload::RunLoad(const NodePhaseContext& ctx,
                                    PhaseOutcome* out) {
  const auto t0 = SteadyClock::now();
  // As a replica: the files found and every header read, then the reads.
  RETURN_IF_ERROR(ReadHeadersAgain(t0));
  const size_t ranks = plan_.ranks.size();
  std::vector<StreamTally> tallies(ranks);
  std::vector<double> done(ranks, 0);
  StreamOptions options;
  options.concurrency = static_cast<int>(job_.concurrency);
  options.chunk_bytes = job_.chunk_bytes;
  options.direct = job_.read_mode == ServeReadMode::kDirect;
  const double planned_at = SecondsSince(t0);
  RETURN_IF_ERROR(RunEach(
      ranks, ctx,
      [&](size_t r) -> absl::Status {
        absl::StatusOr<StreamTally> tally = LoadRank(r, options, ctx);
        done[r] = SecondsSince(t0);
        if (!tally.ok()) {
          return WithPrefix(tally.status(),
                            absl::StrCat("serve: rank ", r, ": "));
        }
        tallies[r] = *tally;
        return absl::OkStatus();
      },
      "serve: load"));
  for (size_t r = 0; r < ranks; ++r) {
    const StreamTally& t = tallies[r];
    ServeRankReport k;
    k.bytes = t.bytes;
    // mmap: no request is made; the reads are the page faults.
    k.requests =
        job_.read_mode == ServeReadMode::kMmap ? t.major_faults : t.chunks;
    k.first_byte_seconds =
        t.first_byte_seconds < 0 ? 0 : planned_at + t.first_byte_seconds;
    k.last_byte_seconds = planned_at + t.last_byte_seconds;
    report_.ranks.push_back(k);
    RankOutcome rank;
    rank.rank = static_cast<uint32_t>(r);
    rank.bytes = t.bytes;
    rank.first_byte_seconds = k.first_byte_seconds;
    rank.done_seconds = done[r];
    rank.verified = job_.generated;
    rank.checked_bytes = job_.generated ? t.bytes : 0;
    out->ranks.push_back(rank);
  }
  report_.verified = job_.generated;
  return absl::OkStatus();
}

absl::Status ServeWorkload::RunRemove() {
  if (!owner_) return absl::OkStatus();
  // The pending manifest first, so a removal killed half-way is finished
  // by the next; then the manifest, so nothing loads the model while its
  // files go; then exactly the files it names, the index and the claim.
  RETURN_IF_ERROR(St().CreateDirs(ClaimDirPath()));
  RETURN_IF_ERROR(St().WriteAtomic(
      JoinPath(ClaimDirPath(), kPendingManifestName), PendingManifest()));
  RETURN_IF_ERROR(St().RemoveFiles(location_.path, {kModelManifestName}));
  std::vector<std::string> names;
  for (const ModelFile& f : gen_.files) names.push_back(f.name);
  names.push_back(kModelIndexName);
  RETURN_IF_ERROR(St().RemoveFiles(location_.path, names));
  report_.files = gen_.files.size();
  RETURN_IF_ERROR(ReleaseMakeClaim(St(), ClaimDirPath()));
  // The directory too, once that left it empty (what ckptbench did not
  // write there stays, and so does the directory).
  return St().RemoveFiles(location_.path, {});
}

PhaseOutcome ServeWorkload::Run(const NodePhaseContext& ctx) {
  PhaseOutcome out;
  const auto t0 = SteadyClock::now();
  const PhaseUsage usage(*counters_);
  absl::Status s;
  switch (job_.action) {
    case ServeAction::kMake:
      s = RunMake(ctx);
      break;
    case ServeAction::kLoad:
      s = RunLoad(ctx, &out);
      break;
    case ServeAction::kRemove:
      s = RunRemove();
      break;
  }
  if (job_.action != ServeAction::kLoad) {
    RankOutcome rank;
    rank.bytes = written_.load();
    rank.done_seconds = SecondsSince(t0);
    out.ranks.push_back(rank);
    report_.bytes = written_.load();
  }
  out.status = s;
  usage.Into(&out);
  out.workload_report = EncodeServeReport(report_);
  return out;
}

}  // namespace

std::unique_ptr<NodeWorkload> NewServeWorkload() {
  return std::make_unique<ServeWorkload>();
}

}  // namespace ckpt
