// The coordinator driving an in-process node over memory storage: rounds,
// steps, staging, plan mismatch, cleanup, and failures that keep results.
#include "coordinator/coordinator.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/checkpoint/checkpoint_options.h"
#include "common/error_kind.h"
#include "common/kinds.h"
#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/checkpoint/checkpoint_run.h"
#include "coordinator/checkpoint/planner.h"
#include "coordinator/summary.h"
#include "inprocess/local_node_client.h"
#include "node/pattern.h"
#include "node/storage/memory_storage.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

Config MemConfig(RunMode mode, int saves, int loads) {
  Config c;
  c.storage.path = "mem://bucket/run";
  c.model.num_layers = 1;
  // The weights alone (53 MiB), not Adam's two moments beside them (160
  // MiB): these tests are about steps, claims and verification, and each
  // byte is made and checked, 10 to 15 times slower under TSan.
  c.model.optimizer = Optimizer::kNone;
  c.cluster.num_devices = "2";
  CheckpointOf(c).sharding.thread_count = 2;
  CheckpointOf(c).mode = mode;
  CheckpointOf(c).num_save_calls = saves;
  CheckpointOf(c).num_load_calls = loads;
  c.io.block_size = 256 * 1024;
  return c;
}

// One in-process node over `memory` (the test's bucket, shared by the
// harnesses of one test).
struct Harness {
  Harness(std::shared_ptr<MemoryStore> memory, const Config& c)
      : config(c),
        plan(*MakePlan(PlanOptionsFromConfig(c))),
        node(0, "test-host", 10, std::move(memory)),
        coordinator(config, {&node}, nullptr) {}
  absl::Status Run() {
    absl::Status s = coordinator.Preflight(&result);
    if (!s.ok()) return s;
    return coordinator.Run(&result);
  }
  Config config;
  CheckpointPlan plan;
  LocalNodeClient node;
  Coordinator coordinator;
  RunResult result;
};

std::vector<std::string> Steps(const MemoryStore& memory) {
  std::set<std::string> s;
  for (const auto& p : memory.AllPaths()) {
    auto i = p.find("step-");
    if (i != std::string::npos) s.insert(p.substr(0, p.find('/', i)));
  }
  return {s.begin(), s.end()};
}

