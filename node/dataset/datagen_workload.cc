#include "node/dataset/datagen_workload.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/dataset_manifest.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/dataset_bytes.h"
#include "node/dataset/manifest_read.h"
#include "node/pattern.h"
#include "node/round/phase_usage.h"
#include "node/storage/timed_storage.h"
#include "wire/datagen_codec.h"

namespace ckpt {
namespace {

constexpr size_t kRemoveBatch = 1000;

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
      .count();
}

class DatagenWorkload : public NodeWorkload {
 public:
  absl::StatusOr<PrepareOutcome> Prepare(
      PhaseJob job, StorageSet& storage,
      const std::atomic<bool>& abort) override;
  PhaseOutcome Run(const NodePhaseContext& ctx) override;
  std::vector<RankProgress> Progress() const override {
    return {{0, bytes_.load(std::memory_order_relaxed), total_bytes_}};
  }

 private:
  // Objects [first_, end_): shards (tar) or sample files.
  uint64_t ObjectCount() const {
    return spec_.format == DatasetFormat::kTar ? table_.shards()
                                               : spec_.samples;
  }
  std::string ObjectName(uint64_t k) const {
    return spec_.format == DatasetFormat::kTar ? ShardName(k)
                                               : SampleObjectName(spec_, k);
  }
  uint64_t ObjectBytes(uint64_t k) const {
    return spec_.format == DatasetFormat::kTar ? table_.bytes[k]
                                               : SampleSize(spec_, k);
  }
  absl::Status CreateDirs(Storage& st);
  // The prepare's reply: where the dataset is and what was found there.
  PrepareOutcome Outcome(const DatagenPrepared& prepared) const;
  // Removing where no manifest is: what a datagen (or removal) that did not
  // finish left, its pending manifest (into *text, *found), or its claim
  // alone (claim_only_); neither is an error naming the dataset.
  absl::Status FindUnfinished(Storage& st, const std::string& shown,
                              std::optional<std::string>* text,
                              std::optional<DatasetManifest>* found,
                              DatagenPrepared* prepared);
  // Making: claims the dataset's path for this run and writes the pending
  // manifest there (manifest owner only); a claim an earlier attempt of
  // this run holds (job_.take_over) is taken over.
  absl::Status Claim(Storage& st, const std::string& run_id,
                     const std::string& shown);
  // The pending manifest: what this run is about to write.
  absl::Status WritePending(Storage& st, const std::string& run_id) const;
  // Making: the dataset fits in what the file system has free.
  absl::Status CheckFreeSpace(Storage& st, const std::string& shown) const;
  std::string ClaimDirPath() const {
    return JoinPath(location_.path, kMakeClaimDir);
  }
  void Writer(OpStats* ops, const NodePhaseContext& ctx);
  absl::Status WriteObject(uint64_t k, Storage& st,
                           std::vector<unsigned char>& buffer);
  absl::Status Remove(const NodePhaseContext& ctx);
  void Fail(absl::Status s, const NodePhaseContext& ctx);

