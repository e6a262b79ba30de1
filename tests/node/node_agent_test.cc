#include "node/node_agent.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/checkpoint/checkpoint_plan.h"
#include "common/checksum.h"
#include "common/clock.h"
#include "node/checkpoint/checkpoint_workload.h"
#include "node/checkpoint/visibility.h"
#include "node/node_service.h"
#include "node/round/workload_phase.h"
#include "node/storage/gcs_storage.h"
#include "node/storage/memory_storage.h"
#include "node/storage/s3_storage.h"
#include "tests/testing/temp_dir.h"
#include "wire/backend_codec.h"
#include "wire/error_kind.h"
#include "wire/prepare_codec.h"

namespace ckpt {
namespace {

v1::PrepareRequest Request(v1::Phase phase, uint64_t round) {
  v1::PrepareRequest req;
  req.set_run_id("run-1");
  req.set_round_id(round);
  req.set_phase(phase);
  req.set_seed(99);
  req.set_step(1);
  req.set_step_uri("mem://b/checkpoints/step-1");
  req.mutable_io()->set_block_size(64 * 1024);
  req.mutable_io()->set_fsync(true);
  req.mutable_io()->set_cache_mode(v1::CACHE_MODE_AUTO);
  req.mutable_io()->set_checksum(v1::CHECKSUM_CRC32C);
  req.add_tensor_names("w");
  for (uint32_t rank = 0; rank < 2; ++rank) {
    auto* r = req.add_ranks();
    r->set_rank(rank);
    for (uint32_t k = 0; k < 2; ++k) {
      auto* f = r->add_files();
      f->set_name(ShardFileName(rank, k));
      f->set_index(k);
      f->set_size(8000000);
      auto* s = f->add_segments();
      s->set_tensor_index(0);
      s->set_length(8000000);
    }
  }
  return req;
}

v1::StartPhaseRequest Start(uint64_t round) {
  v1::StartPhaseRequest s;
  s.set_run_id("run-1");
  s.set_round_id(round);
  s.set_start_at_unix_ns(0);
  return s;
}

TEST(NodeService, SaveCommitInspectLoadAndIdempotentStart) {
  auto memory = std::make_shared<MemoryStore>();
  NodeService svc(memory);
  auto prep = svc.Prepare(Request(v1::PHASE_SAVE, 1));
  ASSERT_EQ(prep.error(), "");
  EXPECT_EQ(prep.filesystem(), "memory");
  int progress_calls = 0;
  auto rep = svc.StartPhase(
      Start(1), [&](const v1::Progress&) { ++progress_calls; }, 0.001);
  ASSERT_EQ(rep.error(), "");
  EXPECT_GE(progress_calls, 1);
  ASSERT_EQ(rep.ranks_size(), 2);
  EXPECT_EQ(rep.ranks(0).bytes(), 16000000u);
  EXPECT_EQ(rep.checksums_size(), 4);
  EXPECT_EQ(memory->AllPaths().size(), 4u);
  // Per file, its storage requests: on a file system its write calls,
  // 8 000 000 bytes in 64 KiB blocks (122 whole, one part); no retries.
  ASSERT_EQ(rep.files_size(), 4);
  for (const auto& f : rep.files()) {
    EXPECT_EQ(f.requests(), 123u) << f.name();
    EXPECT_EQ(f.retries(), 0u) << f.name();
  }
  // Durable means the step's entries and the step's own entry in
  // checkpoints/ (a new directory a crash could otherwise lose).
  EXPECT_EQ(memory->SyncedDirs(),
            (std::vector<std::string>{"mem://b/checkpoints/step-1",
                                      "mem://b/checkpoints"}));

  // Not committed yet: inspect sees an uncommitted step.
  v1::InspectRequest ireq;
  ireq.set_steps_uri("mem://b/checkpoints");
  ireq.set_want_metadata(true);
  auto listing = svc.Inspect(ireq);
  ASSERT_EQ(listing.steps_size(), 1);
  EXPECT_FALSE(listing.steps(0).committed());
  v1::CommitRequest c;
  c.set_step_uri("mem://b/checkpoints/step-1");
  c.set_metadata("{\"m\":1}");
  ASSERT_EQ(svc.Commit(c).error(), "");
  listing = svc.Inspect(ireq);
  EXPECT_TRUE(listing.steps(0).committed());
  EXPECT_EQ(listing.newest_committed(), 1u);
  EXPECT_EQ(listing.newest_metadata(), "{\"m\":1}");

  // A second save into a committed step is refused.
  EXPECT_NE(svc.Prepare(Request(v1::PHASE_SAVE, 2))
                .error()
                .find("refusing to overwrite"),
            std::string::npos);

  // Load with the recorded checksums verifies.
  auto load = Request(v1::PHASE_LOAD, 3);
  for (const auto& sum : rep.checksums()) {
    auto* seg = load.mutable_ranks(sum.rank())
                    ->mutable_files(sum.file_index())
                    ->mutable_segments(0);
    seg->set_checksum(sum.checksum());
    seg->set_has_checksum(true);
  }
  ASSERT_EQ(svc.Prepare(load).error(), "");
  auto lrep = svc.StartPhase(Start(3), nullptr, 1);
  ASSERT_EQ(lrep.error(), "");
  EXPECT_TRUE(lrep.ranks(0).verified());
  for (const auto& f : lrep.files()) {
    EXPECT_EQ(f.requests(), 123u) << f.name();  // its read calls
  }

  // A retried start of round 3 returns the first outcome without reading
  // again: corrupt a file, retry, still ok; a fresh round fails.
  ASSERT_TRUE(
      memory->FlipByte("mem://b/checkpoints/step-1/__1_1.distcp", 4242));
  auto retry = svc.StartPhase(Start(3), nullptr, 1);
  EXPECT_EQ(retry.error(), "");
  load.set_round_id(4);
  ASSERT_EQ(svc.Prepare(load).error(), "");
  auto fresh = svc.StartPhase(Start(4), nullptr, 1);
  EXPECT_NE(fresh.error().find("__1_1.distcp at byte offset 4242"),
            std::string::npos)
      << fresh.error();
  EXPECT_FALSE(fresh.ranks(1).verified());
}

TEST(NodeService, UnpreparedRoundFails) {
  NodeService svc;
  auto rep = svc.StartPhase(Start(7), nullptr, 1);
  EXPECT_NE(rep.error().find("without being prepared"), std::string::npos);
}

// Issue 14, case 14: the running phase reads its prepared job unlocked,
// so a prepare (or a cancel) racing a round was a data race. A prepare
// while a phase runs is refused; an abort from another thread ends the
// phase. (The TSan suite runs this test.)
TEST(WorkloadPhases, PrepareWhileAPhaseRunsIsRefusedAndAbortEndsIt) {
  StorageSet storage(std::make_shared<MemoryStore>());
  WorkloadPhases phases(
      {{"", [] { return std::make_unique<CheckpointWorkload>(); }}});
  auto job = [](uint64_t round) {
    return FromWire(Request(v1::PHASE_SAVE, round)).value();
  };
  ASSERT_TRUE(phases.Prepare(job(1), storage).ok());
  const PhaseStart start{"run-1", 1, NowUnixNs() + 300'000'000, 1.0};
  PhaseOutcome out;  // the phase waits 0.3 s for its start
  std::thread phase([&] { out = phases.Run(start, nullptr, nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto again = phases.Prepare(job(2), storage);
  EXPECT_TRUE(absl::IsFailedPrecondition(again.status())) << again.status();
  EXPECT_NE(again.status().message().find("round 1 is still running"),
            std::string::npos)
      << again.status();
  phases.Abort("test");
  phase.join();
  EXPECT_TRUE(absl::IsAborted(out.status)) << out.status;
  // Once it ended, the next round prepares.
  EXPECT_TRUE(phases.Prepare(job(2), storage).ok());
}

// Issue 27: cleanup removes a step's files only while the step's claim is
// this run's: a step replaced since (another run's claim there) is left.
TEST(NodeAgent, CleanupLeavesAStepWhoseClaimIsAnotherRuns) {
  auto memory = std::make_shared<MemoryStore>();
  NodeAgent agent(memory);
  for (const char* run : {"run-a", "run-b"}) {
    const int step = run[4] == 'a' ? 1 : 2;
    ASSERT_TRUE(agent.Claim("mem://b/checkpoints", step, run, {}).ok());
    ASSERT_TRUE(agent
                    .WriteFile(absl::StrCat("mem://b/checkpoints/step-", step),
                               "__0_0.distcp", "bytes", {})
                    .ok());
  }
  // run-a's cleanup asked for step-2, which run-b claimed.
  absl::Status s =
      agent.Cleanup("mem://b/checkpoints", {2}, {"__0_0.distcp", kClaimName},
                    {}, false, nullptr, "run-a");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "mem://b/checkpoints/step-2 is claimed by 'run-b', not this run "
            "(run-a): the step was replaced since this run wrote it; nothing "
            "there was removed");
  auto kept =
      agent.FileExists("mem://b/checkpoints/step-2", "__0_0.distcp", {});
  EXPECT_TRUE(kept.ok() && *kept);
  // Its own step goes.
  ASSERT_TRUE(agent
                  .Cleanup("mem://b/checkpoints", {1},
                           {"__0_0.distcp", kClaimName}, {}, false, nullptr,
                           "run-a")
                  .ok());
  auto gone =
      agent.FileExists("mem://b/checkpoints/step-1", "__0_0.distcp", {});
  EXPECT_TRUE(gone.ok() && !*gone);
}

TEST(StepDirs, ParseAndName) {
  EXPECT_EQ(ParseStepDir("step-12"), 12u);
  EXPECT_EQ(ParseStepDir("step-x"), 0u);
  EXPECT_EQ(ParseStepDir("other"), 0u);
  EXPECT_EQ(StepDirName(3), "step-3");
  // Issue 27, item 8: numbers stay exact in JSON, and no listing can make
  // the next step wrap to 0.
  EXPECT_EQ(ParseStepDir("step-9007199254740991"), kMaxStep);
  EXPECT_EQ(ParseStepDir("step-9007199254740992"), 0u);
  EXPECT_EQ(ParseStepDir("step-18446744073709551615"), 0u);
  EXPECT_EQ(ParseStepDir("step-99999999999999999999999"), 0u);
  EXPECT_TRUE(IsStepPastTheBound("step-18446744073709551615"));
  EXPECT_TRUE(IsStepPastTheBound("step-9007199254740992"));
  EXPECT_FALSE(IsStepPastTheBound("step-9007199254740991"));
  EXPECT_FALSE(IsStepPastTheBound("step-x1"));
  // Not ckptbench's spelling of a step: leading zeros, signs, spaces.
  for (const char* odd :
       {"step-012", "step-+1", "step- 1", "step-0", "step-", "step-1 "}) {
    EXPECT_EQ(ParseStepDir(odd), 0u) << odd;
    EXPECT_FALSE(IsStepPastTheBound(odd)) << odd;
  }
}

// Issue 14, case 2: what a round's buffers need is checked against the
// memory left before any is allocated.
TEST(NodeAgent, BuffersThatCannotFitAreRefusedWithTheNumbers) {
  PhaseJob job = FromWire(Request(v1::PHASE_SAVE, 1)).value();  // 4 files
  job.io.block_size = 64 << 20;
  job.io.queue_depth = 1;  // two blocks per file
  auto storage = MemoryStorage::Make(std::make_shared<MemoryStore>());
  EXPECT_TRUE(CheckBufferMemory(job, *storage, {1ull << 30, "test"}).ok());
  auto refused = CheckBufferMemory(job, *storage, {256ull << 20, "test"});
  ASSERT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(
      refused.message().find("needs 512.00 MiB of buffers on this node: 4 "
                             "file(s), each 2 block(s) of 64.00 MiB "
                             "(io.queue_depth 1, io.block_size)"),
      std::string::npos)
      << refused;
  EXPECT_NE(refused.message().find("256.00 MiB available (test)"),
            std::string::npos)
      << refused;
  EXPECT_TRUE(CheckBufferMemory(job, *storage, {0, ""}).ok());  // unknown
}

// Issue 49: an object under the single-request threshold is held whole
// before its one request, so a raised s3.multipart_threshold (or
// gcs.single_threshold) is in the estimate: 4 files of 2 GiB with a 1 GiB
// threshold hold 4 x 1 GiB, which 2 GiB cannot hold; the defaults' 8 MiB
// parts fit.
TEST(NodeAgent, ARaisedSingleRequestThresholdIsInTheBufferEstimate) {
  PhaseJob job = FromWire(Request(v1::PHASE_SAVE, 1)).value();  // 4 files
  for (auto& r : job.ranks) {
    for (auto& f : r.files) f.size = 2ull << 30;
  }
  const MemoryBudget two_gib{2ull << 30, "test"};
  setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
  setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  S3Config s3;
  s3.endpoint = "http://127.0.0.1:9";
  GcsConfig gcs;
  gcs.endpoint = "http://127.0.0.1:9";
  gcs.anonymous = true;
  EXPECT_TRUE(
      CheckBufferMemory(job, *S3Storage::Make(s3, nullptr).value(), two_gib)
          .ok());
  EXPECT_TRUE(
      CheckBufferMemory(job, *GcsStorage::Make(gcs, nullptr).value(), two_gib)
          .ok());
  s3.multipart_threshold = 1ull << 30;
  gcs.single_threshold = 1ull << 30;
  auto refused =
      CheckBufferMemory(job, *S3Storage::Make(s3, nullptr).value(), two_gib);
  ASSERT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(refused.message().find(
                "+ up to 1.03 GiB (max(s3.multipart_threshold, "
                "s3.part_size) + s3.part_size x s3.parts_in_flight)"),
            std::string::npos)
      << refused;
  refused =
      CheckBufferMemory(job, *GcsStorage::Make(gcs, nullptr).value(), two_gib);
  ASSERT_TRUE(absl::IsResourceExhausted(refused)) << refused;
  EXPECT_NE(refused.message().find("max(gcs.single_threshold, "
                                   "gcs.chunk_size)"),
            std::string::npos)
      << refused;
}

// Issue 14, case 2: a huge .metadata is refused unread (a 3.8 GB one was
// read whole).
TEST(NodeAgent, OversizedMetadataIsRefusedUnread) {
  TempDir t;
  const std::string step = t.Sub("checkpoints/step-1");
  std::filesystem::create_directories(step);
  { std::ofstream f(step + "/.metadata"); }
  std::filesystem::resize_file(step + "/.metadata",
                               kMaxMetadataBytes + 1);  // sparse
  NodeAgent agent;
  auto listing = agent.Inspect(t.Sub("checkpoints"));
  ASSERT_FALSE(listing.ok());
  EXPECT_NE(listing.status().message().find("more than the 512.00 MiB"),
            std::string::npos)
      << listing.status();
}

// Issue 14, case 11: the io.* a node receives go through the same key table
// (the same allowed values and bounds) as the coordinator's configuration.
TEST(NodeService, ReceivedIoOptionsAreCheckedThroughTheKeyTable) {
  auto memory = std::make_shared<MemoryStore>();
  NodeService svc(memory);
  auto mode = Request(v1::PHASE_SAVE, 1);
  // A number this build's enum does not have (a newer peer's).
  mode.mutable_io()->set_cache_mode(static_cast<v1::CacheMode>(99));
  auto a = svc.Prepare(mode);
  EXPECT_NE(a.error().find("io.cache_mode = 99: expected one of auto, drop, "
                           "fadvise, direct, none"),
            std::string::npos)
      << a.error();
  EXPECT_EQ(a.error_kind(), v1::ERROR_KIND_BAD_INPUT);
  auto gpu = Request(v1::PHASE_SAVE, 1);
  gpu.mutable_loop()->set_accelerator(static_cast<v1::Accelerator>(7));
  auto g = svc.Prepare(gpu);
  EXPECT_NE(g.error().find("cluster.accelerator = 7: expected one of cpu, gpu"),
            std::string::npos)
      << g.error();
  auto phase = Request(v1::PHASE_UNSPECIFIED, 1);
  EXPECT_NE(svc.Prepare(phase).error().find("phase = 0: expected one of save, "
                                            "load"),
            std::string::npos);
  auto block = Request(v1::PHASE_SAVE, 1);
  block.mutable_io()->set_block_size(100);
  auto b = svc.Prepare(block);
  EXPECT_NE(b.error().find("io.block_size = '100': expected a byte size from "
                           "4KiB to 1GiB"),
            std::string::npos)
      << b.error();
  auto depth = Request(v1::PHASE_SAVE, 1);
  depth.mutable_io()->set_queue_depth(65);
  auto d = svc.Prepare(depth);
  EXPECT_NE(d.error().find(
                "io.queue_depth = '65': expected auto or an integer from 0 "
                "to 64"),
            std::string::npos)
      << d.error();
  EXPECT_TRUE(svc.Prepare(Request(v1::PHASE_SAVE, 1)).error().empty());
}

// The backend settings arrive typed and are checked through the key table
// before any backend sees them, on every command that carries them.
TEST(NodeService, ReceivedBackendOptionsAreCheckedThroughTheKeyTable) {
  auto memory = std::make_shared<MemoryStore>();
  NodeService svc(memory);
  auto part = Request(v1::PHASE_SAVE, 1);
  part.mutable_backend()->mutable_s3()->set_part_size(1000);
  auto p = svc.Prepare(part);
  EXPECT_NE(p.error().find("s3.part_size = '1000'"), std::string::npos)
      << p.error();
  EXPECT_EQ(p.error_kind(), v1::ERROR_KIND_BAD_INPUT);
  auto claim = Request(v1::PHASE_SAVE, 1);
  claim.mutable_backend()->mutable_s3()->set_claim(
      static_cast<v1::S3Claim>(12));
  EXPECT_NE(svc.Prepare(claim).error().find(
                "s3.claim = 12: expected one of auto, if_none_match, listing"),
            std::string::npos)
      << svc.Prepare(claim).error();
  v1::InspectRequest inspect;
  inspect.set_steps_uri("mem://b/checkpoints");
  inspect.mutable_backend()->set_flavour(static_cast<v1::StorageFlavour>(5));
  auto i = svc.Inspect(inspect);
  EXPECT_NE(i.error().find("storage.flavour = 5: expected one of auto, local, "
                           "fuse"),
            std::string::npos)
      << i.error();
  v1::CleanupRequest cleanup;
  cleanup.set_steps_uri("mem://b/checkpoints");
  cleanup.mutable_backend()->mutable_gcs()->set_chunk_size(1000);
  auto c = svc.Cleanup(cleanup);
  EXPECT_NE(c.error().find("gcs.chunk_size = '1000'"), std::string::npos)
      << c.error();
  // Sent whole, as the coordinator sends them, the defaults pass; a
  // message left out reads as the defaults (TLS verified).
  auto whole = Request(v1::PHASE_SAVE, 1);
  *whole.mutable_backend() = ToWire(BackendOptions());
  EXPECT_TRUE(svc.Prepare(whole).error().empty());
  auto none = FromWire(v1::BackendOptions());
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(*none, BackendOptions());
  EXPECT_TRUE(none->s3.verify_tls && none->gcs.verify_tls);
}

// Issue 15: auto pipelines where the I/O call waits without the CPU.
TEST(NodeAgent, AutoQueueDepthPipelinesOnlyWhereIoWaitsWithoutTheCpu) {
  IoOptions io;
  ASSERT_EQ(io.queue_depth, kQueueDepthAuto);
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kPosix, true), 0);
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kPosix, false), 0);
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kFuse, true), 2);
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kS3, false), 2);
  io.direct_write = true;
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kPosix, true), 2);
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kPosix, false), 0);
  io.cache_mode = CacheMode::kDirect;
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kPosix, false), 2);
  io.queue_depth = 5;  // a number is taken as it is
  EXPECT_EQ(ResolveQueueDepth(io, StorageKind::kPosix, false), 5);
}