TEST(Coordinator, SaveAndLoadRoundsKeepNewestStep) {
  auto memory = std::make_shared<MemoryStore>();
  Harness h(memory, MemConfig(RunMode::kSaveAndLoad, 2, 2));
  ASSERT_TRUE(h.Run().ok());
  ASSERT_EQ(h.result.rounds.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const auto& r = h.result.rounds[i];
    EXPECT_EQ(r.phase, i < 2 ? Phase::kSave : Phase::kLoad);
    EXPECT_EQ(r.status, RunStatus::kOk);
    EXPECT_EQ(r.bytes, h.plan.total_bytes);
    EXPECT_GT(r.seconds, 0);
    EXPECT_GE(r.seconds, r.transfer_seconds);
    EXPECT_EQ(r.ranks.size(), 2u);
  }
  EXPECT_EQ(h.result.rounds[0].step, 1u);
  EXPECT_EQ(h.result.rounds[1].step, 2u);
  EXPECT_EQ(h.result.rounds[2].step, 2u);  // loads read the newest
  EXPECT_TRUE(h.result.rounds[3].verified);
  EXPECT_EQ(Steps(*memory),
            std::vector<std::string>{"mem://bucket/run/checkpoints/step-2"});
  // A second run continues the step numbering, never overwriting.
  Harness again(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(again.Run().ok());
  EXPECT_EQ(again.result.rounds[0].step, 3u);
}

TEST(Coordinator, LoadOnlyStagesOnceUntimed) {
  auto memory = std::make_shared<MemoryStore>();
  Harness h(memory, MemConfig(RunMode::kLoadOnly, 3, 2));
  ASSERT_TRUE(h.Run().ok());
  ASSERT_EQ(h.result.rounds.size(), 3u);
  EXPECT_TRUE(h.result.rounds[0].staged);
  EXPECT_EQ(h.result.rounds[0].phase, Phase::kSave);
  EXPECT_EQ(h.result.Summarize(Phase::kSave).count, 0);
  EXPECT_EQ(h.result.Summarize(Phase::kLoad).count, 2);
  ASSERT_FALSE(h.result.notes.empty());
  EXPECT_NE(h.result.notes[0].find("staged step-1"), std::string::npos);
  // Next load-only run finds the committed checkpoint: no staging.
  Harness again(memory, MemConfig(RunMode::kLoadOnly, 0, 1));
  ASSERT_TRUE(again.Run().ok());
  ASSERT_EQ(again.result.rounds.size(), 1u);
  EXPECT_FALSE(again.result.rounds[0].staged);
}

TEST(Coordinator, LoadOnlyOfDifferentPlanIsRefusedBeforeAnyRound) {
  auto memory = std::make_shared<MemoryStore>();
  Harness first(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(first.Run().ok());
  Config other = MemConfig(RunMode::kLoadOnly, 0, 1);
  other.model.num_layers = 2;
  Harness h(memory, other);
  absl::Status s = h.coordinator.Preflight(&h.result);
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  // Only the difference (its parameters: another NUM_LAYERS), said once;
  // the model name and world size, the same on both sides, are not repeated.
  EXPECT_NE(m.find("is a checkpoint of a different model: parameters "),
            std::string::npos)
      << s;
  EXPECT_NE(m.find(" (this run: "), std::string::npos) << s;
  EXPECT_EQ(m.find("world"), std::string::npos) << s;
  EXPECT_EQ(m.find("model \""), std::string::npos) << s;
  EXPECT_TRUE(h.result.rounds.empty());
}

// The same model saved by another world size or files per rank is told
// apart from another model: loading it would be a resharded restore.
TEST(Coordinator, LoadOfTheSameModelInAnotherLayoutIsAReshardedRestore) {
  auto memory = std::make_shared<MemoryStore>();
  Harness first(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(first.Run().ok());
  Config other = MemConfig(RunMode::kLoadOnly, 0, 1);
  other.cluster.num_devices = "4";
  CheckpointOf(other).sharding.thread_count = 1;
  Harness h(memory, other);
  ASSERT_EQ(h.plan.fingerprint, first.plan.fingerprint);
  ASSERT_NE(h.plan.layout, first.plan.layout);
  ASSERT_TRUE(h.Run().ok()) << h.result.errors.size();
  const ReshardResult* reshard = ReshardOf(h.result);
  ASSERT_NE(reshard, nullptr);
  EXPECT_EQ(reshard->from_world, 2);
  EXPECT_EQ(reshard->to_world, 4);
  EXPECT_EQ(reshard->bytes_needed, h.plan.total_bytes);
  EXPECT_DOUBLE_EQ(reshard->read_amplification, 1.0);
  ASSERT_EQ(h.result.rounds.size(), 1u);
  const RoundResult& load = h.result.rounds[0];
  EXPECT_TRUE(load.resharded);
  EXPECT_TRUE(load.verified);
  EXPECT_EQ(load.bytes, h.plan.total_bytes);
  EXPECT_EQ(load.rank_shift, 0);
}

TEST(Coordinator, AReshardedRestoreFromNodeLocalDisksNamesTheLayout) {
  auto memory = std::make_shared<MemoryStore>();
  Config saving = MemConfig(RunMode::kSaveOnly, 1, 0);
  saving.storage.node_local = true;
  Harness first(memory, saving);
  ASSERT_TRUE(first.Run().ok());
  Config other = MemConfig(RunMode::kLoadOnly, 0, 1);
  other.storage.node_local = true;
  other.cluster.num_devices = "4";
  CheckpointOf(other).sharding.thread_count = 1;
  Harness h(memory, other);
  absl::Status s = h.coordinator.Preflight(&h.result);
  ASSERT_FALSE(s.ok());
  const std::string m(s.message());
  EXPECT_NE(m.find("holds this model's tensors in another layout: world 2 "
                   "(this run: 4); thread_count 2 (this run: 1)"),
            std::string::npos)
      << s;
  EXPECT_NE(m.find("storage.node_local=true"), std::string::npos) << s;
  EXPECT_TRUE(h.result.rounds.empty());
}

// A checkpoint whose bytes another generator made (an older ckptbench's,
// or a future one's) is refused before any round, naming both generators.
TEST(Coordinator, LoadOfAnotherGeneratorsBytesIsRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Harness first(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(first.Run().ok());
  auto mem = MemoryStorage::Make(memory);
  std::string meta_path;
  for (const auto& p : memory->AllPaths()) {
    if (absl::EndsWith(p, "/.metadata")) meta_path = p;
  }
  ASSERT_FALSE(meta_path.empty());
  auto text = mem->ReadSmall(meta_path);
  ASSERT_TRUE(text.ok()) << text.status();
  const std::string ours = absl::StrCat("\"pattern\":\"", kPatternName, "\"");
  ASSERT_NE(text->find(ours), std::string::npos);
  std::string other = *text;
  other.replace(other.find(ours), ours.size(), "\"pattern\":\"splitmix-v0\"");
  ASSERT_TRUE(mem->WriteAtomic(meta_path, other).ok());
  Harness h(memory, MemConfig(RunMode::kLoadOnly, 0, 1));
  absl::Status s = h.coordinator.Preflight(&h.result);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message())
                .find(absl::StrCat("holds bytes made by generator "
                                   "'splitmix-v0'; this version generates '",
                                   kPatternName, "'")),
            std::string::npos)
      << s;
  EXPECT_TRUE(h.result.rounds.empty());
}

// The bytes were made from the seed and are checked with the checksum
// kind: a load configured with others is refused, naming both values.
TEST(Coordinator, LoadWithAnotherSeedOrChecksumKindIsRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Harness first(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(first.Run().ok());
  Config seed = MemConfig(RunMode::kLoadOnly, 0, 1);
  seed.run.seed = 99;
  Harness h(memory, seed);
  absl::Status s = h.coordinator.Preflight(&h.result);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message())
                .find("was saved with seed 1234 (this "
                      "run: 99)"),
            std::string::npos)
      << s;
  Config sum = MemConfig(RunMode::kLoadOnly, 0, 1);
  sum.io.checksum = ChecksumKind::kXxh3;
  Harness k(memory, sum);
  s = k.coordinator.Preflight(&k.result);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message())
                .find("io.checksum crc32c (this run: "
                      "xxh3)"),
            std::string::npos)
      << s;
  Harness same(memory, MemConfig(RunMode::kLoadOnly, 0, 1));
  EXPECT_TRUE(same.Run().ok());
  EXPECT_TRUE(same.result.rounds.back().verified);
}

