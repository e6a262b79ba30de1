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
#include "common/checkpoint/checkpoint_options.h"
#include "common/checksum.h"
#include "common/clock.h"
#include "common/cpu_usage.h"
#include "common/error_kind.h"
#include "common/log.h"
#include "coordinator/checkpoint/checkpoint_summary.h"
#include "coordinator/checkpoint/metadata_json.h"
#include "coordinator/reply_check.h"
#include "coordinator/round/node_sums.h"
#include "coordinator/round/round_workload.h"

namespace ckpt {
namespace {

using Clock = SteadyClock;

// Appends `part` to a "; "-joined list unless it is empty or there already.

}  // namespace

int EffectiveRankShift(const Config& config, const CheckpointPlan& plan) {
  const int world = static_cast<int>(plan.world_size);
  if (world <= 0) return 0;
  const int shift = CheckpointOf(config).load.rank_shift;
  if (shift >= 0) return shift % world;
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
      rank_shift_(EffectiveRankShift(config, plan)),
      tensor_names_([&plan] {
        auto names = std::make_shared<std::vector<std::string>>();
        names->reserve(plan.tensors.size());
        for (const auto& t : plan.tensors) names->push_back(t.name);
        return names;
      }()) {}

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

PhaseJob RoundRunner::BuildPrepare(const RoundSpec& spec, int node) const {
  PhaseJob job;
  job.run_id = spec.run_id;
  job.round_id = spec.round_id;
  job.save = spec.save;
  job.seed = spec.seed;
  job.step = spec.step;
  job.step_uri = ForNode(spec.step_uri, nodes()[node]->index());
  job.io = config_.io;
  job.backend = backend_;
  job.loop.accelerator = config_.cluster.accelerator;
  job.loop.staging = config_.cluster.staging;
  // A load-only run's staging save writes a checkpoint, nothing more.
  job.loop.async = CheckpointOf(config_).async && spec.save && !spec.staged;
  job.loop.interval_seconds = CheckpointOf(config_).interval;
  job.tensor_names = tensor_names_;
  if (!spec.save && spec.reshard != nullptr) {
    AddReshardedRanks(*spec.reshard, node, &job);
    return job;
  }
  for (const auto& r : plan_.ranks) {
    if (static_cast<int>(r.node) != node) continue;
    RankJob& rj = job.ranks.emplace_back();
    rj.rank = r.rank;
    // A load with a rank shift reads the files another rank wrote.
    const RankPlan& src = spec.save ? r : ReadRank(r.rank);
    for (const auto& f : src.files) {
      FileJob& fj = rj.files.emplace_back();
      fj.rank = src.rank;
      fj.index = f.index;
      fj.path = f.name;
      fj.size = f.size;
      fj.tensor_names = tensor_names_;
      fj.segments.reserve(f.segments.size());
      for (size_t k = 0; k < f.segments.size(); ++k) {
        const auto& s = f.segments[k];
        SegmentJob& sj = fj.segments.emplace_back();
        sj.tensor = s.tensor;
        sj.tensor_offset = s.tensor_offset;
        sj.length = s.length;
        sj.file_offset = s.file_offset;
        sj.has_expected = !spec.save && spec.expected &&
                          spec.expected(src.rank, f.index,
                                        static_cast<uint32_t>(k), &sj.expected);
      }
    }
  }
  return job;
}

const ReshardRank& RoundRunner::ReshardShare(const ReshardPlan& reshard,
                                             uint32_t rank) const {
  // reshard.ranks follows the plan's ranks, 0..world-1 in order.
  const size_t world = std::max<size_t>(reshard.ranks.size(), 1);
  return reshard.ranks[(rank + static_cast<size_t>(rank_shift_)) % world];
}

void RoundRunner::AddReshardedRanks(const ReshardPlan& reshard, int node,
                                    PhaseJob* job) const {
  for (const auto& r : plan_.ranks) {
    if (static_cast<int>(r.node) != node) continue;
    const ReshardRank& rr = ReshardShare(reshard, r.rank);
    RankJob& rj = job->ranks.emplace_back();
    rj.rank = r.rank;
    for (const auto& read : rr.files) {
      const SavedFile& sf = reshard.saved[read.saved];
      FileJob& fj = rj.files.emplace_back();
      fj.rank = sf.rank;
      fj.index = sf.file.index;
      fj.path = sf.file.name;
      fj.size = sf.file.size;
      fj.ranges = true;
      fj.tensor_names = tensor_names_;
      fj.segments.reserve(read.ranges.size());
      for (size_t i = 0; i < read.ranges.size(); ++i) {
        const SegmentPlan& s = read.ranges[i];
        SegmentJob& sj = fj.segments.emplace_back();
        sj.tensor = s.tensor;
        sj.tensor_offset = s.tensor_offset;
        sj.length = s.length;
        sj.file_offset = s.file_offset;
        if (i < read.keep.size()) {
          sj.keep_offset = read.keep[i].first;
          sj.keep_length = read.keep[i].second - read.keep[i].first;
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
  // A round whose nodes were asked their jobs elsewhere: what each may
  // report.
  CheckpointRound(RoundRunner& runner, const RoundSpec& spec,
                  std::vector<PhaseExpectation> expected)
      : r_(runner), spec_(spec), expected_(std::move(expected)) {}

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
  PhaseJob BuildPrepare(size_t node) override {
    PhaseJob job = r_.BuildPrepare(spec_, static_cast<int>(node));
    // What the node's report may say, from what it is asked (reply_check.h).
    expected_[node] = ExpectPhase(job, 0);
    return job;
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
  if (spec_.save) return;
  SumUpColdReads(prepared, absl::StrCat("load round ", spec_.index), result);
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
      CheckpointOf(config).visible_timeout > 0) {
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

std::unique_ptr<RoundWorkload> RoundRunner::NewRound(const RoundSpec& spec) {
  return std::make_unique<CheckpointRound>(*this, spec);
}

std::unique_ptr<RoundWorkload> RoundRunner::NewRound(
    const RoundSpec& spec, std::vector<PhaseExpectation> expected) {
  return std::make_unique<CheckpointRound>(*this, spec, std::move(expected));
}

RoundResult RoundRunner::Run(const RoundSpec& spec) {
  CheckpointRound round(*this, spec);
  return protocol_.Run(round, {spec.run_id, spec.round_id, spec.interrupted});
}

}  // namespace ckpt