// Issue 15: the queue depth a node uses is the one the coordinator sent.
TEST(NodeService, QueueDepthComesFromTheRequest) {
  auto req = Request(v1::PHASE_LOAD, 1);
  req.mutable_io()->set_queue_depth(7);
  EXPECT_EQ(FromWire(req).value().io.queue_depth, 7);
}

// Issue 14, case 13: errors cross gRPC with their kind, not as strings.
TEST(NodeService, ErrorsCarryTheirKind) {
  auto memory = std::make_shared<MemoryStore>();
  NodeService svc(memory);
  auto req = Request(v1::PHASE_SAVE, 1);
  req.mutable_io()->set_checksum(static_cast<v1::Checksum>(9));
  auto bad = svc.Prepare(req);
  EXPECT_NE(bad.error().find("io.checksum = 9: expected one of xxh3, crc32c"),
            std::string::npos)
      << bad.error();
  EXPECT_EQ(bad.error_kind(), v1::ERROR_KIND_BAD_INPUT);
  v1::InspectRequest missing;
  missing.set_steps_uri("mem://b/checkpoints");
  missing.set_want_metadata(true);
  missing.set_metadata_step(7);  // not there
  auto none = svc.Inspect(missing);
  EXPECT_EQ(none.error_kind(), v1::ERROR_KIND_NOT_FOUND) << none.error();
  EXPECT_EQ(ErrorKindOf(absl::ResourceExhaustedError("ENOSPC")),
            ErrorKind::kNoSpace);
  EXPECT_EQ(ErrorKindOf(absl::UnavailableError("503")), ErrorKind::kRetryable);
  EXPECT_EQ(ErrorKindOf(absl::PermissionDeniedError("403")), ErrorKind::kAuth);
  // And back, on the coordinator: the code survives the trip.
  EXPECT_TRUE(absl::IsUnavailable(
      StatusOfKind(FromWire(v1::ERROR_KIND_RETRYABLE), "x")));
  EXPECT_EQ(Name(ErrorKind::kNoSpace), "no_space");
}