TEST(Coordinator, CorruptionFailsTheLoadAndKeepsEarlierRounds) {
  auto memory = std::make_shared<MemoryStore>();
  Harness h(memory, MemConfig(RunMode::kSaveAndLoad, 1, 0));
  ASSERT_TRUE(h.Run().ok());
  ASSERT_TRUE(
      memory->FlipByte("mem://bucket/run/checkpoints/step-1/__0_1.distcp", 17));
  Harness load(memory, MemConfig(RunMode::kLoadOnly, 0, 2));
  absl::Status s = load.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("__0_1.distcp at byte offset 17"),
            std::string::npos)
      << s;
  ASSERT_EQ(load.result.rounds.size(), 1u);
  EXPECT_EQ(load.result.rounds[0].status, RunStatus::kFailed);
  EXPECT_FALSE(load.result.rounds[0].verified);
}

// Rewrites the committed step-1's .metadata with `edit`.
void EditMetadata(std::shared_ptr<MemoryStore> memory,
                  const std::function<void(std::string&)>& edit) {
  const std::string path = "mem://bucket/run/checkpoints/step-1/.metadata";
  auto st = MemoryStorage::Make(std::move(memory));
  auto text = st->ReadSmall(path);
  ASSERT_TRUE(text.ok()) << text.status();
  edit(*text);
  ASSERT_TRUE(st->WriteAtomic(path, *text).ok());
}

// Issue 14, case 7: a .metadata whose files list is empty loaded as
// "verified"; now a load needs a checksum for every planned segment.
TEST(Coordinator, MetadataWithoutTheChecksumsOfThePlanIsRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Harness first(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(first.Run().ok());
  EditMetadata(memory, [](std::string& t) {
    t = t.substr(0, t.find("\"files\":[")) + "\"files\":[]}";
  });
  Harness h(memory, MemConfig(RunMode::kLoadOnly, 0, 1));
  absl::Status s = h.Run();
  ASSERT_TRUE(absl::IsDataLoss(s)) << s;
  EXPECT_NE(s.message().find("has no checksum for 76 of the 76 planned "
                             "segments (first: __0_0.distcp segment 0)"),
            std::string::npos)
      << s;
  EXPECT_TRUE(h.result.rounds.empty());
}

// Issue 14, case 7: "checksum": "md5" was read as xxh3.
TEST(Coordinator, MetadataWithAnUnknownChecksumKindIsRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Harness first(memory, MemConfig(RunMode::kSaveOnly, 1, 0));
  ASSERT_TRUE(first.Run().ok());
  EditMetadata(memory, [](std::string& t) {
    const std::string key = "\"checksum\":\"";
    size_t at = t.find(key) + key.size();
    t.replace(at, t.find('"', at) - at, "md5");
  });
  Harness h(memory, MemConfig(RunMode::kLoadOnly, 0, 1));
  absl::Status s = h.Run();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("checksum 'md5': expected xxh3 or crc32c"),
            std::string::npos)
      << s;
}

