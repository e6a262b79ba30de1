#include "node/dataset/dataload_workload.h"

#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/dataset/dataload_memory.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/dataset_options.h"
#include "common/dataset/epoch_order.h"
#include "common/hash_mix.h"
#include "common/memory.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/dataset_listing.h"
#include "node/dataset/epoch_checkpoint.h"
#include "node/dataset/manifest_read.h"
#include "node/dataset/rank_loader.h"
#include "node/dataset/sample_index.h"
#include "node/round/phase_usage.h"
#include "wire/dataload_codec.h"
#include "wire/dataload_report_codec.h"

namespace ckpt {
namespace {

class DataloadWorkload : public NodeWorkload {
 public:
  explicit DataloadWorkload(std::shared_ptr<KeptIndex> kept)
      : kept_(std::move(kept)) {}
  absl::StatusOr<PrepareOutcome> Prepare(
      PhaseJob job, StorageSet& storage,
      const std::atomic<bool>& abort) override;
  PhaseOutcome Run(const NodePhaseContext& ctx) override;
  std::vector<RankProgress> Progress() const override {
    std::vector<RankProgress> p;
    for (size_t r = 0; r < ranks_.size(); ++r) {
      p.push_back({job_.first_rank + static_cast<uint32_t>(r),
                   bytes_[r].load(std::memory_order_relaxed), 0});
    }
    return p;
  }

 private:
  struct Rank {
    RankShare plan;
    std::vector<LoaderWorker> workers;
  };
  // Each rank's plan of the epoch: its samples (map-style) or its
  // workers' objects (iterable). Returns the paths of the objects they
  // read (to be made cold).
  std::vector<std::string> PlanRanks();
  // A dataset ckptbench did not make: listed (and indexed) into index_.
  absl::StatusOr<DatasetListing> ListDatasetAt(Storage& storage,
                                               const std::string& shown,
                                               const std::atomic<bool>& abort);
  // The plan's index fits in what this node has (dataload_memory.h): the
  // listing's or the manifest's counts, `what` naming them.
  absl::Status CheckFootprint(DatasetFormat format, uint64_t samples,
                              uint64_t objects, const std::string& what,
                              uint64_t name_bytes = 0) const;
  // A worker's object-store counts in the phase.
  struct Counts {
    uint64_t requests = 0, retries = 0, throttles = 0, connections = 0;
  };
  static Counts CountsOf(const ObjectStoreCounters& c) {
    return {c.requests, c.retries, c.throttles, c.new_connections};
  }
  void Report(const std::vector<std::unique_ptr<RankLoader>>& loaders,
              const std::vector<Counts>& counts, PhaseOutcome* out);

  const std::shared_ptr<KeptIndex> kept_;  // the node's, across epochs
  // The job's workers per rank (the key table's bound, checked).
  uint32_t Workers() const {
    return static_cast<uint32_t>(job_.loader.num_workers);
  }

