// A node's dataload report and the asks and answers of the checkpoints
// during its epoch cross the wire and back whole
// (wire/dataload_report_codec.h): every field set off its default arrives
// as it left; bytes that do not parse, a histogram this build cannot hold
// and an ask that names no save are refused saying what was wrong; a saved
// ask whose report cannot be held still arrives, carrying why (its save
// then fails, naming the node).
#include "wire/dataload_report_codec.h"

#include <gtest/gtest.h>

#include <string>

#include "proto/ckptbench/v1/dataset.pb.h"

namespace ckpt {
namespace {

namespace v1 = ::ckptbench::v1;

void ExpectSameHistogram(const Histogram& a, const Histogram& b) {
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.sum(), b.sum());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.TrimmedCounts(), b.TrimmedCounts());
}

Histogram Of(uint64_t a, uint64_t b) {
  Histogram h;
  h.Record(a);
  h.Record(b);
  return h;
}

DataloadReport OffDefaultReport() {
  DataloadReport r;
  RankEpochReport& e = r.ranks.emplace_back();
  e.rank = 5;
  e.samples = 100;
  e.bytes = 1 << 20;
  e.batches = 7;
  e.seconds = 2.5;
  e.first_batch_seconds = 0.25;
  e.first_batch = {3, 0.015625, 0.03125, 0.1875, 0.015625, 48, 49, 2};
  e.compute_seconds = 1.5;
  e.wait_seconds = 0.75;
  e.digest = 0xfeedfacecafebeefull;
  e.order_digest = 0x1234567890abcdefull;
  e.wait = Of(1000, 2'000'000);
  e.windows.push_back({100, 0.01, 0.0004});
  e.windows.push_back({42, 0.02, 0.0009});
  r.workers.push_back({5, 3, 33, 4, 35, 2, 1, 6, 9});
  r.sample_first_byte = Of(5000, 7000);
  r.sample_last_byte = Of(9000, 11'000);
  r.saves.push_back({2, 17, 8, 1.0, 1.5, 0.25, 0.125, 64, 0.375, 0.0625});
  r.checkpoint_window_seconds = 0.5;
  r.checkpoint_window_samples = 64;
  r.checkpoint_window_compute_seconds = 0.375;
  r.order = "feistel-v1";
  return r;
}

TEST(DataloadReportCodec, EveryFieldOfAReportCrossesTheWireAndBack) {
  const DataloadReport sent = OffDefaultReport();
  auto got = DecodeDataloadReport(EncodeDataloadReport(sent));
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->ranks.size(), 1u);
  const RankEpochReport& e = got->ranks[0];
  const RankEpochReport& s = sent.ranks[0];
  EXPECT_EQ(e.rank, s.rank);
  EXPECT_EQ(e.samples, s.samples);
  EXPECT_EQ(e.bytes, s.bytes);
  EXPECT_EQ(e.batches, s.batches);
  EXPECT_EQ(e.seconds, s.seconds);
  EXPECT_EQ(e.first_batch_seconds, s.first_batch_seconds);
  EXPECT_EQ(e.first_batch, s.first_batch);
  EXPECT_EQ(e.compute_seconds, s.compute_seconds);
  EXPECT_EQ(e.wait_seconds, s.wait_seconds);
  EXPECT_EQ(e.digest, s.digest);
  EXPECT_EQ(e.order_digest, s.order_digest);
  ExpectSameHistogram(e.wait, s.wait);
  EXPECT_EQ(e.windows, s.windows);
  EXPECT_EQ(got->workers, sent.workers);
  ExpectSameHistogram(got->sample_first_byte, sent.sample_first_byte);
  ExpectSameHistogram(got->sample_last_byte, sent.sample_last_byte);
  EXPECT_EQ(got->saves, sent.saves);
  EXPECT_EQ(got->checkpoint_window_seconds, 0.5);
  EXPECT_EQ(got->checkpoint_window_samples, 64u);
  EXPECT_EQ(got->checkpoint_window_compute_seconds, 0.375);
  EXPECT_EQ(got->order, "feistel-v1");
}

