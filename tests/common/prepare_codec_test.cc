// A round's prepare crosses the wire and back whole (wire/prepare_codec.h):
// every field of a checkpoint job, set off its default, arrives as it left,
// through the copying and the consuming conversions alike; another
// workload's job carries only its run, round, name and job; an enum number
// this build does not know is refused naming its field, and so is a
// training interval outside its key's range.
#include "wire/prepare_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace ckpt {
namespace {

PhaseJob OffDefaultPhaseJob() {
  PhaseJob j;
  j.run_id = "run-7";
  j.round_id = 42;
  j.save = false;
  j.seed = 99;
  j.step = 12;
  j.step_uri = "s3://bucket/ckpt/step-12";
  j.io.block_size = 1 << 20;
  j.io.queue_depth = 3;
  j.io.fsync = false;
  j.io.direct_write = true;
  j.io.direct_read = true;
  j.io.cache_mode = CacheMode::kFadvise;
  j.io.checksum = ChecksumKind::kXxh3;
  j.backend.flavour = StorageFlavour::kFuse;
  j.backend.s3.region = "eu-west-3";
  j.loop = {Accelerator::kGpu, HostStaging::kPageable, true, 2.5};
  j.tensor_names = std::make_shared<std::vector<std::string>>(
      std::vector<std::string>{"layer.0.weight", "layer.0.bias"});
  RankJob& r = j.ranks.emplace_back();
  r.rank = 5;
  FileJob& own = r.files.emplace_back();  // its own rank's file
  own.rank = 5;
  own.index = 0;
  own.path = "__5_0.distcp";
  own.size = 300;
  own.tensor_names = j.tensor_names;
  own.segments.push_back({0, 0, 200, 0, 0xabcdef, true, 0, 0});
  own.segments.push_back({1, 8, 100, 200, 0, false, 0, 0});
  FileJob& other = r.files.emplace_back();  // another rank's, in ranges
  other.rank = 2;
  other.index = 1;
  other.path = "__2_1.distcp";
  other.size = 1000;
  other.ranges = true;
  other.tensor_names = j.tensor_names;
  other.segments.push_back({1, 16, 64, 512, 0, false, 520, 32});
  j.ranks.push_back({6, {}});
  return j;
}

void ExpectSame(const PhaseJob& a, const PhaseJob& b) {
  EXPECT_EQ(a.run_id, b.run_id);
  EXPECT_EQ(a.round_id, b.round_id);
  EXPECT_EQ(a.workload, b.workload);
  EXPECT_EQ(a.workload_job, b.workload_job);
  EXPECT_EQ(a.save, b.save);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.step_uri, b.step_uri);
  EXPECT_EQ(a.io.block_size, b.io.block_size);
  EXPECT_EQ(a.io.queue_depth, b.io.queue_depth);
  EXPECT_EQ(a.io.fsync, b.io.fsync);
  EXPECT_EQ(a.io.direct_write, b.io.direct_write);
  EXPECT_EQ(a.io.direct_read, b.io.direct_read);
  EXPECT_EQ(a.io.cache_mode, b.io.cache_mode);
  EXPECT_EQ(a.io.checksum, b.io.checksum);
  EXPECT_TRUE(a.backend == b.backend);
  EXPECT_EQ(a.loop.accelerator, b.loop.accelerator);
  EXPECT_EQ(a.loop.staging, b.loop.staging);
  EXPECT_EQ(a.loop.async, b.loop.async);
  EXPECT_EQ(a.loop.interval_seconds, b.loop.interval_seconds);
  ASSERT_EQ(a.tensor_names != nullptr, b.tensor_names != nullptr);
  if (a.tensor_names) {
    EXPECT_EQ(*a.tensor_names, *b.tensor_names);
  }
  ASSERT_EQ(a.ranks.size(), b.ranks.size());
  for (size_t i = 0; i < a.ranks.size(); ++i) {
    const RankJob &ra = a.ranks[i], &rb = b.ranks[i];
    EXPECT_EQ(ra.rank, rb.rank);
    ASSERT_EQ(ra.files.size(), rb.files.size());
    for (size_t k = 0; k < ra.files.size(); ++k) {
      const FileJob &fa = ra.files[k], &fb = rb.files[k];
      EXPECT_EQ(fa.rank, fb.rank);
      EXPECT_EQ(fa.index, fb.index);
      EXPECT_EQ(fa.path, fb.path);
      EXPECT_EQ(fa.size, fb.size);
      EXPECT_EQ(fa.ranges, fb.ranges);
      // The node reads a segment's tensor name through its file.
      ASSERT_NE(fb.tensor_names, nullptr);
      EXPECT_EQ(*fb.tensor_names, *a.tensor_names);
      ASSERT_EQ(fa.segments.size(), fb.segments.size());
      for (size_t s = 0; s < fa.segments.size(); ++s) {
        const SegmentJob &sa = fa.segments[s], &sb = fb.segments[s];
        EXPECT_EQ(sa.tensor, sb.tensor);
        EXPECT_EQ(sa.tensor_offset, sb.tensor_offset);
        EXPECT_EQ(sa.length, sb.length);
        EXPECT_EQ(sa.file_offset, sb.file_offset);
        EXPECT_EQ(sa.expected, sb.expected);
        EXPECT_EQ(sa.has_expected, sb.has_expected);
        EXPECT_EQ(sa.keep_offset, sb.keep_offset);
        EXPECT_EQ(sa.keep_length, sb.keep_length);
      }
    }
  }
}

