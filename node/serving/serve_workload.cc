#include "node/serving/serve_workload.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/dataset_manifest.h"
#include "common/error_kind.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/manifest_read.h"
#include "node/round/phase_usage.h"
#include "node/serving/model_bytes.h"
#include "node/serving/serve_workload_impl.h"
#include "wire/serve_codec.h"

namespace ckpt {
namespace serve_node {

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
    // A Llama made by a build that wrote no config.json gets it now.
    if (job_.manifest_owner && !gen_.config.empty() &&
        absl::IsNotFound(StoredConfigIsOurs().status())) {
      RETURN_IF_ERROR(St().WriteAtomic(
          JoinPath(location_.path, kModelConfigName), gen_.config));
    }
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
      if (download_) {
        // The copy's directory, a file system of the node's own.
        ASSIGN_OR_RETURN(local_,
                         storage.Open(job_.download_path, BackendOptions{},
                                      LocationRoot::kAsGiven));
      }
      std::vector<std::string> paths;
      for (const ModelFileHeader& f : headers_.files) {
        paths.push_back(JoinPath(location_.path, f.name));
      }
      // Only serve.read_mode=direct reads with O_DIRECT: stream, mmap and a
      // download's copy go through the page cache.
      const DirectFallback direct = job_.read_mode == ServeReadMode::kDirect
                                        ? DirectFallback::kAvailable
                                        : DirectFallback::kUnavailable;
      ASSIGN_OR_RETURN(out.cache,
                       St().PrepareColdRead(paths, job_.cache_mode, direct));
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
  // The index and config.json, by the node that claimed the directory
  // (the manifest, written after every node's files, says the model is
  // there).
  if (job_.manifest_owner && gen_.files.size() > 1) {
    RETURN_IF_ERROR(St().WriteAtomic(JoinPath(location_.path, kModelIndexName),
                                     ModelIndexJson(gen_.files)));
  }
  if (job_.manifest_owner && !gen_.config.empty()) {
    RETURN_IF_ERROR(St().WriteAtomic(JoinPath(location_.path, kModelConfigName),
                                     gen_.config));
  }
  if (job_.fsync) RETURN_IF_ERROR(St().SyncDir(location_.path));
  return absl::OkStatus();
}

absl::StatusOr<bool> ServeWorkload::StoredConfigIsOurs() {
  ASSIGN_OR_RETURN(const std::string text,
                   ReadAtMost(St(), JoinPath(location_.path, kModelConfigName),
                              kMaxModelConfigBytes));
  return !gen_.config.empty() && text == gen_.config;
}

absl::Status ServeWorkload::RunRemove() {
  if (!owner_) return absl::OkStatus();
  // The pending manifest first, so a removal killed half-way is finished
  // by the next; then the manifest, so nothing loads the model while its
  // files go; then exactly the files it names, the index, config.json and
  // the claim.
  RETURN_IF_ERROR(St().CreateDirs(ClaimDirPath()));
  RETURN_IF_ERROR(St().WriteAtomic(
      JoinPath(ClaimDirPath(), kPendingManifestName), PendingManifest()));
  RETURN_IF_ERROR(St().RemoveFiles(location_.path, {kModelManifestName}));
  std::vector<std::string> names;
  for (const ModelFile& f : gen_.files) names.push_back(f.name);
  names.push_back(kModelIndexName);
  // config.json only when it is the one the make wrote.
  if (const absl::StatusOr<bool> ours = StoredConfigIsOurs();
      ours.ok() && *ours) {
    names.push_back(kModelConfigName);
  }
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
      held_.reset();
      if (download_) {
        // The copy goes once the load is timed: it is the run's own.
        absl::Status removed = download_->Remove();
        if (s.ok()) s = std::move(removed);
      }
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

}  // namespace serve_node

std::unique_ptr<NodeWorkload> NewServeWorkload() {
  return std::make_unique<serve_node::ServeWorkload>();
}

}  // namespace ckpt
