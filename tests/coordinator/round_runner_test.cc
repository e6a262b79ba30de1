// RoundRunner against scripted nodes: what it sends each node, how it
// aggregates their reports, and which error it keeps when nodes fail.
#include "coordinator/checkpoint/round_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coordinator/checkpoint/metadata_json.h"
#include "coordinator/checkpoint/planner.h"
#include "wire/kinds_codec.h"

namespace ckpt {
namespace {

// A node that answers from a script and records what it was sent.
class ScriptedNode : public NodeClient {
 public:
  ScriptedNode(int index, std::string host)
      : index_(index), host_(std::move(host)) {}

  int index() const override { return index_; }
  std::string host() const override { return host_; }
  int64_t clock_offset_ns() const override { return clock_offset_ns_; }

  absl::StatusOr<v1::InspectReply> SendInspect(
      const v1::InspectRequest&) override {
    return absl::UnimplementedError("not scripted");
  }
  absl::StatusOr<v1::PrepareReply> SendPrepare(v1::PrepareRequest r) override {
    std::lock_guard<std::mutex> lock(mu_);
    prepared_ = std::move(r);
    aborted_ = false;
    if (!prepare_status_.ok()) return prepare_status_;
    return prepare_reply_;
  }
  // Reports every rank of the request whole (checksums for every segment),
  // unless scripted to fail or to wait for an abort.
  absl::StatusOr<v1::PhaseReport> SendStartPhase(const v1::StartPhaseRequest& r,
                                                 const WireListener&) override {
    // As a node does: nothing before the start instant (on its clock).
    const auto start = std::chrono::system_clock::time_point(
        std::chrono::nanoseconds(r.start_at_unix_ns() - clock_offset_ns_));
    std::this_thread::sleep_until(start);
    std::unique_lock<std::mutex> lock(mu_);
    started_ = r;
    ++starts_;
    if (wait_for_abort_) {
      cv_.wait(lock, [&] { return aborted_; });
      v1::PhaseReport rep;
      rep.set_error("aborted: " + abort_reason_);
      rep.set_error_kind(v1::ERROR_KIND_INTERNAL);
      return rep;
    }
    if (!phase_status_.ok()) return phase_status_;
    v1::PhaseReport rep;
    rep.set_round_id(r.round_id());
    rep.set_error(phase_error_);
    rep.set_error_kind(phase_error_kind_);
    for (const auto& ra : prepared_.ranks()) {
      auto* rr = rep.add_ranks();
      rr->set_rank(ra.rank());
      rr->set_done_seconds(1.0 + ra.rank());
      for (const auto& f : ra.files()) {
        rr->set_bytes(rr->bytes() + f.size());
        rr->set_checked_bytes(rr->checked_bytes() + f.size() - short_read_);
        rr->set_checked_files(rr->checked_files() + 1);
        // Checksums come with saves only, as a node sends them.
        for (int k = 0;
             k < f.segments_size() && prepared_.phase() == v1::PHASE_SAVE;
             ++k) {
          auto* c = rep.add_checksums();
          c->set_rank(ra.rank());
          c->set_file_index(f.index());
          c->set_segment_index(k);
          c->set_checksum(1000 * ra.rank() + k);
        }
      }
      rr->set_verified(prepared_.phase() == v1::PHASE_LOAD);
    }
    rep.set_requests(7);
    if (tamper_) tamper_(&rep);
    return rep;
  }
  absl::StatusOr<v1::CommitReply> SendCommit(v1::CommitRequest r) override {
    std::lock_guard<std::mutex> lock(mu_);
    commits_.push_back(r);
    return v1::CommitReply();
  }
  absl::StatusOr<v1::ClaimReply> SendClaim(const v1::ClaimRequest&) override {
    return absl::UnimplementedError("not scripted");
  }
  absl::StatusOr<v1::CleanupReply> SendCleanup(
      const v1::CleanupRequest&) override {
    return absl::UnimplementedError("not scripted");
  }
  absl::StatusOr<v1::PutResultReply> SendPutResult(
      const v1::PutResultRequest&) override {
    return absl::UnimplementedError("not scripted");
  }
  absl::StatusOr<v1::AbortReply> SendAbort(const v1::AbortRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
    abort_reason_ = r.reason();
    ++aborts_;
    cv_.notify_all();
    return v1::AbortReply();
  }
  absl::StatusOr<v1::PingReply> SendPing(const v1::PingRequest&) override {
    return v1::PingReply();
  }