  DataloadJob job_;
  std::optional<SampleIndex> index_;
  std::string root_;
  std::vector<Rank> ranks_;
  std::vector<std::unique_ptr<StorageSet>> sets_;  // one per worker
  std::vector<std::shared_ptr<Storage>> held_;     // their backends
  std::unique_ptr<std::atomic<uint64_t>[]> bytes_;
  const ObjectStoreCounters* counters_ = nullptr;
  std::unique_ptr<EpochCheckpointer> checkpoints_;  // checkpoint_every
};

absl::StatusOr<PrepareOutcome> DataloadWorkload::Prepare(
    PhaseJob job, StorageSet& storage, const std::atomic<bool>& abort) {
  ASSIGN_OR_RETURN(job_, DecodeDataloadJob(job.workload_job));
  const BackendOptions& backend = job_.backend;
  ASSIGN_OR_RETURN(StorageLocation root, storage.Open(job_.dataset_uri, backend,
                                                      LocationRoot::kAsGiven));
  counters_ = &storage.counters();
  root_ = root.path;
  const std::string shown = EscapeForTerminal(job_.dataset_uri);
  DataloadPrepared prepared;
  const auto found = std::chrono::steady_clock::now();
  if (job_.listed) {
    ASSIGN_OR_RETURN(prepared.listing,
                     ListDatasetAt(*root.storage, shown, abort));
  } else {
    ASSIGN_OR_RETURN(std::optional<std::string> text,
                     ReadManifest(*root.storage, root_, shown));
    if (!text) return NoDatasetAt(shown);
    const std::string where = absl::StrCat(shown, "/", kDatasetManifestName);
    ASSIGN_OR_RETURN(const DatasetManifest manifest,
                     DatasetManifestFromJson(*text, where));
    // Before anything is held for it: the plan fits (the manifest's
    // numbers), then the totals are the layout's (a walk of every sample).
    RETURN_IF_ERROR(
        CheckFootprint(manifest.spec.format, manifest.spec.samples,
                       ApproxObjects(manifest.spec),
                       absl::StrCat("the manifest's samples ",
                                    manifest.spec.samples, " at ", where)));
    RETURN_IF_ERROR(CheckManifestTotals(manifest, where));
    index_.emplace(manifest.spec);
    prepared.manifest = *text;
  }
  // Before the epoch, as a Dataset's constructor lists its files.
  prepared.dataset_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - found)
          .count();
  RETURN_IF_ERROR(CheckEveryRankReads(
      index_->spec().samples, index_->objects(), job_.world,
      job_.loader.access == DataAccess::kIterable, job_.loader.drop_last,
      absl::StrCat("the dataset at ", shown)));
  const std::vector<std::string> objects = PlanRanks();
  bytes_ = std::make_unique<std::atomic<uint64_t>[]>(ranks_.size());
  // Each worker its own backend (its own connections), opened untimed.
  for (Rank& r : ranks_) {
    for (uint32_t w = 0; w < Workers(); ++w) {
      sets_.push_back(std::make_unique<StorageSet>(storage.memory()));
      ASSIGN_OR_RETURN(StorageLocation loc,
                       sets_.back()->Open(job_.dataset_uri, backend,
                                          LocationRoot::kAsGiven));
      LoaderWorker worker;
      worker.storage = loc.storage.get();
      worker.counters = &sets_.back()->counters();
      worker.ops.Reserve();
      r.workers.push_back(std::move(worker));
      held_.push_back(std::move(loc.storage));
    }
  }
  if (job_.checkpoint) {
    ASSIGN_OR_RETURN(
        checkpoints_,
        EpochCheckpointer::Prepare(*job_.checkpoint, storage, ranks_.size()));
  }
  PrepareOutcome out;
  ASSIGN_OR_RETURN(out.cache,
                   root.storage->PrepareColdRead(objects, job_.cache_mode,
                                                 DirectFallback::kUnavailable));
  out.storage_kind = root.storage->Kind();
  out.filesystem = root.storage->Filesystem(root_);
  out.workload_outcome = EncodeDataloadPrepared(prepared);
  return out;
}

absl::StatusOr<DatasetListing> DataloadWorkload::ListDatasetAt(
    Storage& storage, const std::string& shown,
    const std::atomic<bool>& abort) {
  const DatasetFormat format = job_.listed_format;
  // The coordinator's dataset.list_* (0: the default bound).
  ListingBounds bounds;
  const ListLimits& limits = job_.list_limits;
  auto set = [](uint64_t v, uint64_t* bound) {
    if (v != 0) *bound = v;
  };
  set(limits.max_objects, &bounds.max_entries);
  set(limits.max_pages, &bounds.max_pages);
  set(limits.max_key_bytes, &bounds.max_name_bytes);
  set(limits.max_page_bytes, &bounds.max_page_bytes);
  set(limits.max_bytes, &bounds.max_bytes);
  bounds.abort = &abort;
  bounds.keys = "dataset.list_max_";
  bounds.memory_bytes = UsableBytes(AvailableMemory());
  ASSIGN_OR_RETURN(ListedDataset d,
                   ListDataset(storage, *counters_, root_, format, shown,
                               bounds, kept_.get()));
  uint64_t names = 0;
  for (const ListedObject& o : d.objects) names += o.name.size();
  RETURN_IF_ERROR(CheckFootprint(
      format, d.samples, d.objects.size(),
      absl::StrCat("the ", d.objects.size(), " objects listed at ", shown),
      d.objects.empty() ? 0 : names / d.objects.size()));
  DatasetListing l;
  l.objects = d.objects.size();
  l.bytes = d.bytes;
  l.samples = d.samples;
  l.sample_bytes = d.sample_bytes;
  l.ignored = d.ignored;
  l.digest = d.digest;
  l.list_seconds = d.list_seconds;
  l.list_requests = d.list_requests;
  l.index_seconds = d.index_seconds;
  l.index_requests = d.index_requests;
  l.index_bytes = d.index_bytes;
  l.index_reused = d.index_reused;
  l.overlong_objects = d.overlong;
  l.overlong_bytes = d.overlong_bytes;
  l.overlong_first = d.overlong_first;
  index_.emplace(std::move(d));
  return l;
}

absl::Status DataloadWorkload::CheckFootprint(DatasetFormat format,
                                              uint64_t samples,
                                              uint64_t objects,
                                              const std::string& what,
                                              uint64_t name_bytes) const {
  DataloadShape shape;
  shape.format = format;
  shape.listed = job_.listed;
  shape.access = job_.loader.access == DataAccess::kIterable
                     ? DataAccess::kIterable
                     : DataAccess::kMap;
  shape.samples = samples;
  shape.objects = objects;
  shape.name_bytes = root_.size() + 1 + (name_bytes ? name_bytes : 32);
  shape.ranks_per_node = job_.ranks;
  shape.world = job_.world;
  return CheckDataloadMemory(EstimateDataloadMemory(shape), /*node_side=*/true,
                             AvailableMemory(), what);
}

std::vector<std::string> DataloadWorkload::PlanRanks() {
  const DatasetSpec& spec = index_->spec();
  ranks_.resize(job_.ranks);
  // The objects the node's ranks read, one bit each, then their paths.
  std::vector<bool> read(index_->objects(), false);
  if (job_.loader.access == DataAccess::kIterable) {
    const EpochOrder order = ObjectOrder(index_->objects(), job_.seed,
                                         job_.epoch, job_.loader.shuffle);
    for (uint32_t r = 0; r < job_.ranks; ++r) {
      RankShare& plan = ranks_[r].plan;
      plan.access = DataAccess::kIterable;
      const uint32_t rank = job_.first_rank + r;
      plan.shuffle_seed = Mix64(job_.seed ^ Mix64(job_.epoch * kGolden + rank));
      for (uint32_t w = 0; w < Workers(); ++w) {
        plan.objects.push_back(
            WorkerObjects(order, job_.world, rank, Workers(), w));
        for (uint32_t o : plan.objects.back()) read[o] = true;
      }
    }
  } else {
    const SamplerSpec sampler{spec.samples,        job_.world,
                              job_.seed,           job_.epoch,
                              job_.loader.shuffle, job_.loader.drop_last};
    for (uint32_t r = 0; r < job_.ranks; ++r) {
      RankShare& plan = ranks_[r].plan;
      plan.samples = RankOrder(sampler, job_.first_rank + r);
      for (uint64_t k = 0; k < plan.samples.size(); ++k) {
        read[index_->ObjectOf(plan.samples[k])] = true;
      }
    }
  }
  std::vector<std::string> paths;
  for (uint64_t o = 0; o < read.size(); ++o) {
    if (read[o]) paths.push_back(JoinPath(root_, index_->ObjectName(o)));
  }
  return paths;
}

PhaseOutcome DataloadWorkload::Run(const NodePhaseContext& ctx) {
  PhaseOutcome out;
  const auto start = std::chrono::steady_clock::now();
  const PhaseUsage usage(*counters_);
  std::vector<Counts> before;
  for (const Rank& r : ranks_) {
    for (const LoaderWorker& w : r.workers) {
      before.push_back(CountsOf(*w.counters));
    }
  }
  LoaderParams params;
  params.batch_size = job_.loader.batch_size;
  params.num_workers = job_.loader.num_workers;
  params.prefetch_factor = job_.loader.prefetch_factor;
  params.compute_seconds = job_.loader.compute_time;
  params.preprocess_seconds = job_.loader.preprocess_time;
  params.block_size = job_.block_size;
  params.shuffle_buffer = job_.loader.shuffle_buffer;
  params.root = root_;
  std::vector<std::unique_ptr<RankLoader>> loaders;
  std::vector<absl::Status> status(ranks_.size());
  std::mutex mu;
  std::condition_variable cv;
  size_t running = ranks_.size();
  std::vector<std::thread> threads;
  // Every loader made before any thread starts: a thread reads `loaders`.
  for (size_t r = 0; r < ranks_.size(); ++r) {
    loaders.push_back(std::make_unique<RankLoader>(
        params, *index_, std::move(ranks_[r].plan), &ranks_[r].workers,
        ctx.abort, &bytes_[r]));
    if (checkpoints_) loaders.back()->SetStepHook(checkpoints_.get(), r);
  }
  if (checkpoints_) checkpoints_->Start(ctx, start);
  for (size_t r = 0; r < ranks_.size(); ++r) {
    threads.emplace_back([&, r] {
      status[r] = loaders[r]->Run(start);
      std::lock_guard<std::mutex> lock(mu);
      if (--running == 0) cv.notify_all();
    });
  }
  {
    std::unique_lock<std::mutex> lock(mu);
    ctx.progress->AwaitDone(lock, cv, [&] { return running == 0; });
  }
  for (auto& t : threads) t.join();
  // An async save still persisting is waited for: its commit is the
  // epoch's too.
  if (checkpoints_) status.push_back(checkpoints_->Finish());
  // The first real error (a rank stopped by another's is only aborted).
  for (const absl::Status& s : status) {
    if (!s.ok() && (out.status.ok() || absl::IsAborted(out.status))) {
      out.status = s;
    }
  }
  usage.Into(&out);
  std::vector<Counts> counts;
  for (const Rank& r : ranks_) {
    for (const LoaderWorker& w : r.workers) {
      const Counts now = CountsOf(*w.counters), was = before[counts.size()];
      counts.push_back({now.requests - was.requests, now.retries - was.retries,
                        now.throttles - was.throttles,
                        now.connections - was.connections});
      out.requests += counts.back().requests;
      out.retries += counts.back().retries;
      out.throttles += counts.back().throttles;
      out.new_connections += counts.back().connections;
    }
  }
  Report(loaders, counts, &out);
  return out;
}

void DataloadWorkload::Report(
    const std::vector<std::unique_ptr<RankLoader>>& loaders,
    const std::vector<Counts>& counts, PhaseOutcome* out) {
  size_t k = 0;
  DataloadReport report;
  report.order = kEpochOrderName;
  for (size_t r = 0; r < loaders.size(); ++r) {
    const RankEpochStats& st = loaders[r]->stats();
    const uint32_t rank = job_.first_rank + static_cast<uint32_t>(r);
    RankEpochReport& e = report.ranks.emplace_back();
    e.rank = rank;
    e.samples = st.samples;
    e.bytes = st.bytes;
    e.batches = st.batches;
    e.seconds = st.seconds;
    e.first_batch_seconds = st.first_batch_seconds;
    e.first_batch = st.first_batch;
    e.compute_seconds = st.compute_seconds;
    e.wait_seconds = st.wait_seconds;
    e.digest = st.digest;
    e.order_digest = st.order_digest;
    e.wait = st.wait;
    for (const auto& win : st.windows) {
      e.windows.push_back({win.steps, win.mean, win.variance});
    }
    RankOutcome ro;
    ro.rank = rank;
    ro.bytes = st.bytes;
    ro.first_byte_seconds = st.first_batch_seconds;
    ro.done_seconds = st.seconds;
    ro.verified = out->status.ok() && index_->verified();
    ro.checked_bytes = index_->verified() ? st.bytes : 0;
    out->ranks.push_back(ro);
    for (size_t w = 0; w < ranks_[r].workers.size(); ++w) {
      const LoaderWorker& lw = ranks_[r].workers[w];
      report.workers.push_back({rank, static_cast<uint32_t>(w), lw.samples,
                                lw.batches, counts[k].requests,
                                counts[k].retries, counts[k].throttles,
                                counts[k].connections, lw.objects});
      ++k;
      out->ops.Merge(lw.ops);
      report.sample_first_byte.Merge(lw.first_byte);
      report.sample_last_byte.Merge(lw.last_byte);
    }
  }
  if (checkpoints_) checkpoints_->Report(&report);
  out->workload_report = EncodeDataloadReport(report);
}

}  // namespace

NodeWorkloadFactory DataloadWorkloads() {
  auto kept = std::make_shared<KeptIndex>();
  return [kept] { return std::make_unique<DataloadWorkload>(kept); };
}

}  // namespace ckpt