// Issue 14, cases 7 and 8: a load's coverage is in the result, and what
// makes its number mean less (here: reads the page cache may serve, on a
// local directory) is a flag on the round and in the phase summary, not
// only a note.
TEST(Coordinator, LoadRoundsCarryCoverageAndFlags) {
  TempDir t;
  Config c = MemConfig(RunMode::kSaveAndLoad, 1, 2);
  c.storage.path = t.Sub("ckpt");
  c.io.cache_mode = CacheMode::kNone;
  Harness h(std::make_shared<MemoryStore>(), c);
  ASSERT_TRUE(h.Run().ok());
  const RoundResult& load = h.result.rounds[1];
  EXPECT_TRUE(load.verified);
  EXPECT_EQ(load.checked_bytes, h.plan.total_bytes);
  EXPECT_EQ(load.planned_bytes, h.plan.total_bytes);
  EXPECT_EQ(load.checked_files, 4u);
  EXPECT_EQ(load.planned_files, 4u);
  // Loads of 53 MiB from memory take milliseconds, far under a
  // second, even under a sanitizer: flagged.
  EXPECT_EQ(load.flags, (std::vector<RoundFlag>{RoundFlag::kPageCacheAllowed,
                                                RoundFlag::kShortPhase}))
      << load.seconds << " s";
  // The save generates and checksums every byte: about 0.2 s here, over a
  // second under ASan on a busy machine (CI saw 1.096 and 1.230 s). Under
  // a second it is short_phase and nothing else (client_bound is judged
  // only from a second on); from a second on it is not short_phase, and
  // may be client_bound (generating bytes set its pace). Never
  // page_cache_allowed.
  const RoundResult& save = h.result.rounds[0];
  if (save.seconds < kShortPhaseSeconds) {
    EXPECT_EQ(save.flags, std::vector<RoundFlag>{RoundFlag::kShortPhase});
  } else {
    for (RoundFlag f : save.flags) {
      EXPECT_EQ(f, RoundFlag::kClientBound) << Name(f) << " " << save.seconds;
    }
  }
  EXPECT_EQ(
      h.result.Summarize(Phase::kLoad).flags.at(RoundFlag::kPageCacheAllowed),
      2);
  EXPECT_NE(SummaryTable(h.result).find("2 of 2 rounds flagged "
                                        "page_cache_allowed"),
            std::string::npos)
      << SummaryTable(h.result);
  EXPECT_NE(SummaryTable(h.result).find("2 of 2 rounds flagged short_phase"),
            std::string::npos)
      << SummaryTable(h.result);
}

// Only timed rounds that ran and took under kShortPhaseSeconds are
// flagged; the boundary itself is not short.
TEST(Coordinator, ShortPhaseFlagMarksOnlyTimedRoundsUnderASecond) {
  RoundResult r;
  r.phase = Phase::kSave;
  r.seconds = 0.999;
  FlagShortPhase(&r, kLargerCheckpoint);
  EXPECT_EQ(r.flags, std::vector<RoundFlag>{RoundFlag::kShortPhase});
  RoundResult at;
  at.seconds = kShortPhaseSeconds;
  FlagShortPhase(&at, kLargerCheckpoint);
  EXPECT_TRUE(at.flags.empty());
  RoundResult staged;
  staged.staged = true;
  staged.seconds = 0.1;
  FlagShortPhase(&staged, kLargerCheckpoint);
  EXPECT_TRUE(staged.flags.empty());
  RoundResult failed;
  failed.status = RunStatus::kFailed;
  failed.seconds = 0.1;
  FlagShortPhase(&failed, kLargerCheckpoint);
  EXPECT_TRUE(failed.flags.empty());
}