TEST(PrepareCodec, ACheckpointJobArrivesAsItLeft) {
  const PhaseJob sent = OffDefaultPhaseJob();
  v1::PrepareRequest req = ToWire(sent);
  EXPECT_EQ(req.phase(), v1::PHASE_LOAD);
  // Another rank's file says whose bytes it holds; its own does not.
  EXPECT_FALSE(req.ranks(0).files(0).other_rank());
  EXPECT_TRUE(req.ranks(0).files(1).other_rank());
  EXPECT_EQ(req.ranks(0).files(1).written_by_rank(), 2u);
  auto copied = FromWire(req);
  ASSERT_TRUE(copied.ok()) << copied.status();
  ExpectSame(sent, *copied);
  auto consumed = FromWire(std::move(req));
  ASSERT_TRUE(consumed.ok()) << consumed.status();
  ExpectSame(sent, *consumed);
}

TEST(PrepareCodec, TheConsumingConversionFreesTheSegmentsItSent) {
  PhaseJob job = OffDefaultPhaseJob();
  v1::PrepareRequest req = ToWire(std::move(job));
  for (const RankJob& r : job.ranks) {  // NOLINT(bugprone-use-after-move)
    for (const FileJob& f : r.files) EXPECT_TRUE(f.segments.empty());
  }
  auto back = FromWire(std::move(req));
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectSame(OffDefaultPhaseJob(), *back);
  EXPECT_EQ(req.ranks(0).files(0).segments_size(), 0);  // NOLINT
  EXPECT_EQ(req.tensor_names_size(), 0);                // NOLINT
}

TEST(PrepareCodec, AnotherWorkloadCarriesOnlyItsNameAndJob) {
  PhaseJob job = OffDefaultPhaseJob();
  job.workload = "count";
  job.workload_job = std::string("\x08\x02\x10\x05", 4);
  v1::PrepareRequest req = ToWire(job);
  EXPECT_EQ(req.workload(), "count");
  EXPECT_EQ(req.workload_job(), job.workload_job);
  EXPECT_EQ(req.run_id(), "run-7");
  EXPECT_EQ(req.round_id(), 42u);
  EXPECT_EQ(req.phase(), v1::PHASE_UNSPECIFIED);
  EXPECT_EQ(req.ranks_size(), 0);
  EXPECT_EQ(req.tensor_names_size(), 0);
  auto back = FromWire(req);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->workload, "count");
  EXPECT_EQ(back->workload_job, job.workload_job);
  EXPECT_EQ(back->run_id, "run-7");
  EXPECT_EQ(back->round_id, 42u);
  EXPECT_TRUE(back->ranks.empty());
}

TEST(PrepareCodec, AnUnknownEnumIsRefusedNamingItsField) {
  struct Case {
    const char* field;
    void (*spoil)(v1::PrepareRequest*);
  };
  for (const Case& c : std::vector<Case>{
           {"phase",
            [](v1::PrepareRequest* r) {
              r->set_phase(static_cast<v1::Phase>(77));
            }},
           {"io.cache_mode",
            [](v1::PrepareRequest* r) {
              r->mutable_io()->set_cache_mode(static_cast<v1::CacheMode>(77));
            }},
           {"io.checksum",
            [](v1::PrepareRequest* r) {
              r->mutable_io()->set_checksum(static_cast<v1::Checksum>(77));
            }},
           {"cluster.staging",
            [](v1::PrepareRequest* r) {
              r->mutable_loop()->set_staging(static_cast<v1::HostStaging>(77));
            }},
           {"cluster.accelerator", [](v1::PrepareRequest* r) {
              r->mutable_loop()->set_accelerator(
                  static_cast<v1::Accelerator>(77));
            }}}) {
    v1::PrepareRequest req = ToWire(OffDefaultPhaseJob());
    c.spoil(&req);
    auto job = FromWire(req);
    ASSERT_FALSE(job.ok()) << c.field;
    EXPECT_NE(job.status().message().find(c.field), std::string::npos)
        << job.status();
  }
}

// The interval sizes an async save's training compute (a count of passes
// from it): a NaN, a negative or an absurd one from a hostile coordinator
// is refused naming the key, never converted (undefined behaviour).
TEST(PrepareCodec, ATrainingIntervalOutsideTheKeysRangeIsRefused) {
  for (double bad :
       {std::nan(""), -1.0, 1e300, std::numeric_limits<double>::infinity()}) {
    v1::PrepareRequest req = ToWire(OffDefaultPhaseJob());
    req.mutable_loop()->set_interval_seconds(bad);
    auto job = FromWire(req);
    ASSERT_FALSE(job.ok()) << bad;
    EXPECT_NE(job.status().message().find("run.interval"), std::string::npos)
        << job.status();
  }
  v1::PrepareRequest req = ToWire(OffDefaultPhaseJob());
  req.mutable_loop()->set_interval_seconds(2.5);
  auto job = FromWire(req);
  ASSERT_TRUE(job.ok()) << job.status();
  EXPECT_EQ(job->loop.interval_seconds, 2.5);
}

}  // namespace
}  // namespace ckpt