  // Script.
  absl::Status prepare_status_;
  v1::PrepareReply prepare_reply_;
  absl::Status phase_status_;
  std::string phase_error_;
  v1::ErrorKind phase_error_kind_ = v1::ERROR_KIND_UNSPECIFIED;
  bool wait_for_abort_ = false;
  uint64_t short_read_ = 0;  // bytes per file left unchecked (loads)
  int64_t clock_offset_ns_ = 0;
  // Changes the report before it is sent (a node that lies or misreads).
  std::function<void(v1::PhaseReport*)> tamper_;
  // Record.
  v1::PrepareRequest prepared_;
  v1::StartPhaseRequest started_;
  std::vector<v1::CommitRequest> commits_;
  int starts_ = 0, aborts_ = 0;

 private:
  const int index_;
  const std::string host_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool aborted_ = false;
  std::string abort_reason_;
};

struct Rig {
  Rig() {
    config.storage.path = "mem://b/run";
    config.model.num_layers = 1;
    config.cluster.num_nodes = 2;
    config.cluster.num_devices = "2";
    config.io.block_size = 1 << 20;
    plan = *MakePlan(PlanOptionsFromConfig(config));
    a = std::make_unique<ScriptedNode>(0, "h0");
    b = std::make_unique<ScriptedNode>(1, "h1");
  }
  RoundResult Run(bool save, const std::atomic<bool>* interrupted = nullptr) {
    RoundRunner runner(config, plan, {a.get(), b.get()}, nullptr);
    RoundSpec spec;
    spec.run_id = "run-x";
    spec.round_id = 3;
    spec.save = save;
    spec.index = 1;
    spec.step = 4;
    spec.seed = config.run.seed;
    spec.step_uri = "mem://b/run/checkpoints/step-4";
    spec.interrupted = interrupted;
    return runner.Run(spec);
  }
  Config config;
  CheckpointPlan plan;
  std::unique_ptr<ScriptedNode> a, b;
};

TEST(RoundRunner, EachNodeIsSentItsOwnRanksTheRunsIoAndOneStartInstant) {
  Rig rig;
  rig.b->clock_offset_ns_ = 5'000'000'000;  // node 1's clock is 5 s ahead
  RoundResult r = rig.Run(/*save=*/true);
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  for (auto* n : {rig.a.get(), rig.b.get()}) {
    const v1::PrepareRequest& p = n->prepared_;
    EXPECT_EQ(p.run_id(), "run-x");
    EXPECT_EQ(p.step(), 4u);
    EXPECT_EQ(p.io().block_size(), 1u << 20);
    EXPECT_EQ(FromWire(p.io().checksum(), "io.checksum").value(),
              rig.config.io.checksum);
    EXPECT_EQ(p.io().queue_depth(), -1);  // io.queue_depth's default: auto
    ASSERT_EQ(p.ranks_size(), 2);
    for (const auto& ra : p.ranks()) {
      EXPECT_EQ(rig.plan.ranks[ra.rank()].node,
                static_cast<uint32_t>(n->index()));
    }
  }
  // One instant, told to each node on its own clock.
  const int64_t gap =
      rig.b->started_.start_at_unix_ns() - rig.a->started_.start_at_unix_ns();
  EXPECT_EQ(gap, 5'000'000'000);
}

TEST(RoundRunner, ASaveAddsUpTheNodesAndCommitsTheirChecksumsOnNodeZero) {
  Rig rig;
  RoundResult r = rig.Run(/*save=*/true);
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  EXPECT_EQ(r.bytes, rig.plan.total_bytes);
  ASSERT_EQ(r.nodes.size(), 2u);
  EXPECT_EQ(r.nodes[1].host, "h1");
  EXPECT_EQ(r.nodes[1].bytes, rig.plan.NodeBytes(1));
  EXPECT_EQ(r.nodes[1].seconds, 4.0);  // ranks 2 and 3 done at 3 s and 4 s
  EXPECT_EQ(r.requests, 14u);
  ASSERT_EQ(r.ranks.size(), 4u);
  for (size_t i = 0; i < r.ranks.size(); ++i) EXPECT_EQ(r.ranks[i].rank, i);
  EXPECT_GT(r.seconds, 0);
  // Shared storage: node 0 alone writes .metadata, with every node's sums.
  ASSERT_EQ(rig.a->commits_.size(), 1u);
  EXPECT_TRUE(rig.b->commits_.empty());
  auto meta = ParseMetadata(rig.a->commits_[0].metadata(), "commit");
  ASSERT_TRUE(meta.ok()) << meta.status();
  EXPECT_EQ(meta->step, 4u);
  EXPECT_EQ(meta->fingerprint, rig.plan.fingerprint);
  EXPECT_EQ(meta->sums.at({3, 0, 0}), 3000u);  // from node 1
  EXPECT_EQ(meta->sums.at({0, 0, 0}), 0u);     // from node 0
}

TEST(RoundRunner, TheFirstNodeErrorIsTheCauseAndTheOtherNodesAreAborted) {
  Rig rig;
  rig.a->wait_for_abort_ = true;  // still writing when node 1 fails
  rig.b->phase_error_ = "No space left on device writing __2_0.distcp";
  rig.b->phase_error_kind_ = v1::ERROR_KIND_NO_SPACE;
  RoundResult r = rig.Run(/*save=*/true);
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_EQ(r.error,
            "node 1 (h1): No space left on device writing "
            "__2_0.distcp");
  EXPECT_EQ(r.error_kind, "no_space");
  EXPECT_GE(rig.a->aborts_, 1);
  EXPECT_TRUE(rig.a->commits_.empty());
  EXPECT_TRUE(rig.b->commits_.empty());
}

TEST(RoundRunner, APrepareFailureStartsNoNodeAndNamesTheStep) {
  Rig rig;
  v1::PrepareReply refused;
  refused.set_error(
      "mem://b/run/checkpoints/step-4 already holds a "
      "committed checkpoint");
  refused.set_error_kind(v1::ERROR_KIND_BAD_INPUT);
  rig.a->prepare_reply_ = refused;
  RoundResult r = rig.Run(/*save=*/true);
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_EQ(r.error.rfind("node 0 (h0): prepare: mem://b/run", 0), 0u)
      << r.error;
  EXPECT_EQ(r.error_kind, "bad_input");
  EXPECT_EQ(rig.a->starts_ + rig.b->starts_, 0);
}

// A remote node's transport error names the node already: said once.
TEST(RoundRunner, AnUnreachableNodeIsNamedOnceAndHasNoKind) {
  Rig rig;
  rig.b->phase_status_ = absl::UnavailableError("node 1 (h1) disconnected");
  RoundResult r = rig.Run(/*save=*/true);
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_EQ(r.error, "node 1 (h1) disconnected");
  EXPECT_EQ(r.error_kind, "");
}

TEST(RoundRunner, AnInterruptAfterPrepareStartsNothing) {
  Rig rig;
  std::atomic<bool> interrupted{true};
  RoundResult r = rig.Run(/*save=*/true, &interrupted);
  EXPECT_EQ(r.status, RunStatus::kFailed);
  EXPECT_EQ(r.error, "interrupted before the round started");
  EXPECT_EQ(rig.a->starts_ + rig.b->starts_, 0);
}

// "verified" needs every planned byte and file checked, not only every
// rank saying so.
TEST(RoundRunner, ALoadIsVerifiedOnlyWhenEveryPlannedByteWasChecked) {
  Rig rig;
  RoundResult whole = rig.Run(/*save=*/false);
  ASSERT_EQ(whole.status, RunStatus::kOk) << whole.error;
  EXPECT_TRUE(whole.verified);
  EXPECT_EQ(whole.checked_bytes, rig.plan.total_bytes);
  EXPECT_EQ(whole.planned_files, rig.plan.FileCount());
  EXPECT_TRUE(whole.flags.empty());
  EXPECT_TRUE(rig.a->commits_.empty());  // loads commit nothing

  rig.b->short_read_ = 1;
  RoundResult partial = rig.Run(/*save=*/false);
  ASSERT_EQ(partial.status, RunStatus::kOk) << partial.error;
  EXPECT_FALSE(partial.verified);
  EXPECT_EQ(partial.checked_bytes, rig.plan.total_bytes - 2);  // 2 files
  ASSERT_EQ(partial.flags.size(), 1u);
  EXPECT_EQ(partial.flags[0], RoundFlag::kUnverified);
}

// Issue 27, item 5: a report's values are checked before any is used; a
// node that sends what it could not have measured fails, named, and the
// round records no time made of it.
TEST(RoundRunner, AReportWithImpossibleValuesFailsTheNodeThatSentIt) {
  struct Case {
    const char* what;
    std::function<void(v1::PhaseReport*)> tamper;
    const char* want;
  } cases[] = {
      {"a negative duration",
       [](v1::PhaseReport* r) { r->mutable_ranks(0)->set_done_seconds(-0.05); },
       "first byte at 0 s, done at -0.05 s"},
      {"no ranks at all", [](v1::PhaseReport* r) { r->clear_ranks(); },
       "is missing"},
      {"another node's rank",
       [](v1::PhaseReport* r) { r->mutable_ranks(0)->set_rank(0); },
       "rank 0 is not one of its"},
      {"more bytes than the plan",
       [](v1::PhaseReport* r) {
         r->mutable_ranks(0)->set_bytes(r->ranks(0).bytes() + 1);
       },
       "bytes; its plan has"},
      {"a start long before the instant",
       [](v1::PhaseReport* r) { r->set_start_lag_seconds(-1); },
       "start lag -1 s"},
      {"a checksum of a segment that does not exist",
       [](v1::PhaseReport* r) {
         r->mutable_checksums(0)->set_segment_index(100000);
       },
       "segment 100000, not in its plan"},
      {"another round's report",
       [](v1::PhaseReport* r) { r->set_round_id(99); },
       "it answers round 99, not round 3"},
      {"a histogram whose counts do not add up",
       [](v1::PhaseReport* r) {
         auto* op = r->add_ops();
         op->set_op("write");
         op->mutable_histogram()->add_counts(5);
         op->mutable_histogram()->set_count(6);
       },
       "write latency counts add up to 5, not its count 6"},
      {"a NaN", [](v1::PhaseReport* r) { r->set_data_seconds(std::nan("")); },
       "data_seconds = nan"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.what);
    Rig rig;
    rig.b->tamper_ = c.tamper;
    RoundResult r = rig.Run(/*save=*/true);
    EXPECT_EQ(r.status, RunStatus::kFailed);
    EXPECT_NE(r.error.find("node 1 (h1) sent a phase report the coordinator "
                           "cannot use: "),
              std::string::npos)
        << r.error;
    EXPECT_NE(r.error.find(c.want), std::string::npos) << r.error;
    EXPECT_TRUE(rig.b->commits_.empty() && rig.a->commits_.empty());
    for (const auto& rank : r.ranks) EXPECT_GE(rank.seconds, 0) << r.error;
  }
}

TEST(RoundRunner, PageCacheFlagsComeFromWhatTheNodesPrepared) {
  Rig rig;
  for (auto* n : {rig.a.get(), rig.b.get()}) {
    n->prepare_reply_.set_cache_method(v1::CACHE_METHOD_FADVISE_DONTNEED);
    n->prepare_reply_.set_storage_kind(v1::STORAGE_KIND_POSIX);
  }
  rig.b->prepare_reply_.set_resident_bytes(4096);
  RoundResult r = rig.Run(/*save=*/false);
  ASSERT_EQ(r.status, RunStatus::kOk) << r.error;
  EXPECT_EQ(r.cache.resident_bytes, 4096u);
  ASSERT_EQ(r.flags.size(), 1u);
  EXPECT_EQ(r.flags[0], RoundFlag::kPageCacheResident);
  EXPECT_NE(r.cache.note.find("4096 bytes were still in the page cache"),
            std::string::npos)
      << r.cache.note;
}

}  // namespace
}  // namespace ckpt