// An unknown scheme is refused as bad input before any round, naming the
// key and what was expected (no storage, credentials or network reached).
TEST(Coordinator, UnsupportedSchemeFailsPreflight) {
  Config c = MemConfig(RunMode::kSaveAndLoad, 1, 1);
  c.storage.path = "ftp://host/prefix";
  Harness h(std::make_shared<MemoryStore>(), c);
  absl::Status s = h.coordinator.Preflight(&h.result);
  ASSERT_TRUE(absl::IsFailedPrecondition(s)) << s;
  EXPECT_EQ(s.message(),
            "storage.path (CKPT_DIR_PATH) is not usable: "
            "ftp://host/prefix/checkpoints: 'ftp://host/prefix/checkpoints': "
            "unknown URI scheme; expected a path, file://, s3:// or gs://");
  EXPECT_TRUE(h.result.rounds.empty());
}

}  // namespace
}  // namespace ckpt

namespace ckpt {
namespace {

// Forwards to an in-process node, failing its `fail_at`-th phase as a lost
// node would.
class LosesPhase : public LocalNodeClient {
 public:
  LosesPhase(int index, std::string host,
             std::shared_ptr<MemoryStore> memory = nullptr, int fail_at = 0)
      : LocalNodeClient(index, std::move(host), 10, std::move(memory)),
        fail_at_(fail_at) {}
  // Changes a listing before the coordinator sees it.
  std::function<void(v1::InspectReply*)> on_inspect;
  // Answers a claim instead of the node when it returns a value.
  std::function<std::optional<absl::StatusOr<v1::ClaimReply>>(
      const v1::ClaimRequest&)>
      on_claim;
  // Its phase fails as the node's own error (kind: no_space), not as a
  // lost connection.
  bool own_failure = false;
  bool lost() const override { return lost_; }

 protected:
  absl::StatusOr<v1::InspectReply> SendInspect(
      const v1::InspectRequest& r) override {
    auto rep = LocalNodeClient::SendInspect(r);
    if (rep.ok() && on_inspect) on_inspect(&*rep);
    return rep;
  }
  absl::StatusOr<v1::PhaseReport> SendStartPhase(
      const v1::StartPhaseRequest& r, const WireListener& p) override {
    if (++phases_ == fail_at_) {
      if (own_failure) {
        return NodeErrorStatus(ErrorKind::kNoSpace, "node 0: disk full");
      }
      lost_ = true;
      return absl::UnavailableError("node 0 (test-host) disconnected");
    }
    return LocalNodeClient::SendStartPhase(r, p);
  }
  absl::StatusOr<v1::ClaimReply> SendClaim(const v1::ClaimRequest& r) override {
    if (on_claim) {
      if (auto scripted = on_claim(r)) return *scripted;
    }
    return LocalNodeClient::SendClaim(r);
  }

 private:
  const int fail_at_;
  int phases_ = 0;
  bool lost_ = false;
};

// A run that fails after committing steps keeps them (retention runs after
// a finished run only) and says which, next to the failed step's removal.
TEST(Coordinator, AFailedRunNamesTheOlderStepsItDidNotRemove) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = MemConfig(RunMode::kSaveOnly, 3, 0);
  LosesPhase lossy(0, "test-host", memory, 3);
  Coordinator coordinator(c, {&lossy}, nullptr);
  RunResult result;
  ASSERT_TRUE(coordinator.Preflight(&result).ok());
  absl::Status s = coordinator.Run(&result);
  ASSERT_FALSE(s.ok());
  ASSERT_EQ(result.rounds.size(), 3u);
  EXPECT_EQ(result.rounds[2].status, RunStatus::kFailed);
  EXPECT_EQ(Steps(*memory),
            (std::vector<std::string>{"mem://bucket/run/checkpoints/step-1",
                                      "mem://bucket/run/checkpoints/step-2"}));
  bool named = false;
  for (const auto& n : result.notes) {
    named |=
        n.find(
            "the run did not finish, so older steps it committed "
            "were not removed: step-1 under mem://bucket/run/"
            "checkpoints (kept with step-2, its newest)") != std::string::npos;
  }
  EXPECT_TRUE(named) << SummaryTable(result);
  // A node lost: the exit status a restart may fix.
  EXPECT_EQ(coordinator.FailureCode(), ExitCode::kInterrupted);
}

// What ended a failed run, as its exit status (common/exit_code.h): the
// node's own failure is 1; a lost node (above) or an interrupt is 3.
TEST(Coordinator, AFailedRunsExitStatusTellsANodesOwnFailureFromAnInterrupt) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = MemConfig(RunMode::kSaveOnly, 2, 0);
  {
    LosesPhase full(0, "test-host", memory, 2);
    full.own_failure = true;
    Coordinator coordinator(c, {&full}, nullptr);
    RunResult result;
    ASSERT_TRUE(coordinator.Preflight(&result).ok());
    ASSERT_FALSE(coordinator.Run(&result).ok());
    EXPECT_EQ(coordinator.FailureCode(), ExitCode::kFailed);
  }
  LosesPhase fine(0, "test-host", memory);
  Coordinator coordinator(c, {&fine}, nullptr);
  RunResult result;
  ASSERT_TRUE(coordinator.Preflight(&result).ok());
  coordinator.Interrupt("interrupted by SIGTERM");
  EXPECT_FALSE(coordinator.Run(&result).ok());
  EXPECT_EQ(coordinator.FailureCode(), ExitCode::kInterrupted);
}

