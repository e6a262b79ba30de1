#include "coordinator/round_runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/clock.h"
#include "common/cpu_usage.h"
#include "common/log.h"
#include "coordinator/clock_sync.h"
#include "coordinator/json_codec.h"
#include "coordinator/reply_check.h"
#include "node/error_kind.h"
#include "node/node_service.h"
#include "node/storage/object_io.h"

namespace ckpt {
namespace {

using Clock = SteadyClock;

// Appends `part` to a "; "-joined list unless it is empty or there already.
void AppendOnce(std::string* list, const std::string& part) {
  if (part.empty() || list->find(part) != std::string::npos) return;
  absl::StrAppend(list, list->empty() ? "" : "; ", part);
}

// Least margin between announcing the start instant and reaching it, plus
// a share per node: the start messages go out one after another, and at
// 1024 nodes (coordination_bench, when they went out one thread per node)
// a flat 50 ms let the last nodes start 0.9 s late, so the round measured
// the dispatch. The margin is untimed.
constexpr double kStartMarginSeconds = 0.05;
constexpr double kStartMarginPerNodeSeconds = 0.001;

// What a node answered with, when it failed: its message and its kind
// (unspecified when the node could not be reached).
struct NodeFailure {
  std::string error;
  v1::ErrorKind kind = v1::ERROR_KIND_UNSPECIFIED;
};

// A node's error during `step` ("" for the phase itself), naming the node
// once: remote nodes' transport errors name it already ("node 1 (vm)
// disconnected"), and then the step follows in parentheses.
std::string NodeError(const NodeClient& n, const std::string& step,
                      absl::string_view msg) {
  std::string who = n.Who();
  if (absl::StartsWith(msg, who)) {
    return step.empty() ? std::string(msg) : absl::StrCat(msg, " (", step, ")");
  }
  return step.empty() ? absl::StrCat(who, ": ", msg)
                      : absl::StrCat(who, ": ", step, ": ", msg);
}

}  // namespace

// The three slowest nodes that moved bytes, with their ratio to the median
// node's seconds (multinode rounds only).
int EffectiveRankShift(const Config& config, const CheckpointPlan& plan) {
  const int world = static_cast<int>(plan.world_size);
  if (world <= 0) return 0;
  if (config.load.rank_shift >= 0) return config.load.rank_shift % world;
  return plan.num_nodes > 1 && !config.storage.node_local
             ? static_cast<int>(plan.ranks_per_node) % world
             : 0;
}

RoundRunner::RoundRunner(const Config& config, const CheckpointPlan& plan,
                         std::vector<NodeClient*> nodes,
                         ProgressPrinter* progress)
    : config_(config),
      plan_(plan),
      nodes_(std::move(nodes)),
      progress_(progress),
      storage_options_(StorageOptionsOf(config)),
      fanout_(nodes_.size(),
              std::all_of(nodes_.begin(), nodes_.end(),
                          [](const NodeClient* n) { return n->async(); })),
      rank_shift_(EffectiveRankShift(config, plan)) {}

const RankPlan& RoundRunner::ReadRank(uint32_t rank) const {
  const size_t world = plan_.ranks.size();
  const uint32_t want = static_cast<uint32_t>(
      (rank + static_cast<uint64_t>(rank_shift_)) % std::max<size_t>(world, 1));
  if (want < world && plan_.ranks[want].rank == want) return plan_.ranks[want];
  for (const auto& r : plan_.ranks) {
    if (r.rank == want) return r;
  }
  return plan_.ranks[rank % world];  // a plan has ranks 0..world-1
}

v1::PrepareRequest RoundRunner::BuildPrepare(const RoundSpec& spec,
                                             int node) const {
  v1::PrepareRequest req;
  req.set_run_id(spec.run_id);
  req.set_round_id(spec.round_id);
  req.set_phase(spec.save ? v1::PHASE_SAVE : v1::PHASE_LOAD);
  req.set_seed(spec.seed);
  req.set_step(spec.step);
  req.set_step_uri(ForNode(spec.step_uri, nodes_[node]->index()));
  auto* io = req.mutable_io();
  io->set_block_size(config_.io.block_size);
  io->set_fsync(config_.io.fsync);
  io->set_direct_write(config_.io.direct_write);
  io->set_direct_read(config_.io.direct_read);
  io->set_cache_mode(config_.io.cache_mode);
  io->set_checksum(config_.io.checksum);
  io->set_queue_depth(config_.io.queue_depth);
  auto* loop = req.mutable_loop();
  loop->set_accelerator(config_.cluster.accelerator);
  loop->set_staging(config_.cluster.staging);
  // A load-only run's staging save writes a checkpoint, nothing more.
  loop->set_async(config_.run.async && spec.save && !spec.staged);
  loop->set_interval_seconds(config_.run.interval);
  for (const auto& t : plan_.tensors) req.add_tensor_names(t.name);
  req.mutable_storage_options()->insert(storage_options_.begin(),
                                        storage_options_.end());
  if (!spec.save && spec.reshard != nullptr) {
    AddReshardedRanks(*spec.reshard, node, &req);
    return req;
  }
  for (const auto& r : plan_.ranks) {
    if (static_cast<int>(r.node) != node) continue;
    auto* ra = req.add_ranks();
    ra->set_rank(r.rank);
    // A load with a rank shift reads the files another rank wrote.
    const RankPlan& src = spec.save ? r : ReadRank(r.rank);
    for (const auto& f : src.files) {
      auto* fa = ra->add_files();
      fa->set_name(f.name);
      fa->set_index(f.index);
      fa->set_size(f.size);
      if (src.rank != r.rank) {
        fa->set_other_rank(true);
        fa->set_written_by_rank(src.rank);
      }
      for (size_t k = 0; k < f.segments.size(); ++k) {
        const auto& s = f.segments[k];
        auto* sa = fa->add_segments();
        sa->set_tensor_index(s.tensor);
        sa->set_tensor_offset(s.tensor_offset);
        sa->set_length(s.length);
        sa->set_file_offset(s.file_offset);
        uint64_t sum = 0;
        if (!spec.save && spec.expected &&
            spec.expected(src.rank, f.index, static_cast<uint32_t>(k), &sum)) {
          sa->set_checksum(sum);
          sa->set_has_checksum(true);
        }
      }
    }
  }
  return req;
}

const ReshardRank& RoundRunner::ReshardShare(const ReshardPlan& reshard,
                                             uint32_t rank) const {
  // reshard.ranks follows the plan's ranks, 0..world-1 in order.
  const size_t world = std::max<size_t>(reshard.ranks.size(), 1);
  return reshard.ranks[(rank + static_cast<size_t>(rank_shift_)) % world];
}

void RoundRunner::AddReshardedRanks(const ReshardPlan& reshard, int node,
                                    v1::PrepareRequest* req) const {
  for (const auto& r : plan_.ranks) {
    if (static_cast<int>(r.node) != node) continue;
    const ReshardRank& rr = ReshardShare(reshard, r.rank);
    auto* ra = req->add_ranks();
    ra->set_rank(r.rank);
    for (const auto& read : rr.files) {
      const SavedFile& sf = reshard.saved[read.saved];
      auto* fa = ra->add_files();
      fa->set_name(sf.file.name);
      fa->set_index(sf.file.index);
      fa->set_size(sf.file.size);
      fa->set_other_rank(true);
      fa->set_written_by_rank(sf.rank);
      fa->set_ranges(true);
      for (size_t i = 0; i < read.ranges.size(); ++i) {
        const SegmentPlan& s = read.ranges[i];
        auto* sa = fa->add_segments();
        sa->set_tensor_index(s.tensor);
        sa->set_tensor_offset(s.tensor_offset);
        sa->set_length(s.length);
        sa->set_file_offset(s.file_offset);
        if (i < read.keep.size()) {
          sa->set_keep_offset(read.keep[i].first);
          sa->set_keep_length(read.keep[i].second - read.keep[i].first);
        }
      }
    }
  }
}

std::vector<std::string> RoundRunner::BuildMetadata(
    const RoundSpec& spec, const std::vector<v1::PhaseReport>& reports,
    bool per_node) const {
  SegmentChecksums sums;  // gathered once, read by every document
  for (const auto& rep : reports) {
    for (const auto& c : rep.checksums()) {
      sums[{c.rank(), c.file_index(), c.segment_index()}] = c.checksum();
    }
  }
  const size_t count = per_node ? nodes_.size() : 1;
  std::vector<std::string> out(count);
  auto build = [&](size_t i) {
    out[i] = MetadataToJson(plan_, spec.step, spec.seed, config_.io.checksum,
                            sums, per_node ? static_cast<int>(i) : -1);
  };
  if (count == 1) {
    build(0);
    return out;
  }
  BoundedTasks tasks(UsableCpus());
  for (size_t i = 0; i < count; ++i) {
    (void)tasks.Start([&build, i] {
      build(i);
      return absl::OkStatus();
    });
  }
  (void)tasks.Wait(0);
  return out;
}

void RoundRunner::ReestimateClocks(RoundResult* result) {
  std::vector<ClockEstimate> est(nodes_.size());
  std::vector<absl::Status> errors(nodes_.size());  // one slot per thread
  {
    BoundedTasks tasks(kClockThreads);
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (!nodes_[i]->remote()) continue;
      (void)tasks.Start([&, i] {
        auto e = EstimateClock(*nodes_[i], kClockExchangesPerRound);
        if (e.ok()) {
          est[i] = *e;
        } else {
          errors[i] = e.status();
        }
        return absl::OkStatus();  // a failed estimate keeps the last one
      });
    }
    (void)tasks.Wait(0);
  }
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!nodes_[i]->remote()) continue;
    if (!errors[i].ok() || est[i].samples == 0) {
      LOG_WARN("%s: clock offset not re-estimated (%s); keeping %.3f ms",
               nodes_[i]->Who(), errors[i].message(),
               static_cast<double>(nodes_[i]->clock_offset_ns()) / 1e6);
      continue;
    }
    // A noisier estimate (round trip over twice the kept one's: the
    // offset's error is up to half the round trip) keeps the last one.
    const double kept_rtt = nodes_[i]->rtt_seconds();
    if (kept_rtt > 0 && est[i].rtt_seconds > 2 * kept_rtt) {
      est[i].offset_ns = nodes_[i]->clock_offset_ns();
      est[i].rtt_seconds = kept_rtt;
    }
    nodes_[i]->SetClock(est[i].offset_ns, est[i].rtt_seconds);
    result->clocks.push_back({nodes_[i]->index(), nodes_[i]->host(),
                              static_cast<double>(est[i].offset_ns) / 1e6,
                              est[i].rtt_seconds * 1e3});
  }
}

