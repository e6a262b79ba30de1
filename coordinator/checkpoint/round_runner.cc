#include "coordinator/checkpoint/round_runner.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/bounded_tasks.h"
#include "common/bytes.h"
#include "common/checksum.h"
#include "common/clock.h"
#include "common/cpu_usage.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "coordinator/json_codec.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/round_workload.h"
#include "wire/backend_codec.h"
#include "wire/kinds_codec.h"

namespace ckpt {
namespace {

using Clock = SteadyClock;

// Appends `part` to a "; "-joined list unless it is empty or there already.
void AppendOnce(std::string* list, const std::string& part) {
  if (part.empty() || list->find(part) != std::string::npos) return;
  absl::StrAppend(list, list->empty() ? "" : "; ", part);
}

}  // namespace

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
      backend_(BackendOptionsOf(config)),
      protocol_(std::move(nodes), progress, config.run.progress_interval),
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
  req.set_phase(ToWire(spec.save ? Phase::kSave : Phase::kLoad));
  req.set_seed(spec.seed);
  req.set_step(spec.step);
  req.set_step_uri(ForNode(spec.step_uri, nodes()[node]->index()));
  auto* io = req.mutable_io();
  io->set_block_size(config_.io.block_size);
  io->set_fsync(config_.io.fsync);
  io->set_direct_write(config_.io.direct_write);
  io->set_direct_read(config_.io.direct_read);
  io->set_cache_mode(ToWire(config_.io.cache_mode));
  io->set_checksum(ToWire(config_.io.checksum));
  io->set_queue_depth(config_.io.queue_depth);
  auto* loop = req.mutable_loop();
  loop->set_accelerator(ToWire(config_.cluster.accelerator));
  loop->set_staging(ToWire(config_.cluster.staging));
  // A load-only run's staging save writes a checkpoint, nothing more.
  loop->set_async(config_.run.async && spec.save && !spec.staged);
  loop->set_interval_seconds(config_.run.interval);
  for (const auto& t : plan_.tensors) req.add_tensor_names(t.name);
  *req.mutable_backend() = ToWire(backend_);
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
    const RoundSpec& spec, const std::vector<PhaseOutcome>& reports,
    bool per_node) const {
  SegmentChecksums sums;  // gathered once, read by every document
  for (const PhaseOutcome& rep : reports) {
    for (const SegmentSum& c : rep.checksums) {
      sums[{c.rank, c.file_index, c.segment_index}] = c.value;
    }
  }
  const size_t count = per_node ? nodes().size() : 1;
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

// The checkpoint's save or load as a workload of the round protocol:
// what each node is asked (its ranks, files and expected checksums), the
// cache flags of a load, the commit of a save (node 0, or each node on
// node-local storage, writes .metadata), then time to visible and the
// verification coverage.
class CheckpointRound : public RoundWorkload {
 public:
  CheckpointRound(RoundRunner& runner, const RoundSpec& spec)
      : r_(runner), spec_(spec), expected_(runner.nodes().size()) {}

  void Begin(RoundResult* result) override {
    result->phase = spec_.save ? Phase::kSave : Phase::kLoad;
    result->index = spec_.index;
    result->staged = spec_.staged;
    result->step = spec_.step;
    if (!spec_.save) result->rank_shift = r_.rank_shift_;
    result->resharded = !spec_.save && spec_.reshard != nullptr;
  }
  std::string Title(RoundNameForm form) const override {
    return CheckpointRoundName(spec_.save ? Phase::kSave : Phase::kLoad,
                               spec_.index, spec_.staged, form);
  }
  // A resharded load reads what its plan reads (whole segments read more
  // than the checkpoint's bytes), the bytes the nodes report as done.
  uint64_t ProgressBytes() const override {
    return !spec_.save && spec_.reshard != nullptr ? spec_.reshard->read
                                                   : r_.plan_.total_bytes;
  }
  v1::PrepareRequest BuildPrepare(size_t node) override {
    v1::PrepareRequest req = r_.BuildPrepare(spec_, static_cast<int>(node));
    // What the node's report may say, from what it is asked (reply_check.h).
    expected_[node] = ExpectPhase(req, 0);
    return req;
  }
  void Prepared(const std::vector<PrepareOutcome>& prepared,
                RoundResult* result) override;
  // The protocol checked the envelope (round, start lag).
  absl::Status CheckReport(size_t node, const PhaseOutcome& report,
                           const std::string& who) override {
    return CheckPhaseReportBody(report, expected_[node], who);
  }
  absl::Status Finish(const std::vector<PhaseOutcome>& reports,
                      RoundResult* result) override;
  void Aggregate(const std::vector<PhaseOutcome>& reports,
                 const std::vector<PrepareOutcome>& prepared,
                 RoundResult* result) override {
    r_.Aggregate(reports, spec_, result);
    for (size_t i = 0; i < prepared.size() && i < result->nodes.size(); ++i) {
      const PrepareOutcome& p = prepared[i];
      // Every checkpoint node names its backend (as an older build wrote
      // one that did not).
      result->nodes[i].storage_kind =
          p.storage_kind ? std::string(Name(*p.storage_kind)) : "unknown (0)";
      result->nodes[i].filesystem = p.filesystem.type;
      result->nodes[i].mount_point = p.filesystem.mount_point;
      result->nodes[i].mount_options = p.filesystem.options;
    }
  }
  void Conclude(const std::vector<PrepareOutcome>& prepared,
                int64_t finished_unix_ns, RoundResult* result) override;

 private:
  // A load's verification: every planned byte and file checked.
  void Verify(RoundResult* result) const;

  RoundRunner& r_;
  const RoundSpec& spec_;
  std::vector<PhaseExpectation> expected_;
  uint64_t metadata_size_ = 0, metadata_xxh3_ = 0;  // for time to visible
};

void CheckpointRound::Prepared(const std::vector<PrepareOutcome>& prepared,
                               RoundResult* result) {
  if (spec_.save || prepared.empty()) return;
  CacheResult& cache = result->cache;
  // The nodes' one method, unless they differ ("mixed").
  const CacheMethod method = prepared[0].cache.method;
  bool mixed = false;
  for (const PrepareOutcome& p : prepared) {
    mixed |= p.cache.method != method;
    cache.resident_bytes += p.cache.resident_bytes;
    cache.checked_bytes += p.cache.checked_bytes;
    // Nodes on the same kind of storage say the same: keep one of each.
    AppendOnce(&cache.note, p.cache.note);
    AppendOnce(&cache.probe, p.cache.probe);
  }
  cache.method = mixed ? std::string("mixed") : std::string(Name(method));
  if (!mixed && method == CacheMethod::kMemory) {
    result->flags.push_back(RoundFlag::kMemoryBacked);
    LOG_WARN("load round %d: %s", spec_.index, cache.note);
  } else if (!mixed && method == CacheMethod::kNone &&
             std::any_of(prepared.begin(), prepared.end(), [](const auto& p) {
               return p.storage_kind == StorageKind::kPosix ||
                      p.storage_kind == StorageKind::kFuse;
             })) {
    // Asked for (io.cache_mode=none): the number may be the page cache's.
    result->flags.push_back(RoundFlag::kPageCacheAllowed);
  } else if (cache.resident_bytes > 0 &&
             (mixed || method != CacheMethod::kODirect)) {
    result->flags.push_back(RoundFlag::kPageCacheResident);
    absl::StrAppend(&cache.note, cache.note.empty() ? "" : "; ",
                    cache.resident_bytes,
                    " bytes were still in the page cache at start");
    LOG_WARN("load round %d: %s", spec_.index, cache.note);
  }
}

absl::Status CheckpointRound::Finish(const std::vector<PhaseOutcome>& reports,
                                     RoundResult* result) {
  if (!spec_.save) return absl::OkStatus();
  const std::vector<NodeClient*>& nodes = r_.nodes();
  auto c0 = Clock::now();
  const bool local = r_.config_.storage.node_local;
  const size_t committers = local ? nodes.size() : 1;
  std::vector<absl::Status> errors(committers);
  std::vector<std::string> metadata = r_.BuildMetadata(spec_, reports, local);
  metadata_size_ = metadata[0].size();
  metadata_xxh3_ = Xxh3(metadata[0].data(), metadata[0].size());
  r_.protocol_.fanout().Run(committers, [&](size_t i,
                                            const std::function<void()>& done) {
    CommitJob job;
    job.run_id = spec_.run_id;
    job.round_id = spec_.round_id;
    job.step_uri = ForNode(spec_.step_uri, nodes[i]->index());
    job.backend = r_.backend_;
    job.metadata = std::move(metadata[i]);
    nodes[i]->CommitAsync(std::move(job), [&, i, done](absl::Status committed) {
      errors[i] = std::move(committed);
      done();
    });
  });
  result->commit_seconds =
      std::chrono::duration<double>(Clock::now() - c0).count();
  for (size_t i = 0; i < committers; ++i) {
    if (!errors[i].ok()) {
      return StatusOfKind(NodeErrorKindOf(errors[i]),
                          NodeError(*nodes[i], "commit", errors[i].message()));
    }
  }
  return absl::OkStatus();
}

void CheckpointRound::Conclude(const std::vector<PrepareOutcome>& prepared,
                               int64_t finished_unix_ns, RoundResult* result) {
  r_.SumUpStaging(spec_, result);
  const Config& config = r_.config_;
  if (spec_.save && !spec_.staged && !config.storage.node_local &&
      config.run.visible_timeout > 0) {
    r_.MeasureVisible(spec_, metadata_size_, metadata_xxh3_, prepared,
                      finished_unix_ns, result);
  }
  result->throughput_mib_s = MibPerSecond(result->bytes, result->seconds);
  if (!spec_.save) Verify(result);
}

void CheckpointRound::Verify(RoundResult* result) const {
  const CheckpointPlan& plan = r_.plan_;
  result->planned_bytes = plan.total_bytes;
  result->planned_files = plan.FileCount();
  if (spec_.reshard != nullptr) {  // O_DIRECT may read (and check) more
    result->planned_bytes = spec_.reshard->needed;
    result->planned_files = 0;
    for (const auto& r : spec_.reshard->ranks) {
      result->planned_files += r.files.size();
    }
    // The restore's bytes are the checkpoint's; what was read beyond
    // them is the amplification, not throughput.
    result->bytes_read = result->bytes;
    result->bytes = result->planned_bytes;
    result->throughput_mib_s = MibPerSecond(result->bytes, result->seconds);
    result->read_amplification =
        result->planned_bytes == 0
            ? 0
            : static_cast<double>(result->bytes_read) / result->planned_bytes;
  }
  bool all = true;
  for (const auto& r : result->ranks) all &= r.verified;
  result->verified = all &&
                     (spec_.reshard != nullptr
                          ? result->checked_bytes >= result->planned_bytes
                          : result->checked_bytes == result->planned_bytes) &&
                     result->checked_files == result->planned_files;
  if (!result->verified) result->flags.push_back(RoundFlag::kUnverified);
}

RoundResult RoundRunner::Run(const RoundSpec& spec) {
  CheckpointRound round(*this, spec);
  return protocol_.Run(round, {spec.run_id, spec.round_id, spec.interrupted});
}

}  // namespace ckpt