// Time to visible on a path: what each poll lacks until the step is there
// with the .metadata written, byte for byte, and the shard at its size.
TEST(PollVisible, WaitsForTheListingTheMetadataAndTheShard) {
  TempDir t;
  auto loc = OpenStorage(t.Sub("ck"), {});
  ASSERT_TRUE(loc.ok()) << loc.status();
  const std::string meta = "{\"format\":\"x\"}";
  VisibleWant want;
  want.step = 3;
  want.metadata_size = meta.size();
  want.metadata_xxh3 = Xxh3(meta.data(), meta.size());
  want.shard = "__0_0.distcp";
  want.shard_size = 5000;
  want.timeout_seconds = 0.05;
  VisibleOutcome none = PollVisible(*loc, want);
  EXPECT_FALSE(none.visible);
  EXPECT_EQ(none.lacked, "listing");
  EXPECT_GE(none.poll_seconds, 0.05);
  EXPECT_GT(none.polls, 1u);
  std::filesystem::create_directories(t.Sub("ck/step-3"));
  { std::ofstream(t.Sub("ck/step-3/.metadata")) << "{\"format\":\"y\"}"; }
  EXPECT_EQ(PollVisible(*loc, want).lacked, ".metadata");  // other bytes
  { std::ofstream(t.Sub("ck/step-3/.metadata")) << meta; }
  { std::ofstream(t.Sub("ck/step-3/__0_0.distcp")) << std::string(4000, 'x'); }
  EXPECT_EQ(PollVisible(*loc, want).lacked, "shard");  // short
  { std::ofstream(t.Sub("ck/step-3/__0_0.distcp")) << std::string(5000, 'x'); }
  // Made visible while it polls: found on a later poll.
  std::filesystem::remove(t.Sub("ck/step-3/.metadata"));
  want.timeout_seconds = 5;
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    std::ofstream(t.Sub("ck/step-3/.metadata")) << meta;
  });
  VisibleOutcome seen = PollVisible(*loc, want);
  later.join();
  EXPECT_TRUE(seen.visible);
  EXPECT_GT(seen.polls, 1u);
  EXPECT_GE(seen.poll_seconds, 0.02);
  EXPECT_LT(seen.poll_seconds, 2.0);
  EXPECT_GT(seen.at_unix_ns, 0);
}

}  // namespace
}  // namespace ckpt