void RoundRunner::AbortAll(const std::string& run_id,
                           const std::string& reason) {
  v1::AbortRequest req;
  req.set_run_id(run_id);
  req.set_reason(reason);
  for (auto* n : nodes_) (void)n->Abort(req);
}

RoundResult RoundRunner::Run(const RoundSpec& spec) {
  RoundResult result;
  result.phase = spec.save ? "save" : "load";
  result.index = spec.index;
  result.staged = spec.staged;
  result.step = spec.step;
  if (!spec.save) result.rank_shift = rank_shift_;
  result.resharded = !spec.save && spec.reshard != nullptr;
  auto fail = [&](std::string error, v1::ErrorKind kind = {}) {
    result.status = "failed";
    result.error = std::move(error);
    result.error_kind = ErrorKindName(kind);
    LOG_ERROR("%s round %d failed: %s", result.phase, result.index,
              result.error);
    return result;
  };
  const size_t n = nodes_.size();

  // Prepare (untimed).
  std::vector<v1::PrepareReply> prepared(n);
  std::vector<NodeFailure> prepare_errors(n);
  // What each node's report may say, from what it is asked (reply_check.h).
  std::vector<PhaseExpectation> expected(n);
  fanout_.Run(n, [&](size_t i, const std::function<void()>& done) {
    v1::PrepareRequest req = BuildPrepare(spec, static_cast<int>(i));
    expected[i] = ExpectPhase(req, 0);
    nodes_[i]->PrepareAsync(
        req, [&, i, done](absl::StatusOr<v1::PrepareReply> rep) {
          if (!rep.ok()) {
            prepare_errors[i].error = std::string(rep.status().message());
          } else if (!rep->error().empty()) {
            prepare_errors[i] = {rep->error(), rep->error_kind()};
          } else {
            prepared[i] = std::move(*rep);
          }
          done();
        });
  });
  for (size_t i = 0; i < n; ++i) {
    if (!prepare_errors[i].error.empty()) {
      return fail(NodeError(*nodes_[i], "prepare", prepare_errors[i].error),
                  prepare_errors[i].kind);
    }
  }
  if (spec.interrupted && spec.interrupted->load()) {
    return fail("interrupted before the round started");
  }
  // Still untimed: the nodes' clocks again, so this round's start instant
  // and its clock-corrected times use offsets of now, not the run's start
  // (clocks drift, NTP steps them).
  ReestimateClocks(&result);
  for (size_t i = 0; i < n; ++i) {
    expected[i].clock_error_seconds = nodes_[i]->rtt_seconds() / 2;
  }
  for (size_t i = 0; i < n; ++i) {
    const v1::PrepareReply* rep = &prepared[i];
    if (!spec.save) {
      if (result.cache.method.empty() ||
          result.cache.method == rep->cache_method()) {
        result.cache.method = rep->cache_method();
      } else {
        result.cache.method = "mixed";
      }
      result.cache.resident_bytes += rep->resident_bytes();
      result.cache.checked_bytes += rep->checked_bytes();
      // Nodes on the same kind of storage say the same: keep one of each.
      AppendOnce(&result.cache.note, rep->cache_note());
      AppendOnce(&result.cache.probe, rep->cache_probe());
    }
  }
  if (!spec.save && result.cache.method == "memory") {
    result.flags.push_back("memory_backed");
    LOG_WARN("load round %d: %s", spec.index, result.cache.note);
  } else if (!spec.save && result.cache.method == "none" &&
             std::any_of(prepared.begin(), prepared.end(), [](const auto& p) {
               return p.storage_kind() == "posix" || p.storage_kind() == "fuse";
             })) {
    // Asked for (io.cache_mode=none): the number may be the page cache's.
    result.flags.push_back("page_cache_allowed");
  } else if (!spec.save && result.cache.resident_bytes > 0 &&
             result.cache.method != "o_direct") {
    result.flags.push_back("page_cache_resident");
    absl::StrAppend(&result.cache.note, result.cache.note.empty() ? "" : "; ",
                    result.cache.resident_bytes,
                    " bytes were still in the page cache at start");
    LOG_WARN("load round %d: %s", spec.index, result.cache.note);
  }

  // Common start instant.
  // Common start instant: far enough ahead for the slowest link to carry
  // the start message; each node gets it on its own clock.
  double max_rtt = 0;
  for (auto* node : nodes_) max_rtt = std::max(max_rtt, node->rtt_seconds());
  const double margin = std::max(
      kStartMarginSeconds + kStartMarginPerNodeSeconds * static_cast<double>(n),
      4 * max_rtt + 0.01);
  const int64_t margin_ns = static_cast<int64_t>(margin * 1e9);
  const int64_t start_unix = NowUnixNs() + margin_ns;
  LOG_DEBUG("%s round %d: starting %d node(s) together in %.3f s",
            spec.save ? "save" : "load", spec.index,
            static_cast<int>(nodes_.size()), margin);
  const Clock::time_point t0 =
      Clock::now() + std::chrono::nanoseconds(margin_ns);
  std::string label = spec.staged ? std::string("stage (untimed)")
                                  : absl::StrCat(result.phase, " ", spec.index);
  // A resharded load reads what its plan reads (whole segments read more
  // than the checkpoint's bytes), the bytes the nodes report as done.
  const uint64_t round_bytes = !spec.save && spec.reshard != nullptr
                                   ? spec.reshard->read
                                   : plan_.total_bytes;
  if (progress_) {
    progress_->BeginRound(label, round_bytes, static_cast<int>(n));
  }

  std::vector<v1::PhaseReport> reports(n);
  // The first error in time is the cause; the aborts it triggers make the
  // other nodes fail too, and those must not be reported instead of it.
  std::mutex error_mu;
  std::string first_error;
  v1::ErrorKind first_kind = v1::ERROR_KIND_UNSPECIFIED;
  auto on_report = [&](size_t i, absl::StatusOr<v1::PhaseReport> rep) {
    std::string error;
    v1::ErrorKind kind = v1::ERROR_KIND_UNSPECIFIED;
    if (!rep.ok()) {
      error = NodeError(*nodes_[i], "", rep.status().message());
    } else {
      reports[i] = std::move(*rep);
      if (!reports[i].error().empty()) {
        error = NodeError(*nodes_[i], "", reports[i].error());
        kind = reports[i].error_kind();
      }
    }
    if (!error.empty()) {
      bool first = false;
      {
        std::lock_guard<std::mutex> lock(error_mu);
        if (first_error.empty()) {
          first_error = error;
          first_kind = kind;
          first = true;
        }
      }
      if (first) AbortAll(spec.run_id, error);
    }
    if (progress_) progress_->NodeDone(static_cast<int>(i));
  };
  fanout_.Run(n, [&](size_t i, const std::function<void()>& done) {
    v1::StartPhaseRequest req;
    req.set_run_id(spec.run_id);
    req.set_round_id(spec.round_id);
    req.set_start_at_unix_ns(start_unix + nodes_[i]->clock_offset_ns());
    req.set_progress_interval_seconds(config_.run.progress_interval);
    nodes_[i]->StartPhaseAsync(
        req,
        [this, i](const v1::Progress& p) {
          if (progress_) progress_->Update(static_cast<int>(i), p);
        },
        [&, i, done](absl::StatusOr<v1::PhaseReport> rep) {
          on_report(i, std::move(rep));
          done();
        });
  });
  result.transfer_seconds = SecondsSince(t0);
  if (progress_) progress_->EndRound();
  // Each report is checked before any of it is used, after the round's
  // clock stopped (reply_check.h): one that fails is dropped, and its node
  // fails, named.
  for (size_t i = 0; i < n; ++i) {
    absl::Status unusable =
        CheckPhaseReport(reports[i], expected[i], nodes_[i]->Who());
    if (unusable.ok()) continue;
    reports[i] = v1::PhaseReport();
    if (first_error.empty()) {
      first_error = NodeError(*nodes_[i], "", unusable.message());
      first_kind = v1::ERROR_KIND_INTERNAL;
    }
  }
  // What the nodes reported is summed up after the round's clock stops
  // (below): it is this tool's bookkeeping, not the checkpoint's work.
  auto aggregate = [&] {
    Aggregate(reports, spec, &result);
    for (size_t i = 0; i < n && i < result.nodes.size(); ++i) {
      result.nodes[i].storage_kind = prepared[i].storage_kind();
      result.nodes[i].filesystem = prepared[i].filesystem();
      result.nodes[i].mount_point = prepared[i].mount_point();
      result.nodes[i].mount_options = prepared[i].mount_options();
    }
  };
  if (!first_error.empty()) {
    result.seconds = result.transfer_seconds;
    aggregate();
    return fail(first_error, first_kind);
  }

  uint64_t metadata_size = 0, metadata_xxh3 = 0;  // for time to visible
  if (spec.save) {
    auto c0 = Clock::now();
    const bool local = config_.storage.node_local;
    const size_t committers = local ? n : 1;
    std::vector<NodeFailure> commit_errors(committers);
    std::vector<std::string> metadata = BuildMetadata(spec, reports, local);
    metadata_size = metadata[0].size();
    metadata_xxh3 = Xxh3(metadata[0].data(), metadata[0].size());
    fanout_.Run(committers, [&](size_t i, const std::function<void()>& done) {
      v1::CommitRequest req;
      req.set_run_id(spec.run_id);
      req.set_round_id(spec.round_id);
      req.set_step_uri(ForNode(spec.step_uri, nodes_[i]->index()));
      req.mutable_storage_options()->insert(storage_options_.begin(),
                                            storage_options_.end());
      req.set_metadata(std::move(metadata[i]));
      nodes_[i]->CommitAsync(
          req, [&, i, done](absl::StatusOr<v1::CommitReply> rep) {
            if (!rep.ok()) {
              commit_errors[i].error = std::string(rep.status().message());
            } else if (!rep->error().empty()) {
              commit_errors[i] = {rep->error(), rep->error_kind()};
            }
            done();
          });
    });
    result.commit_seconds =
        std::chrono::duration<double>(Clock::now() - c0).count();
    for (size_t i = 0; i < committers; ++i) {
      if (!commit_errors[i].error.empty()) {
        result.seconds = SecondsSince(t0);
        aggregate();
        return fail(NodeError(*nodes_[i], "commit", commit_errors[i].error),
                    commit_errors[i].kind);
      }
    }
  }
  result.seconds = SecondsSince(t0);
  const int64_t committed_unix_ns = NowUnixNs();
  aggregate();
  SumUpStaging(spec, &result);
  if (spec.save && !spec.staged && !config_.storage.node_local &&
      config_.run.visible_timeout > 0) {
    MeasureVisible(spec, metadata_size, metadata_xxh3, prepared,
                   committed_unix_ns, &result);
  }
  result.throughput_mib_s = MibPerSecond(result.bytes, result.seconds);
  if (!spec.save) {
    result.planned_bytes = plan_.total_bytes;
    result.planned_files = plan_.FileCount();
    if (spec.reshard != nullptr) {  // O_DIRECT may read (and check) more
      result.planned_bytes = spec.reshard->needed;
      result.planned_files = 0;
      for (const auto& r : spec.reshard->ranks) {
        result.planned_files += r.files.size();
      }
      // The restore's bytes are the checkpoint's; what was read beyond
      // them is the amplification, not throughput.
      result.bytes_read = result.bytes;
      result.bytes = result.planned_bytes;
      result.throughput_mib_s = MibPerSecond(result.bytes, result.seconds);
      result.read_amplification =
          result.planned_bytes == 0
              ? 0
              : static_cast<double>(result.bytes_read) / result.planned_bytes;
    }
    bool all = true;
    for (const auto& r : result.ranks) all &= r.verified;
    result.verified = all &&
                      (spec.reshard != nullptr
                           ? result.checked_bytes >= result.planned_bytes
                           : result.checked_bytes == result.planned_bytes) &&
                      result.checked_files == result.planned_files;
    if (!result.verified) result.flags.push_back("unverified");
  }
  return result;
}

}  // namespace ckpt
