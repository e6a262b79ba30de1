// Latency across rounds: result.json carries each round's histogram as
// buckets, and the report's percentiles come from their merge, never from
// averaging (or taking the median of) the rounds' percentiles.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "absl/strings/str_format.h"
#include "common/histogram.h"
#include "coordinator/json_codec.h"
#include "report/html_report.h"
#include "report/sweep_data.h"

namespace ckpt {
namespace {

using nlohmann::json;

Histogram Of(uint64_t n, uint64_t ns) {
  Histogram h;
  for (uint64_t i = 0; i < n; ++i) h.Record(ns);
  return h;
}

// A round's op_latency entry, as result.json writes it.
json WriteLatencyJson(const Histogram& h) {
  RunResult r;
  r.status = RunStatus::kOk;
  RoundResult round;
  round.phase = Phase::kSave;
  round.index = 1;
  round.status = RunStatus::kOk;
  round.ops["write"] = h;
  r.rounds.push_back(round);
  return json::parse(ResultToJson(r))["rounds"][0]["op_latency"]["write"];
}

TEST(Latency, ResultJsonCarriesBucketsThatRebuildTheHistogram) {
  Histogram h = Of(90, 1'000'000);
  h.Merge(Of(10, 250'000'000));
  h.Record(7);
  json j = WriteLatencyJson(h);
  ASSERT_TRUE(j.contains("buckets")) << j.dump();
  EXPECT_EQ(j["buckets"].size(), 3u);  // 7 ns, ~1 ms, ~250 ms
  auto read = [](const json& op) {
    json result = {{"rounds", {{{"op_latency", {{"write", op}}}}}}};
    return ResultFromJson(result.dump(), "result.json");
  };
  auto back = read(j);
  ASSERT_TRUE(back.ok()) << back.status();
  const Histogram& b = back->rounds[0].ops.at("write");
  EXPECT_EQ(b.count(), 101u);
  EXPECT_EQ(b.sum(), h.sum());
  EXPECT_EQ(b.min(), 7u);
  EXPECT_EQ(b.max(), 250'000'000u);
  for (double q : {0.01, 0.5, 0.9, 0.95, 0.99}) {
    EXPECT_EQ(b.Percentile(q), h.Percentile(q)) << q;
  }
  // Written before the buckets were: the percentiles it gives, kept apart.
  auto old = read(json{{"count", 3}, {"p50_ms", 1.5}});
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->rounds[0].ops.count("write"), 0u);
  EXPECT_EQ(old->rounds[0].ops_without_buckets.at("write").count, 3u);
  EXPECT_EQ(old->rounds[0].ops_without_buckets.at("write").p50_ms, 1.5);
  // Hand-edited: not what result.json writes, so refused, naming where.
  json swapped = j;
  swapped["min_ns"] = 300'000'000;
  auto s = read(swapped);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(
                "result.json: rounds[0].op_latency.write.min_ns: expected at "
                "most its max_ns"),
            std::string::npos)
      << s.status();
  json miscounted = j;
  miscounted["count"] = 100;
  auto m = read(miscounted);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("rounds[0].op_latency.write.buckets: "
                                      "expected bucket counts adding up to "
                                      "its count, found the number 101"),
            std::string::npos)
      << m.status();
}

// Three rounds of one point: 100 writes at 1 ms, 100 at 1 ms, 1000 at
// 100 ms. Merged, the 600th of 1200 is a 100 ms write: p50 ~100 ms. The
// median of the rounds' p50s (1, 1, 100) would say 1 ms.
TEST(Latency, TheReportsPercentilesComeFromTheMergedHistogram) {
  const Histogram rounds[] = {Of(100, 1'000'000), Of(100, 1'000'000),
                              Of(1000, 100'000'000)};
  LoadedRun run;
  run.name = "r";
  run.point_name = "(all)";
  run.has_result = true;
  run.status = "ok";
  Histogram merged;
  for (const auto& h : rounds) {
    merged.Merge(h);
    RoundResult round;
    round.phase = Phase::kSave;
    round.seconds = 1.0;
    round.bytes = 1 << 20;
    round.throughput_mib_s = 1.0;
    // Through result.json and back, as the report reads it.
    auto written = ResultFromJson(
        json{{"rounds", {{{"op_latency", {{"write", WriteLatencyJson(h)}}}}}}}
            .dump(),
        "result.json");
    ASSERT_TRUE(written.ok()) << written.status();
    round.ops = written->rounds[0].ops;
    run.result.rounds.push_back(round);
  }
  SweepData d;
  d.name = "t";
  d.runs = {run};
  const std::string html = HtmlReport(d);
  const std::string p50 = absl::StrFormat(
      "%.3f", static_cast<double>(merged.Percentile(0.5)) / 1e6);
  EXPECT_GT(merged.Percentile(0.5), 95'000'000u);  // ~100 ms, by hand
  const std::string row =
      absl::StrCat("<td>(all)</td><td>1200</td><td>1.000</td><td>", p50);
  EXPECT_NE(html.find(row), std::string::npos) << html;
}

}  // namespace
}  // namespace ckpt
