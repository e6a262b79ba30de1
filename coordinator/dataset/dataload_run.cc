// DataloadRun (coordinator/dataset/dataload_run.h).
#include "coordinator/dataset/dataload_run.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataset_options.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/checkpoint/checkpoint_run.h"
#include "coordinator/client_check.h"
#include "coordinator/dataset/accelerator_search.h"
#include "coordinator/dataset/datagen_run.h"
#include "coordinator/dataset/dataload_round.h"
#include "coordinator/dataset/dataset_preflight.h"
#include "coordinator/dataset/dataset_results.h"
#include "coordinator/dataset/epoch_saves.h"
#include "coordinator/round/round_protocol.h"
#include "coordinator/steps.h"

namespace ckpt {
namespace {

// The training between saves, for goodput: the median time from a save
// letting the ranks go to the next one's start (less its ranks' wait for
// each other at the batch), the first from the epoch's start.
double SaveInterval(const std::vector<RoundResult>& rounds) {
  std::vector<double> gaps;
  for (const auto& r : rounds) {
    const EpochResult* e = EpochOf(r);
    if (e == nullptr) continue;
    double resumed = 0;
    for (const auto& s : e->saves) {
      gaps.push_back(
          std::max(0.0, s.start_seconds - s.arrival_spread_seconds - resumed));
      resumed = s.start_seconds + s.blocked_seconds;
    }
  }
  if (gaps.empty()) return 0;
  std::sort(gaps.begin(), gaps.end());
  return gaps[gaps.size() / 2];
}

// What a save during an epoch cost its training, for goodput (one model
// with a checkpoint run's): the training its window lost against the rest
// of the epoch's rate, the ranks' hold included. Sync: its whole hold (the
// round's time leaves out the ranks' wait at the start barrier). Async:
// the staging's block, and the rest as the training's slowdown.
void AddInterference(const EpochResult::Save& w, const EpochResult& ep,
                     RoundStaging* st) {
  if (!st->async) {
    st->checkpoint_cost_seconds =
        std::max(st->checkpoint_cost_seconds, w.blocked_seconds);
    return;
  }
  double lost = w.blocked_seconds;
  if (ep.rest_samples_per_second > 0 && w.window_samples_per_second > 0) {
    const double in_epoch = w.window_samples / w.window_samples_per_second;
    lost = std::max(lost,
                    in_epoch - w.window_samples / ep.rest_samples_per_second);
  }
  const double slower = std::max(0.0, lost - st->blocking_seconds);
  // A save that fell behind holds the next one: that wait is in the next
  // save's window, not here.
  st->slowdown_seconds = slower;
  st->checkpoint_cost_seconds = st->blocking_seconds + slower;
}

// The dataset the run read, as its first epoch found it: node 0's manifest,
// or the nodes' listing.
void NoteDataset(const DataloadRound& round, const std::string& uri,
                 RunResult* result) {
  if (DatasetResultOf(*result) != nullptr) return;
  if (round.listed()) {
    result->sections[kDatasetSection] =
        std::make_shared<const DatasetResult>(*round.listed());
  } else if (round.manifest()) {
    auto read = std::make_shared<DatasetResult>();
    read->uri = uri;
    read->spec = round.manifest()->spec;
    read->totals = round.manifest()->totals;
    result->sections[kDatasetSection] = std::move(read);
  }
}

// An epoch's line in the log.
void LogEpoch(int e, const RoundResult& r) {
  const EpochResult& ep = *EpochOf(r);
  LOG_INFO(
      "epoch %d: %d samples, %.3f s, %.0f samples/s, %.1f MiB/s, first "
      "batch %.3f s%s",
      e + 1, ep.samples, r.seconds, ep.samples_per_second, ep.mib_per_second,
      ep.first_batch_seconds,
      ep.compute_seconds > 0
          ? absl::StrFormat(", accelerator utilization %.1f%%",
                            100 * ep.utilization)
          : std::string());
}

// The epochs' plan from the configuration.
DataloadPlan MakeDataloadPlan(const RunContext& ctx) {
  const Config& config = ctx.config();
  DataloadPlan plan;
  plan.uri = DatasetPath(config);
  plan.node_local = config.storage.node_local;
  plan.listed = DatasetOf(config).source == DatasetSource::kListed;
  plan.listed_format = DatasetOf(config).format;
  plan.list_limits = DatasetOf(config).list;
  plan.ranks_per_node = config.RanksPerNode();
  plan.seed = config.run.seed;
  plan.loader = DataloadOf(config);
  plan.cache_mode =
      config.io.direct_read ? CacheMode::kDirect : config.io.cache_mode;
  plan.block_size = config.io.block_size;
  plan.backend = ctx.backend();
  return plan;
}

// Exact and short: "4MiB", "150KiB", "1000".
std::string ExactSize(uint64_t b) {
  if (b > 0 && b % kMiB == 0) return absl::StrCat(b / kMiB, "MiB");
  if (b > 0 && b % kKiB == 0) return absl::StrCat(b / kKiB, "KiB");
  return absl::StrCat(b);
}

}  // namespace

uint64_t DataloadRun::TakeEpochSaves(RunContext& ctx, EpochSaves& saves,
                                     const std::string& dir, size_t epoch_at,
                                     RunResult* result) {
  std::vector<RoundResult> rounds = saves.TakeRounds();
  const uint64_t uncommitted = saves.uncommitted_step();
  for (RoundResult& s : rounds) {
    if (s.status == RunStatus::kOk) {
      ctx.NoteCommitted(s.step);
      LOG_INFO("save %d (during epoch %d): step-%d, %.3f s, %.1f MiB/s",
               s.index, result->rounds[epoch_at].index, s.step, s.seconds,
               s.throughput_mib_s);
    }
  }
  RoundResult& epoch_round = result->rounds[epoch_at];
  if (const EpochResult* was = EpochOf(epoch_round)) {
    // The epoch's section may be shared by a published copy: a new one.
    auto ep = std::make_shared<EpochResult>(*was);
    for (size_t k = 0; k < ep->saves.size(); ++k) {
      EpochResult::Save& w = ep->saves[k];
      for (RoundResult& s : rounds) {
        if (s.step != w.step) continue;
        w.index = s.index;
        AddInterference(w, *ep, &s.staging);
        // The next save started before this one was done: it waited.
        s.staging.fell_behind =
            s.staging.async && k + 1 < ep->saves.size() &&
            ep->saves[k + 1].start_seconds < w.start_seconds + w.window_seconds;
      }
    }
    epoch_round.sections[kEpochSection] = std::move(ep);
  }
  for (RoundResult& s : rounds) result->rounds.push_back(std::move(s));
  if (uncommitted != 0) {
    ctx.RemoveFailedStep(dir, uncommitted, result);
  }
  return saves.next_step();
}

absl::Status DataloadRun::RunAcceleratorSearch(RunContext& ctx,
                                               const DataloadPlan& base,
                                               RunResult* result) {
  const Config& config = ctx.config();
  AcceleratorSearchResult search;
  // The search so far in the result, then the result published.
  auto publish = [&ctx, &search, result] {
    result->sections[kAcceleratorSearchSection] =
        std::make_shared<const AcceleratorSearchResult>(search);
    ctx.Publish(result);
  };
  search.threshold = kMlperfUtilization;
  search.max_per_node = DataloadOf(config).find_accelerators;
  search.nodes = static_cast<int>(ctx.nodes().size());
  search.compute_seconds = DataloadOf(config).compute_time;
  search.batch_size = DataloadOf(config).batch_size;
  result->notes.push_back(absl::StrCat(
      "accelerator search: one cold epoch per count of ranks per node "
      "(dataload.epochs and cluster.num_devices are not used), up to ",
      search.max_per_node, " per node"));
  RoundProtocol protocol(ctx.nodes(), ctx.progress(),
                         config.run.progress_interval);
  DataloadPlan plan = base;
  plan.warm = false;
  for (int n = NextRanksPerNode(search); n > 0 && !ctx.interrupted();
       n = NextRanksPerNode(search)) {
    plan.epoch = search.trials.size();
    plan.ranks_per_node = n;
    DataloadRound round(ctx.nodes(), plan);
    result->rounds.push_back(protocol.Run(round, ctx.NextRound()));
    RoundResult& r = result->rounds.back();
    NoteDataset(round, plan.uri, result);
    if (r.status != RunStatus::kOk) {
      publish();
      return absl::AbortedError(r.error);
    }
    FlagShortPhase(&r, kLargerDataset);
    FlagClientBound(&r);
    AddTrial(r, n, static_cast<int>(result->rounds.size() - 1), &search);
    const auto& t = search.trials.back();
    LOG_INFO(
        "%d accelerator(s) (%d per node): utilization %.1f%%, %.0f "
        "samples/s: %s%s",
        t.accelerators, n, 100 * t.utilization, t.samples_per_second,
        t.held ? "held" : "fell below 90%",
        t.client_bound ? " (client-bound)" : "");
    publish();
  }
  ConcludeSearch(&search);
  if (ctx.interrupted()) search.ended_by = SearchEnd::kInterrupted;
  publish();
  return absl::OkStatus();
}

std::unique_ptr<EpochSaves> DataloadRun::NewEpochSaves(RunContext& ctx,
                                                       const std::string& dir,
                                                       uint64_t first_step,
                                                       int saves_before) {
  const Config& config = ctx.config();
  EpochSavesContext context;
  context.spec = [&ctx, dir](uint64_t step) {
    return NewRoundSpec(ctx, /*save=*/true, 0, dir, step,
                        ctx.config().run.seed);
  };
  context.claim = [&ctx, dir](uint64_t step) {
    return ctx.ClaimStep(dir, step);
  };
  context.step_uri = [dir](uint64_t step) { return StepUri(dir, step); };
  context.index_base = saves_before;
  return std::make_unique<EpochSaves>(config, *checkpoint_plan_, ctx.nodes(),
                                      std::move(context), first_step);
}

absl::Status DataloadRun::Preflight(RunContext& ctx, RunResult*) {
  return PreflightDataset(ctx);
}

absl::Status DataloadRun::Run(RunContext& ctx, RunResult* result) {
  const Config& config = ctx.config();
  DataloadPlan plan = MakeDataloadPlan(ctx);
  if (DataloadOf(config).find_accelerators > 0) {
    return RunAcceleratorSearch(ctx, plan, result);
  }
  RoundProtocol protocol(ctx.nodes(), ctx.progress(),
                         config.run.progress_interval);
  // Checkpoints during the epochs: the first step claimed before them.
  const std::string dir = config.StepsPath();
  const bool checkpoints = DataloadOf(config).checkpoint_every > 0;
  uint64_t next_step = 0;
  int saves_before = 0;
  if (checkpoints) {
    ASSIGN_OR_RETURN(checkpoint_plan_, PlanRunCheckpoints(ctx));
    auto listings = ctx.InspectAll(dir, /*probe=*/true, false);
    if (!listings.ok()) {
      return absl::Status(
          listings.status().code(),
          absl::StrCat("storage.path (CKPT_DIR_PATH) is not usable for the "
                       "epochs' checkpoints: ",
                       listings.status().message()));
    }
    ASSIGN_OR_RETURN(next_step, ctx.ClaimStep(dir, MaxStep(*listings) + 1));
  }
  absl::Status status;
  for (int e = 0; e < DataloadOf(config).epochs && !ctx.interrupted(); ++e) {
    plan.epoch = static_cast<uint64_t>(e);
    plan.warm = DataloadOf(config).warm_epochs && e > 0;
    std::unique_ptr<EpochSaves> saves;
    if (checkpoints && next_step != 0) {
      saves = NewEpochSaves(ctx, dir, next_step, saves_before);
    }
    plan.saves = saves.get();
    DataloadRound round(ctx.nodes(), plan);
    const size_t at = result->rounds.size();
    result->rounds.push_back(protocol.Run(round, ctx.NextRound()));
    if (saves) {
      const size_t before = result->rounds.size();
      next_step = TakeEpochSaves(ctx, *saves, dir, at, result);
      saves_before += static_cast<int>(result->rounds.size() - before);
      saves.reset();
    }
    NoteDataset(round, plan.uri, result);
    RoundResult& r = result->rounds[at];
    if (r.status != RunStatus::kOk) {
      ctx.Publish(result);
      status = absl::AbortedError(r.error);
      break;
    }
    LogEpoch(e, r);
    FlagShortPhase(&r, kLargerDataset);
    FlagClientBound(&r);
    ctx.Publish(result);
  }
  if (checkpoints) {
    // Goodput at the interval the epochs' saves were taken at.
    if (const GoodputAt* at = GoodputAtOf(*result)) {
      const double mttf = at->mttf_seconds;  // `at` goes with its section
      SetGoodputAt(result, mttf, SaveInterval(result->rounds));
    }
    // The step claimed for a save no epoch took: this run's, removed.
    if (next_step != 0) ctx.RemoveFailedStep(dir, next_step, result);
    ctx.Publish(result);
  }
  return status;
}

std::string DatasetDirName(const DatasetSpec& spec) {
  std::string name = absl::StrCat(
      std::string(Name(spec.format)), "-", spec.samples, "x",
      ExactSize(spec.sample_bytes), "-s", ExactSize(spec.sample_spread));
  if (spec.format == DatasetFormat::kTar) {
    absl::StrAppend(&name, "-shard", ExactSize(spec.shard_bytes));
  } else if (spec.spread_prefixes > 0) {
    absl::StrAppend(&name, "-p", spec.spread_prefixes);
  }
  absl::StrAppend(&name, "-seed", spec.seed);
  return name;
}

Preparation DataloadPreparation() {
  Preparation p;
  p.by = kDatagenWorkload;
  p.needs = [](const Config& c) -> std::optional<std::vector<SourcedValue>> {
    if (DatasetOf(c).source != DatasetSource::kCkptbench) return std::nullopt;
    std::vector<SourcedValue> values;
    if (DatasetOf(c).path.empty() && !c.storage.path.empty()) {
      values.push_back(
          {"dataset.path",
           JoinPath(c.storage.path,
                    "datasets/" + DatasetDirName(DatasetSpecOf(c))),
           "sweep: prepare: datagen, the point's dataset"});
    }
    return values;
  };
  p.target = [](const Config& c) { return DatasetPath(c); };
  return p;
}

Embedding DataloadEmbedding() {
  Embedding e;
  e.workload = kCheckpointWorkload;
  e.instead.push_back(
      {"run.interval", "during a dataload epoch, dataload.checkpoint_every"});
  return e;
}

}  // namespace ckpt