// Issue 27: step numbers from a node are checked like any reply value; a
// listing with step 2^64 - 1 once made the next claim wrap to step-0.
TEST(Coordinator, AListingWithAStepPastTheBoundFailsNamingTheNode) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = MemConfig(RunMode::kSaveOnly, 1, 0);
  LosesPhase liar(0, "test-host", memory);
  liar.on_inspect = [](v1::InspectReply* r) {
    auto* st = r->add_steps();
    st->set_step(UINT64_MAX);
    st->set_committed(true);
    r->set_newest_committed(UINT64_MAX);
  };
  bool claimed_zero = false;
  liar.on_claim = [&](const v1::ClaimRequest& r)
      -> std::optional<absl::StatusOr<v1::ClaimReply>> {
    claimed_zero |= r.step() == 0;
    return std::nullopt;
  };
  Coordinator coordinator(c, {&liar}, nullptr);
  RunResult result;
  absl::Status s = coordinator.Preflight(&result);
  if (s.ok()) s = coordinator.Run(&result);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("node 0 (test-host) sent a listing the "
                             "coordinator cannot use: step "
                             "18446744073709551615; steps run from 1 to "
                             "9007199254740991"),
            std::string::npos)
      << s;
  EXPECT_FALSE(claimed_zero);
  EXPECT_TRUE(Steps(*memory).empty());
}

// A step lost on one node's disk after winning it on another: the won
// claim is given back, and one that cannot be is listed as left behind.
TEST(Coordinator, AClaimThatCannotBeGivenBackIsALeftover) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = MemConfig(RunMode::kSaveOnly, 1, 0);
  c.storage.path = "mem://bucket/n{node}";
  c.storage.node_local = true;
  c.cluster.num_nodes = 2;
  c.cluster.num_devices = "1";
  LosesPhase releases_fail(0, "h0", memory), loses_once(1, "h1");
  releases_fail.on_claim = [](const v1::ClaimRequest& r)
      -> std::optional<absl::StatusOr<v1::ClaimReply>> {
    if (!r.release()) return std::nullopt;
    return absl::StatusOr<v1::ClaimReply>(
        absl::PermissionDeniedError("delete refused"));
  };
  bool lost = false;
  loses_once.on_claim = [&lost](const v1::ClaimRequest& r)
      -> std::optional<absl::StatusOr<v1::ClaimReply>> {
    if (lost || r.release()) return std::nullopt;
    lost = true;
    v1::ClaimReply taken;
    taken.set_taken(true);
    taken.set_error("claimed by run r-other");
    return absl::StatusOr<v1::ClaimReply>(taken);
  };
  Coordinator coordinator(c, {&releases_fail, &loses_once}, nullptr);
  RunResult result;
  ASSERT_TRUE(coordinator.Preflight(&result).ok());
  ASSERT_TRUE(coordinator.Run(&result).ok());
  ASSERT_EQ(result.rounds.size(), 1u);
  EXPECT_GT(result.rounds[0].step, 1u);  // took a later step
  ASSERT_EQ(result.leftovers.size(), 1u);
  EXPECT_EQ(result.leftovers[0].rfind("mem://bucket/n0/checkpoints/step-1/", 0),
            0u)
      << result.leftovers[0];
  EXPECT_NE(result.leftovers[0].find(" on node 0: the claim of a step this "
                                     "run lost (delete refused)"),
            std::string::npos)
      << result.leftovers[0];
}

}  // namespace
}  // namespace ckpt
