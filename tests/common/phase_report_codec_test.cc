// What a node measured crosses the wire and back whole
// (wire/phase_report_codec.h): every field, set off its default, arrives as
// it left; a failed node's report keeps its status with its kind and what
// it measured; latencies of operations that saw none are not sent; and a
// report the coordinator could not hold as its values (an operation this
// build does not know, a histogram that does not add up) is refused saying
// what is wrong.
#include "wire/phase_report_codec.h"

#include <gtest/gtest.h>

#include "common/error_kind.h"

namespace ckpt {
namespace {

PhaseOutcome OffDefaultOutcome() {
  PhaseOutcome o;
  o.round_id = 42;
  o.ranks.push_back({3, 4096, 0.5, 1.25, true, 4000, 2});
  o.ops.write.Record(1000);
  o.ops.write.Record(3000);
  o.ops.fsync.Record(50'000'000);
  o.cpu = {0.75, 0.25, 0.5};
  o.start_lag_seconds = 0.002;
  o.dir_sync_seconds = 0.01;
  o.checksums.push_back({3, 1, 2, 0xfeedfacecafebeefull});
  o.requests = 11;
  o.retries = 2;
  o.throttles = 1;
  o.new_connections = 4;
  o.backoff_seconds = 0.3;
  o.memory_available_bytes = 1ull << 33;
  o.peak_rss_bytes = 3ull << 28;
  o.staging = {0.1, 8192, 0.2, 0.9, 0.7, 0.6, 16384, true};
  o.data_seconds = 0.4;
  o.file_seconds = 1.5;
  o.cpus = 16;
  FileRecord f;
  f.rank = 3;
  f.file_index = 1;
  f.name = "__3_1.distcp";
  f.bytes = 4096;
  f.start = 0.1;
  f.first_byte = 0.2;
  f.last_byte = 1.0;
  f.done = 1.2;
  f.data = 0.3;
  f.io = 0.8;
  f.sync = 0.05;
  f.requests = 5;
  f.retries = 1;
  o.files.push_back(f);
  o.workload_report = std::string("c\0unt", 5);
  return o;
}

TEST(PhaseReportCodec, EveryFieldCrossesTheWireAndBack) {
  const PhaseOutcome o = OffDefaultOutcome();
  const v1::PhaseReport wire = ToWire(o);
  EXPECT_TRUE(wire.error().empty());
  ASSERT_EQ(wire.ops_size(), 2) << "only the operations that happened";
  EXPECT_EQ(wire.ops(0).op(), "write");
  EXPECT_EQ(wire.ops(1).op(), "fsync");
  auto back = FromWire(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->status.ok());
  EXPECT_EQ(back->round_id, 42u);
  ASSERT_EQ(back->ranks.size(), 1u);
  const RankOutcome& r = back->ranks[0];
  EXPECT_EQ(r.rank, 3u);
  EXPECT_EQ(r.bytes, 4096u);
  EXPECT_EQ(r.first_byte_seconds, 0.5);
  EXPECT_EQ(r.done_seconds, 1.25);
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.checked_bytes, 4000u);
  EXPECT_EQ(r.checked_files, 2u);
  EXPECT_EQ(back->ops.write.count(), 2u);
  EXPECT_EQ(back->ops.write.sum(), 4000u);
  EXPECT_EQ(back->ops.write.min(), 1000u);
  EXPECT_EQ(back->ops.write.max(), 3000u);
  EXPECT_EQ(back->ops.fsync.count(), 1u);
  EXPECT_EQ(
      back->ops.open.count() + back->ops.read.count() + back->ops.close.count(),
      0u);
  EXPECT_EQ(back->cpu.user_seconds, 0.75);
  EXPECT_EQ(back->cpu.system_seconds, 0.25);
  EXPECT_EQ(back->cpu.host_busy, 0.5);
  EXPECT_EQ(back->start_lag_seconds, 0.002);
  EXPECT_EQ(back->dir_sync_seconds, 0.01);
  ASSERT_EQ(back->checksums.size(), 1u);
  EXPECT_EQ(back->checksums[0].rank, 3u);
  EXPECT_EQ(back->checksums[0].file_index, 1u);
  EXPECT_EQ(back->checksums[0].segment_index, 2u);
  EXPECT_EQ(back->checksums[0].value, 0xfeedfacecafebeefull);
  EXPECT_EQ(back->requests, 11u);
  EXPECT_EQ(back->retries, 2u);
  EXPECT_EQ(back->throttles, 1u);
  EXPECT_EQ(back->new_connections, 4u);
  EXPECT_EQ(back->backoff_seconds, 0.3);
  EXPECT_EQ(back->memory_available_bytes, 1ull << 33);
  EXPECT_EQ(back->peak_rss_bytes, 3ull << 28);
  EXPECT_EQ(back->staging.copy_seconds, 0.1);
  EXPECT_EQ(back->staging.copy_bytes, 8192u);
  EXPECT_EQ(back->staging.blocking_seconds, 0.2);
  EXPECT_EQ(back->staging.durable_seconds, 0.9);
  EXPECT_EQ(back->staging.compute_seconds, 0.7);
  EXPECT_EQ(back->staging.compute_baseline_seconds, 0.6);
  EXPECT_EQ(back->staging.staged_bytes, 16384u);
  EXPECT_TRUE(back->staging.pinned);
  EXPECT_EQ(back->data_seconds, 0.4);
  EXPECT_EQ(back->file_seconds, 1.5);
  EXPECT_EQ(back->cpus, 16);
  ASSERT_EQ(back->files.size(), 1u);
  const FileRecord& f = back->files[0];
  EXPECT_EQ(f.name, "__3_1.distcp");
  EXPECT_EQ(f.rank, 3u);
  EXPECT_EQ(f.file_index, 1u);
  EXPECT_EQ(f.bytes, 4096u);
  EXPECT_EQ(f.first_byte, 0.2);
  EXPECT_EQ(f.done, 1.2);
  EXPECT_EQ(f.sync, 0.05);
  EXPECT_EQ(f.retries, 1u);
  EXPECT_EQ(back->workload_report, o.workload_report);
}

TEST(PhaseReportCodec, AFailedNodesReportKeepsItsKindAndWhatItMeasured) {
  PhaseOutcome o = OffDefaultOutcome();
  o.status = absl::ResourceExhaustedError("no space left on /ckpt");
  const v1::PhaseReport wire = ToWire(o);
  EXPECT_EQ(wire.error(), "no space left on /ckpt");
  EXPECT_EQ(wire.error_kind(), v1::ERROR_KIND_NO_SPACE);
  auto back = FromWire(wire);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(absl::IsResourceExhausted(back->status)) << back->status;
  EXPECT_TRUE(IsNodeError(back->status));
  EXPECT_EQ(NodeErrorKindOf(back->status), ErrorKind::kNoSpace);
  EXPECT_EQ(back->ranks.size(), 1u);
  EXPECT_EQ(back->ops.write.count(), 2u);
}

TEST(PhaseReportCodec, AReportItCannotHoldIsRefusedSayingWhy) {
  const v1::PhaseReport good = ToWire(OffDefaultOutcome());
  auto refused = [](const v1::PhaseReport& r) {
    auto o = FromWire(r);
    EXPECT_FALSE(o.ok());
    return std::string(o.status().message());
  };
  v1::PhaseReport r = good;
  r.mutable_ops(0)->set_op("teleport\x1b[2J");
  std::string why = refused(r);
  EXPECT_NE(why.find("unknown operation 'teleport"), std::string::npos) << why;
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << "escaped for a terminal";

  r = good;
  r.mutable_ops(0)->mutable_histogram()->set_count(3);  // counts add up to 2
  why = refused(r);
  EXPECT_NE(why.find("write latency counts add up to 2, not its count 3"),
            std::string::npos)
      << why;

  r = good;
  for (int i = 0; i <= Histogram::kNumBuckets; ++i) {
    r.mutable_ops(1)->mutable_histogram()->add_counts(0);
  }
  why = refused(r);
  EXPECT_NE(why.find("fsync latency has"), std::string::npos) << why;

  r = good;
  r.mutable_ops(0)->mutable_histogram()->set_min_ns(10);
  r.mutable_ops(0)->mutable_histogram()->set_max_ns(5);
  why = refused(r);
  EXPECT_NE(why.find("above max"), std::string::npos) << why;

  // One operation sent twice is merged, as the coordinator always did.
  r = good;
  *r.add_ops() = good.ops(0);
  auto twice = FromWire(r);
  ASSERT_TRUE(twice.ok()) << twice.status();
  EXPECT_EQ(twice->ops.write.count(), 4u);
}

}  // namespace
}  // namespace ckpt