TEST(DataloadReportCodec, AReportItCannotHoldIsRefusedSayingWhy) {
  auto garbage = DecodeDataloadReport(std::string("\xff\xff\xff", 3));
  ASSERT_FALSE(garbage.ok());
  EXPECT_EQ(garbage.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(garbage.status().message(),
            "a dataload report that does not parse");

  v1::DataloadReport w;
  ASSERT_TRUE(w.ParseFromString(EncodeDataloadReport(OffDefaultReport())));
  w.mutable_ranks(0)->mutable_wait()->set_count(3);  // its counts add to 2
  auto bad_wait = DecodeDataloadReport(w.SerializeAsString());
  ASSERT_FALSE(bad_wait.ok());
  EXPECT_EQ(bad_wait.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(bad_wait.status().message(),
            "a dataload report whose batch wait latency counts add up to 2, "
            "not its count 3");

  ASSERT_TRUE(w.ParseFromString(EncodeDataloadReport(OffDefaultReport())));
  w.mutable_sample_last_byte()->set_min_ns(1'000'000'000);
  auto bad_last = DecodeDataloadReport(w.SerializeAsString());
  ASSERT_FALSE(bad_last.ok());
  EXPECT_NE(
      bad_last.status().message().find("sample last byte latency has min"),
      std::string::npos)
      << bad_last.status();
}

TEST(DataloadReportCodec, EachAskAndAnswerOfASaveCrossesTheWireAndBack) {
  EpochSaveAsk start;
  start.save = 3;
  auto s = DecodeEpochSaveAsk(EncodeEpochSaveAsk(start));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->save, 3u);
  EXPECT_FALSE(s->saved);
  EXPECT_FALSE(s->finished);
  EXPECT_FALSE(s->prepared.has_value());

  EpochSaveAsk finished;
  finished.save = 4;
  finished.finished = true;
  auto f = DecodeEpochSaveAsk(EncodeEpochSaveAsk(finished));
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_TRUE(f->finished);
  EXPECT_FALSE(f->saved);

  EpochSaveAsk saved;
  saved.save = 2;
  saved.saved = true;
  saved.report.round_id = 77;
  saved.report.ranks.push_back({1, 4096, 0.5, 1.25, false, 0, 0});
  saved.report.requests = 9;
  PrepareOutcome prepared;
  prepared.storage_kind = StorageKind::kS3;
  prepared.filesystem.type = "xfs";
  saved.prepared = prepared;
  auto d = DecodeEpochSaveAsk(EncodeEpochSaveAsk(saved));
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->saved);
  EXPECT_TRUE(d->unheld.ok()) << d->unheld;
  EXPECT_EQ(d->report.round_id, 77u);
  ASSERT_EQ(d->report.ranks.size(), 1u);
  EXPECT_EQ(d->report.ranks[0].bytes, 4096u);
  EXPECT_EQ(d->report.requests, 9u);
  ASSERT_TRUE(d->prepared.has_value());
  EXPECT_EQ(d->prepared->storage_kind, StorageKind::kS3);
  EXPECT_EQ(d->prepared->filesystem.type, "xfs");

  const EpochSaveAnswer answer{12, "s3://b/ck/step_12", 13, "s3://b/ck/step_13",
                               false};
  auto a = DecodeEpochSaveAnswer(EncodeEpochSaveAnswer(answer));
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(*a, answer);
  EpochSaveAnswer skip;
  skip.skip = true;
  EXPECT_EQ(*DecodeEpochSaveAnswer(EncodeEpochSaveAnswer(skip)), skip);
}

TEST(DataloadReportCodec, AnAskItCannotHoldIsRefusedOrCarriesWhy) {
  EpochSaveAsk none;  // save 0: no save of the epoch
  auto zero = DecodeEpochSaveAsk(EncodeEpochSaveAsk(none));
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(zero.status().message(), "an ask about a save that does not parse");
  EXPECT_FALSE(DecodeEpochSaveAsk(std::string("\xff\xff", 2)).ok());

  EpochSaveAsk saved;
  saved.save = 1;
  saved.saved = true;
  v1::EpochSaveAsk w;
  ASSERT_TRUE(w.ParseFromString(EncodeEpochSaveAsk(saved)));
  v1::OpHistogram* op = w.mutable_report()->add_ops();
  op->set_op("teleport");  // no operation this build knows
  auto unheld = DecodeEpochSaveAsk(w.SerializeAsString());
  ASSERT_TRUE(unheld.ok()) << unheld.status();
  EXPECT_EQ(unheld->save, 1u);
  EXPECT_EQ(unheld->unheld.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(
      unheld->unheld.message().rfind("a save report that cannot be held: ", 0),
      0u)
      << unheld->unheld;

  auto answer = DecodeEpochSaveAnswer(std::string("\xff\xff", 2));
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace ckpt
