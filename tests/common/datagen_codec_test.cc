// The datagen workload's messages cross the wire and back whole
// (wire/datagen_codec.h): a job, a prepare outcome and a report with every
// field off its default arrive as they left; a job whose share is none,
// whose writers or block size are outside their key's range (the key
// table's bound, the one the configuration refuses too), or whose dataset
// format this build does not know is refused naming what was wrong; a
// prepare outcome with an oversized manifest, and bytes that do not parse,
// are refused.
#include "wire/datagen_codec.h"

#include <gtest/gtest.h>

#include <string>

#include "common/config_loader.h"
#include "common/dataset/dataset_manifest.h"
#include "proto/ckptbench/v1/dataset.pb.h"

namespace ckpt {
namespace {

DatagenJob OffDefaultDatagenJob() {
  DatagenJob j;
  j.spec.format = DatasetFormat::kFiles;
  j.spec.samples = 1234;
  j.spec.sample_bytes = 5000;
  j.spec.sample_spread = 300;
  j.spec.shard_bytes = 1 << 20;
  j.spec.spread_prefixes = 8;
  j.spec.seed = 77;
  j.dataset_uri = "s3://bucket/ds";
  j.share_index = 2;
  j.share_count = 5;
  j.write_threads = 9;
  j.block_size = 1 << 20;
  j.fsync = false;
  j.backend.flavour = StorageFlavour::kFuse;
  j.backend.s3.region = "eu-west-3";
  j.manifest_owner = true;
  j.take_over = {"run-a", "run-b"};
  return j;
}

TEST(DatagenCodec, AJobArrivesAsItLeft) {
  const DatagenJob j = OffDefaultDatagenJob();
  auto back = DecodeDatagenJob(EncodeDatagenJob(j));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->spec, j.spec);
  EXPECT_EQ(back->dataset_uri, j.dataset_uri);
  EXPECT_EQ(back->share_index, 2u);
  EXPECT_EQ(back->share_count, 5u);
  EXPECT_EQ(back->write_threads, 9u);
  EXPECT_EQ(back->block_size, 1u << 20);
  EXPECT_FALSE(back->fsync);
  EXPECT_EQ(back->backend, j.backend);
  EXPECT_FALSE(back->remove);
  EXPECT_TRUE(back->manifest_owner);
  EXPECT_EQ(back->take_over, j.take_over);

  // Removing: no spec travels (the node's manifest says what to remove).
  DatagenJob r = OffDefaultDatagenJob();
  r.remove = true;
  auto removed = DecodeDatagenJob(EncodeDatagenJob(r));
  ASSERT_TRUE(removed.ok()) << removed.status();
  EXPECT_TRUE(removed->remove);
  EXPECT_EQ(removed->spec, DatasetSpec());
}

TEST(DatagenCodec, AJobOutsideItsKeysIsRefusedNamingTheKey) {
  struct Case {
    void (*spoil)(DatagenJob*);
    std::string want;
  };
  const Case cases[] = {
      {[](DatagenJob* j) { j->share_index = 5; },
       "share 5 of 5 is not a share"},
      {[](DatagenJob* j) { j->share_count = 0; }, "is not a share"},
      {[](DatagenJob* j) { j->write_threads = 0; },
       "dataset.write_threads = '0': expected an integer from 1 to 1024"},
      {[](DatagenJob* j) { j->write_threads = 1025; },
       "dataset.write_threads = '1025': expected an integer from 1 to 1024"},
      {[](DatagenJob* j) { j->write_threads = 4000000000u; },
       "dataset.write_threads = '4000000000': expected an integer from 1 to "
       "1024"},
      {[](DatagenJob* j) { j->block_size = 2ull << 30; },
       "io.block_size = '2147483648': expected a byte size from 4KiB to 1GiB"},
  };
  for (const Case& c : cases) {
    DatagenJob j = OffDefaultDatagenJob();
    c.spoil(&j);
    auto back = DecodeDatagenJob(EncodeDatagenJob(j));
    ASSERT_FALSE(back.ok()) << c.want;
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(back.status().message().find(c.want), std::string::npos)
        << back.status();
  }
  // A format this build does not know, and bytes that are no job.
  ckptbench::v1::DatagenJob w;
  ASSERT_TRUE(w.ParseFromString(EncodeDatagenJob(OffDefaultDatagenJob())));
  w.mutable_spec()->set_format(static_cast<ckptbench::v1::DatasetFormat>(9));
  auto unknown = DecodeDatagenJob(w.SerializeAsString());
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("dataset.format: 9"),
            std::string::npos)
      << unknown.status();
  auto garbage = DecodeDatagenJob(std::string("\xff\xff\xff", 3));
  ASSERT_FALSE(garbage.ok());
  EXPECT_NE(garbage.status().message().find("does not parse"),
            std::string::npos);
}

// The node's bound is the configuration's: the key table refuses what the
// node would.
TEST(DatagenCodec, TheWritersBoundIsTheKeyTables) {
  auto c = LoadConfig({"",
                       {"CKPT_DATAGEN_THREADS=1025"},
                       [](const char*) { return nullptr; },
                       {},
                       {}});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("(dataset.write_threads) = '1025': "
                                      "expected an integer from 1 to 1024"),
            std::string::npos)
      << c.status();
}

TEST(DatagenCodec, APrepareOutcomeAndAReportArriveAsTheyLeft) {
  const DatagenPrepared p{true, "{\"manifest\": 1}", true, true};
  auto back = DecodeDatagenPrepared(EncodeDatagenPrepared(p));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(back->manifest_found);
  EXPECT_EQ(back->manifest, p.manifest);
  EXPECT_TRUE(back->reuse);
  EXPECT_TRUE(back->unfinished);

  const DatagenReport r{3, 4096, 70};
  auto report = DecodeDatagenReport(EncodeDatagenReport(r));
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->objects, 3u);
  EXPECT_EQ(report->bytes, 4096u);
  EXPECT_EQ(report->samples, 70u);
}

TEST(DatagenCodec, AHostileOutcomeOrReportIsRefused) {
  DatagenPrepared big;
  big.manifest_found = true;
  big.manifest.assign(kMaxDatasetManifestBytes + 1, 'x');
  auto back = DecodeDatagenPrepared(EncodeDatagenPrepared(big));
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(back.status().message().find("at most 65536"), std::string::npos)
      << back.status();
  EXPECT_FALSE(DecodeDatagenPrepared(std::string("\xff\xff", 2)).ok());
  auto report = DecodeDatagenReport(std::string("\xff\xff", 2));
  ASSERT_FALSE(report.ok());
  EXPECT_EQ(report.status().message(), "a datagen report that does not parse");
}

}  // namespace
}  // namespace ckpt