  DatagenJob job_;
  DatasetSpec spec_;
  ShardTable table_;
  StorageLocation location_;
  const ObjectStoreCounters* counters_ = nullptr;
  bool reuse_ = false;
  bool claim_only_ = false;    // removing: a claim without a pending manifest
  std::string manifest_text_;  // removing: the manifest (or pending) read
  uint64_t first_ = 0, end_ = 0, total_bytes_ = 0;
  std::atomic<uint64_t> next_{0}, bytes_{0}, objects_{0}, samples_{0};
  std::set<std::string> dirs_;  // made for the objects (relative)
  std::mutex mu_;
  std::condition_variable cv_;
  int running_ = 0;
  absl::Status first_error_;
};

absl::Status DatagenWorkload::FindUnfinished(
    Storage& st, const std::string& shown, std::optional<std::string>* text,
    std::optional<DatasetManifest>* found, DatagenPrepared* prepared) {
  // A datagen (or a removal) that did not finish left its pending
  // manifest: what it names is what that run wrote.
  ASSIGN_OR_RETURN(
      *text, ReadManifest(st, ClaimDirPath(), shown, kPendingManifestName));
  if (!*text) {
    // A claim alone (a datagen killed before its pending manifest):
    // nothing was written; the claim goes (DatagenRound::Finish).
    ASSIGN_OR_RETURN(const bool claimed, HoldsMakeClaim(st, ClaimDirPath()));
    if (!claimed) {
      return absl::NotFoundError(
          absl::StrCat("no dataset at ", shown, ": it holds no ",
                       kDatasetManifestName, " and no ", kMakeClaimDir,
                       "/ of an unfinished datagen, and "
                       "ckptbench removes only the objects a manifest names"));
    }
    prepared->unfinished = true;
    claim_only_ = true;
    return absl::OkStatus();
  }
  const std::string pending =
      absl::StrCat(shown, "/", kMakeClaimDir, "/", kPendingManifestName);
  ASSIGN_OR_RETURN(*found, DatasetManifestFromJson(**text, pending));
  RETURN_IF_ERROR(CheckManifestTotals(**found, pending));
  prepared->manifest_found = true;
  prepared->manifest = **text;
  prepared->unfinished = true;
  return absl::OkStatus();
}

absl::StatusOr<PrepareOutcome> DatagenWorkload::Prepare(
    PhaseJob job, StorageSet& storage, const std::atomic<bool>& /*abort*/) {
  ASSIGN_OR_RETURN(job_, DecodeDatagenJob(job.workload_job));
  ASSIGN_OR_RETURN(location_, storage.Open(job_.dataset_uri, job_.backend,
                                           LocationRoot::kAsGiven));
  counters_ = &storage.counters();
  Storage& st = *location_.storage;
  const std::string shown = EscapeForTerminal(job_.dataset_uri);
  ASSIGN_OR_RETURN(std::optional<std::string> text,
                   ReadManifest(st, location_.path, shown));
  DatagenPrepared prepared;
  std::optional<DatasetManifest> found;
  if (text) {
    prepared.manifest_found = true;
    prepared.manifest = *text;
    ASSIGN_OR_RETURN(
        found, DatasetManifestFromJson(
                   *text, absl::StrCat(shown, "/", kDatasetManifestName)));
    RETURN_IF_ERROR(CheckManifestTotals(
        *found, absl::StrCat(shown, "/", kDatasetManifestName)));
  }
  if (job_.remove) {
    if (!found) {
      RETURN_IF_ERROR(FindUnfinished(st, shown, &text, &found, &prepared));
      if (claim_only_) return Outcome(prepared);
    }
    spec_ = found->spec;
    manifest_text_ = *text;
  } else {
    spec_ = job_.spec;
    RETURN_IF_ERROR(CheckDatasetSpec(spec_, kDatagenWorkload));
    if (found) {
      RETURN_IF_ERROR(CheckManifestMatches(*found, spec_, shown));
      reuse_ = true;
      prepared.reuse = true;
    } else if (job_.manifest_owner) {
      RETURN_IF_ERROR(CheckFreeSpace(st, shown));
      RETURN_IF_ERROR(Claim(st, job.run_id, shown));
    }
  }
  if (spec_.format == DatasetFormat::kTar) table_ = BuildShardTable(spec_);
  const uint64_t n = ObjectCount();
  first_ = n * job_.share_index / job_.share_count;
  end_ = n * (job_.share_index + 1) / job_.share_count;
  next_ = first_;
  if (!reuse_ && !job_.remove) {
    for (uint64_t k = first_; k < end_; ++k) total_bytes_ += ObjectBytes(k);
    RETURN_IF_ERROR(CreateDirs(st));
  }
  return Outcome(prepared);
}

PrepareOutcome DatagenWorkload::Outcome(const DatagenPrepared& prepared) const {
  PrepareOutcome out;
  out.storage_kind = location_.storage->Kind();
  out.filesystem = location_.storage->Filesystem(location_.path);
  out.cache.method = CacheMethod::kNone;
  out.workload_outcome = EncodeDatagenPrepared(prepared);
  return out;
}

absl::Status DatagenWorkload::CheckFreeSpace(Storage& st,
                                             const std::string& shown) const {
  const std::optional<uint64_t> free = st.FreeBytes(location_.path);
  if (!free) return absl::OkStatus();  // object stores, FUSE mounts
  // Every share lands on the one file system (shared storage), or this
  // node holds a whole replica (node-local disks): the whole dataset.
  const uint64_t need = ComputeTotals(spec_).bytes;
  if (need <= *free) return absl::OkStatus();
  const FilesystemInfo fs = st.Filesystem(location_.path);
  return absl::ResourceExhaustedError(absl::StrCat(
      "datagen: the dataset asked for is ", FormatBytes(need), " but ", shown,
      " is on a file system (", fs.type, " at ", fs.mount_point, ") with ",
      FormatBytes(*free),
      " free: nothing written. Expected fewer samples (dataset.samples), "
      "smaller ones (dataset.sample_bytes) or another dataset.path"));
}

absl::Status DatagenWorkload::WritePending(Storage& st,
                                           const std::string& run_id) const {
  DatasetManifest pending;
  pending.spec = spec_;
  pending.totals = ComputeTotals(spec_);
  pending.run_id = run_id;
  pending.created_unix_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::system_clock::now().time_since_epoch())
          .count();
  return st.WriteAtomic(JoinPath(ClaimDirPath(), kPendingManifestName),
                        DatasetManifestToJson(pending));
}

absl::Status DatagenWorkload::Claim(Storage& st, const std::string& run_id,
                                    const std::string& shown) {
  RETURN_IF_ERROR(st.CreateDirs(location_.path));
  absl::StatusOr<std::string> claim = st.ClaimDir(ClaimDirPath(), run_id);
  if (absl::IsAlreadyExists(claim.status())) {
    // Whose: the pending manifest names the run and when it began.
    std::string holder = "another run";
    auto pending =
        ReadManifest(st, ClaimDirPath(), shown, kPendingManifestName);
    if (pending.ok() && *pending) {
      auto m = DatasetManifestFromJson(**pending, kPendingManifestName);
      if (m.ok()) {
        holder =
            absl::StrCat("run ", EscapeForTerminal(m->run_id.substr(0, 64)),
                         " (", m->spec.samples, " samples, ",
                         std::string(Name(m->spec.format)), ")");
        // An earlier attempt of this run (a resumed sweep) making the same
        // dataset: finished by this one, its objects written again (a
        // write replaces what is there), its claim kept and its pending
        // manifest renamed to this run.
        const auto& ours = job_.take_over;
        if (std::find(ours.begin(), ours.end(), m->run_id) != ours.end() &&
            CheckManifestMatches(*m, spec_, shown).ok()) {
          LOG_INFO(
              "datagen: %s: finishing the datagen run %s began (an earlier "
              "attempt of this run): every object is written again",
              shown, EscapeForTerminal(m->run_id.substr(0, 64)));
          return WritePending(st, run_id);
        }
      }
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "datagen: ", shown, " is claimed by ", holder,
        ", which has not written its ", kDatasetManifestName,
        ": a datagen making it now, or one killed before it finished. "
        "Nothing written. If none is running, `ckptbench datagen --remove` "
        "(same dataset.path) removes what it wrote"));
  }
  RETURN_IF_ERROR(claim.status());
  absl::Status written = WritePending(st, run_id);
  if (!written.ok()) {
    // No object is written without the pending manifest: the claim goes
    // too, or it would hold the path with nothing to say what it holds.
    (void)ReleaseMakeClaim(st, ClaimDirPath());
  }
  return written;
}

absl::Status DatagenWorkload::CreateDirs(Storage& st) {
  for (uint64_t k = first_; k < end_; ++k) {
    std::string name = ObjectName(k);
    dirs_.insert(name.substr(0, name.rfind('/')));
    if (dirs_.size() > kMaxSpreadPrefixes) break;  // every prefix is there
  }
  for (const std::string& d : dirs_) {
    RETURN_IF_ERROR(st.CreateDirs(JoinPath(location_.path, d)));
  }
  return absl::OkStatus();
}

void DatagenWorkload::Fail(absl::Status s, const NodePhaseContext& ctx) {
  std::lock_guard<std::mutex> lock(mu_);
  if (first_error_.ok() && !ctx.aborted()) first_error_ = std::move(s);
  ctx.abort->store(true);
}

absl::Status DatagenWorkload::WriteObject(uint64_t k, Storage& st,
                                          std::vector<unsigned char>& buffer) {
  const std::string path = JoinPath(location_.path, ObjectName(k));
  const uint64_t size = ObjectBytes(k);
  std::optional<ShardImage> shard;
  if (spec_.format == DatasetFormat::kTar) {
    shard.emplace(spec_, table_.first_sample[k], table_.first_sample[k + 1]);
  }
  const uint64_t key = SampleStreamKey(spec_.seed, k);
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> f, st.OpenWrite(path, {}));
  for (uint64_t off = 0; off < size;) {
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(buffer.size(), size - off));
    unsigned char* p = f->BorrowBuffer(n);
    if (p == nullptr) p = buffer.data();
    if (shard) {
      shard->Fill(off, p, n);
    } else {
      FillPattern(key, off, p, n);
    }
    RETURN_IF_ERROR(f->Append(p, n));
    off += n;
    bytes_.fetch_add(n, std::memory_order_relaxed);
  }
  if (job_.fsync) RETURN_IF_ERROR(f->Sync());
  RETURN_IF_ERROR(f->Close());
  objects_.fetch_add(1, std::memory_order_relaxed);
  samples_.fetch_add(shard ? shard->end() - shard->first() : 1,
                     std::memory_order_relaxed);
  return absl::OkStatus();
}

void DatagenWorkload::Writer(OpStats* ops, const NodePhaseContext& ctx) {
  TimedStorage timed(*location_.storage, ops);
  uint64_t largest = 1;
  for (uint64_t k = first_; k < end_ && k < first_ + 1024; ++k) {
    largest = std::max(largest, ObjectBytes(k));
  }
  std::vector<unsigned char> buffer(static_cast<size_t>(
      std::min<uint64_t>(job_.block_size, std::max(largest, uint64_t{4096}))));
  for (;;) {
    if (ctx.aborted()) break;
    const uint64_t k = next_.fetch_add(1);
    if (k >= end_) break;
    absl::Status s = WriteObject(k, timed, buffer);
    if (!s.ok()) {
      Fail(WithPrefix(s, absl::StrCat("datagen: writing ",
                                      EscapeForTerminal(ObjectName(k)), ": ")),
           ctx);
      break;
    }
  }
}

absl::Status DatagenWorkload::Remove(const NodePhaseContext& ctx) {
  Storage& st = *location_.storage;
  if (claim_only_) return absl::OkStatus();  // nothing but the claim
  if (job_.manifest_owner) {
    // The pending manifest first (a dataset made before there was one
    // gets one now): a removal killed after the manifest went can be
    // finished by the next --remove. Then the manifest, so nothing reads
    // the dataset while its objects go.
    RETURN_IF_ERROR(st.CreateDirs(ClaimDirPath()));
    RETURN_IF_ERROR(st.WriteAtomic(
        JoinPath(ClaimDirPath(), kPendingManifestName), manifest_text_));
    RETURN_IF_ERROR(st.RemoveFiles(location_.path, {kDatasetManifestName}));
  }
  // Names grouped by their directory, a batch at a time.
  std::map<std::string, std::vector<std::string>> batch;
  size_t held = 0;
  auto flush = [&]() -> absl::Status {
    for (auto& [dir, names] : batch) {
      RETURN_IF_ERROR(st.RemoveFiles(JoinPath(location_.path, dir), names));
      objects_.fetch_add(names.size(), std::memory_order_relaxed);
    }
    batch.clear();
    held = 0;
    ctx.progress->SendIfDue();
    return absl::OkStatus();
  };
  for (uint64_t k = first_; k < end_; ++k) {
    if (ctx.aborted()) return absl::AbortedError("datagen: removal aborted");
    std::string name = ObjectName(k);
    const size_t slash = name.rfind('/');
    batch[name.substr(0, slash)].push_back(name.substr(slash + 1));
    if (++held == kRemoveBatch) RETURN_IF_ERROR(flush());
  }
  RETURN_IF_ERROR(flush());
  // The directories ckptbench made, once empty (RemoveFiles of nothing
  // removes an empty directory and leaves one that is not).
  const char* top = spec_.format == DatasetFormat::kTar ? "shards" : "samples";
  if (spec_.spread_prefixes > 0 && spec_.format == DatasetFormat::kFiles) {
    for (uint32_t p = 0; p < spec_.spread_prefixes; ++p) {
      char hh[16];
      std::snprintf(hh, sizeof(hh), "%02x", p);
      RETURN_IF_ERROR(st.RemoveFiles(
          JoinPath(location_.path, absl::StrCat(top, "/", hh)), {}));
    }
  }
  RETURN_IF_ERROR(st.RemoveFiles(JoinPath(location_.path, top), {}));
  // The claim stays until every node's share is gone (DatagenRound::
  // Finish releases it): until then, a later --remove finishes this one.
  return absl::OkStatus();
}

PhaseOutcome DatagenWorkload::Run(const NodePhaseContext& ctx) {
  PhaseOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  const PhaseUsage usage(*counters_);
  if (job_.remove) {
    first_error_ = Remove(ctx);
  } else if (!reuse_ && end_ > first_) {
    const uint32_t threads = static_cast<uint32_t>(
        std::min<uint64_t>(job_.write_threads, end_ - first_));
    std::vector<OpStats> ops(threads);
    std::vector<std::thread> writers;
    running_ = static_cast<int>(threads);
    for (uint32_t t = 0; t < threads; ++t) {
      writers.emplace_back([this, &ops, t, &ctx] {
        Writer(&ops[t], ctx);
        std::lock_guard<std::mutex> lock(mu_);
        if (--running_ == 0) cv_.notify_all();
      });
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      ctx.progress->AwaitDone(lock, cv_, [this] { return running_ == 0; });
    }
    for (auto& w : writers) w.join();
    for (const OpStats& o : ops) out.ops.Merge(o);
    if (first_error_.ok() && ctx.aborted()) {
      first_error_ = absl::AbortedError("datagen: aborted");
    }
    // The objects' directory entries durable too (file systems; object
    // stores have none to sync).
    const auto sync0 = std::chrono::steady_clock::now();
    for (const std::string& d : dirs_) {
      if (!first_error_.ok() || !job_.fsync) break;
      first_error_ = location_.storage->SyncDir(JoinPath(location_.path, d));
    }
    out.dir_sync_seconds = SecondsSince(sync0);
  }
  const double seconds = SecondsSince(t0);
  out.status = first_error_;
  RankOutcome rank;
  rank.bytes = bytes_.load();
  rank.done_seconds = seconds;
  out.ranks.push_back(rank);
  usage.Into(&out);
  out.workload_report =
      EncodeDatagenReport({objects_.load(), bytes_.load(), samples_.load()});
  return out;
}

}  // namespace

std::unique_ptr<NodeWorkload> NewDatagenWorkload() {
  return std::make_unique<DatagenWorkload>();
}

}  // namespace ckpt
