#include "common/dataset/dataset_layout.h"

#include <cmath>
#include <set>

#include "common/dataset/dataset_manifest.h"
#include "gtest/gtest.h"

namespace ckpt {
namespace {

DatasetSpec Tar(uint64_t samples, uint64_t bytes, uint64_t spread,
                uint64_t shard) {
  DatasetSpec s;
  s.format = DatasetFormat::kTar;
  s.samples = samples;
  s.sample_bytes = bytes;
  s.sample_spread = spread;
  s.shard_bytes = shard;
  s.seed = 7;
  return s;
}

TEST(DatasetLayout, FixedSizesAreExact) {
  DatasetSpec s = Tar(10, 1000, 0, 1 << 20);
  for (uint64_t i = 0; i < 10; ++i) EXPECT_EQ(SampleSize(s, i), 1000u);
}

TEST(DatasetLayout, SpreadSizesHaveTheAskedMeanAndSpreadAndRepeat) {
  DatasetSpec s = Tar(100000, 150000, 20000, 4 << 20);
  double sum = 0, sq = 0;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint64_t i = 0; i < s.samples; ++i) {
    double v = static_cast<double>(SampleSize(s, i));
    sum += v;
    sq += v * v;
    lo = std::min<uint64_t>(lo, v);
    hi = std::max<uint64_t>(hi, v);
  }
  double mean = sum / s.samples;
  double sd = std::sqrt(sq / s.samples - mean * mean);
  EXPECT_NEAR(mean, 150000, 300);  // 3 x sd / sqrt(n) is about 190
  EXPECT_NEAR(sd, 20000, 400);
  EXPECT_GE(lo, 150000u - 6 * 20000u);  // Irwin-Hall: within six spreads
  EXPECT_LE(hi, 150000u + 6 * 20000u);
  EXPECT_LT(lo, 150000u - 3 * 20000u);  // but not cut at a few
  // The same spec gives the same sizes; another seed others.
  DatasetSpec other = s;
  other.seed = 8;
  int differ = 0;
  for (uint64_t i = 0; i < 100; ++i) {
    EXPECT_EQ(SampleSize(s, i), SampleSize(Tar(100000, 150000, 20000, 1), i));
    differ += SampleSize(s, i) != SampleSize(other, i);
  }
  EXPECT_GT(differ, 90);
}

TEST(DatasetLayout, ASpreadNearTheMeanNeverGivesAnEmptySample) {
  DatasetSpec s = Tar(20000, 10, 10, 1 << 20);
  for (uint64_t i = 0; i < s.samples; ++i) EXPECT_GE(SampleSize(s, i), 1u);
}

TEST(DatasetLayout, ShardsFillInOrderWithinTheirTarget) {
  // 100 samples of 1000 bytes: 512 + 1024 + 1024 = 2560 bytes each.
  DatasetSpec s = Tar(100, 1000, 0, 10 * 2560 + 1024);
  EXPECT_EQ(TarRecordBytes(1000), 2560u);
  ShardTable t = BuildShardTable(s);
  ASSERT_EQ(t.shards(), 10u);
  for (uint64_t k = 0; k < 10; ++k) {
    EXPECT_EQ(t.first_sample[k], 10 * k);
    EXPECT_EQ(t.bytes[k], 10 * 2560u + 1024);
  }
  EXPECT_EQ(t.first_sample.back(), 100u);
  EXPECT_EQ(t.ShardOf(0), 0u);
  EXPECT_EQ(t.ShardOf(9), 0u);
  EXPECT_EQ(t.ShardOf(10), 1u);
  EXPECT_EQ(t.ShardOf(99), 9u);
  // One byte less: nine a shard, and one left over.
  s.shard_bytes -= 1;
  t = BuildShardTable(s);
  EXPECT_EQ(t.shards(), 12u);
  EXPECT_EQ(t.first_sample[1], 9u);
  EXPECT_EQ(t.bytes.back(), 1 * 2560u + 1024);
  DatasetTotals totals = ComputeTotals(s);
  EXPECT_EQ(totals.objects, 12u);
  EXPECT_EQ(totals.bytes, 100 * 2560u + 12 * 1024);
  EXPECT_EQ(totals.sample_bytes, 100 * 1000u);
}

TEST(DatasetLayout, ASampleOverTheShardTargetGetsAShardOfItsOwn) {
  DatasetSpec s = Tar(3, 100000, 0, 4096);
  ShardTable t = BuildShardTable(s);
  ASSERT_EQ(t.shards(), 3u);
  EXPECT_EQ(t.bytes[0], TarRecordBytes(100000) + kTarTrailerBytes);
}

TEST(DatasetLayout, NamesAndPrefixes) {
  DatasetSpec s = Tar(1, 1, 0, 4096);
  s.format = DatasetFormat::kFiles;
  EXPECT_EQ(SampleKey(42), "s0000000042");
  EXPECT_EQ(LabelText(1042), "42");
  EXPECT_EQ(SampleObjectName(s, 42), "samples/s0000000042.jpg");
  EXPECT_EQ(ShardName(3), "shards/shard-000003.tar");
  s.spread_prefixes = 16;
  std::set<std::string> prefixes;
  for (uint64_t i = 0; i < 1000; ++i) {
    std::string n = SampleObjectName(s, i);
    ASSERT_EQ(n.size(), std::string("samples/0f/s0000000042.jpg").size()) << n;
    prefixes.insert(n.substr(0, 11));
  }
  EXPECT_EQ(prefixes.size(), 16u);
}

TEST(DatasetLayout, SpecChecksNameTheField) {
  DatasetSpec s = Tar(0, 1, 0, 4096);
  EXPECT_NE(
      CheckDatasetSpec(s, "dataset.samples").message().find("samples is 0"),
      std::string::npos);
  s = Tar(1, 100, 101, 4096);
  EXPECT_NE(CheckDatasetSpec(s, "x").message().find("sample_spread is 101"),
            std::string::npos);
  s = Tar(1, kMaxSampleBytes + 1, 0, 4096);
  EXPECT_FALSE(CheckDatasetSpec(s, "x").ok());
  s = Tar(1, 1, 0, 100);
  EXPECT_NE(CheckDatasetSpec(s, "x").message().find("shard_bytes is 100"),
            std::string::npos);
  s.format = DatasetFormat::kFiles;  // shards do not matter
  EXPECT_TRUE(CheckDatasetSpec(s, "x").ok());
}

TEST(DatasetManifest, RoundTripsAndStaysSmallAtTenMillionSamples) {
  DatasetManifest m;
  m.spec = Tar(10'000'000, 150000, 30000, 64 << 20);
  m.totals = {1234, 1ull << 40, 1ull << 40};
  m.run_id = "run-1";
  m.created_unix_ns = 17;
  std::string text = DatasetManifestToJson(m);
  EXPECT_LT(text.size(), 1024u);
  auto back = DatasetManifestFromJson(text, "m.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->spec, m.spec);
  EXPECT_EQ(back->totals.objects, 1234u);
  EXPECT_EQ(back->totals.bytes, 1ull << 40);
  EXPECT_EQ(back->run_id, "run-1");
  EXPECT_TRUE(CheckManifestMatches(*back, m.spec, "here").ok());
  DatasetSpec asked = m.spec;
  asked.samples = 5;
  asked.seed = 9;
  absl::Status s = CheckManifestMatches(*back, asked, "/data/x");
  EXPECT_NE(s.message().find("samples 10000000 (asked: 5)"), std::string::npos)
      << s;
  EXPECT_NE(s.message().find("seed 7 (asked: 9)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("/data/x"), std::string::npos) << s;
}

TEST(DatasetManifest, RefusesWhatIsNotOne) {
  auto bad = [](const std::string& text) {
    auto m = DatasetManifestFromJson(text, "m.json");
    EXPECT_FALSE(m.ok()) << text;
    return m.ok() ? std::string() : std::string(m.status().message());
  };
  DatasetManifest m;
  m.spec = Tar(10, 100, 0, 4096);
  std::string good = DatasetManifestToJson(m);
  EXPECT_NE(bad("[1]").find("not a JSON object"), std::string::npos);
  EXPECT_NE(bad("{").find("m.json"), std::string::npos);
  std::string v2 = good;
  v2.replace(v2.find("\"ckptbench_dataset\": 1"), 22,
             "\"ckptbench_dataset\": 2");
  EXPECT_NE(bad(v2).find("version 1"), std::string::npos);
  std::string gen = good;
  gen.replace(gen.find("pool-xor-v1"), 11, "pool-xor-v9");
  EXPECT_NE(bad(gen).find("generator"), std::string::npos);
  std::string neg = good;
  neg.replace(neg.find("\"samples\": 10"), 13, "\"samples\": -1");
  EXPECT_NE(bad(neg).find("\"samples\""), std::string::npos);
  std::string zero = good;
  zero.replace(zero.find("\"samples\": 10"), 13, "\"samples\": 0");
  EXPECT_NE(bad(zero).find("samples is 0"), std::string::npos);
  std::string fmt = good;
  fmt.replace(fmt.find("\"tar\""), 5, "\"zip\"");
  EXPECT_NE(bad(fmt).find("files, tar"), std::string::npos);
  EXPECT_NE(bad(std::string(kMaxDatasetManifestBytes + 1, ' ')).find("at most"),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt
