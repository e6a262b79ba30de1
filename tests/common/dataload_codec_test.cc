// The dataload workload's job and prepare outcome cross the wire and back
// whole (wire/dataload_codec.h): every field off its default, the epoch's
// checkpoint with its save job included, arrives as it left; a job whose
// ranks are no share, whose loader settings are outside their keys' ranges
// (the key table's bounds, the ones the configuration refuses too), whose
// access or listed format this build does not know, or whose checkpoint is
// no save is refused naming what was wrong; an outcome with an oversized
// manifest, and bytes that do not parse, are refused.
#include "wire/dataload_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/config_loader.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/dataset_options.h"
#include "proto/ckptbench/v1/dataset.pb.h"

namespace ckpt {
namespace {

DataloadJob OffDefaultDataloadJob() {
  DataloadJob j;
  j.dataset_uri = "gs://bucket/ds";
  j.first_rank = 4;
  j.ranks = 4;
  j.world = 12;
  j.epoch = 3;
  j.seed = 99;
  j.loader.access = DataAccess::kIterable;
  j.loader.batch_size = 64;
  j.loader.num_workers = 7;
  j.loader.prefetch_factor = 5;
  j.loader.compute_time = 0.25;
  j.loader.preprocess_time = 0.002;
  j.loader.shuffle = false;
  j.loader.drop_last = false;
  j.loader.shuffle_buffer = 333;
  j.block_size = 1 << 20;
  j.backend.flavour = StorageFlavour::kFuse;
  j.backend.gcs.project = "p-1";
  j.cache_mode = CacheMode::kFadvise;
  j.listed = true;
  j.listed_format = DatasetFormat::kFiles;
  j.list_limits = {11, 22, 33, 44, 55};
  EpochCheckpointJob& c = j.checkpoint.emplace();
  c.every_batches = 10;
  c.first_step = 7;
  c.first_step_uri = "gs://bucket/ckpt/step-7";
  c.save.save = true;
  c.save.run_id = "run-1";
  c.save.step = 7;
  c.save.step_uri = c.first_step_uri;
  c.save.io.block_size = 1 << 20;
  return j;
}

TEST(DataloadCodec, AJobArrivesAsItLeft) {
  const DataloadJob j = OffDefaultDataloadJob();
  auto back = DecodeDataloadJob(EncodeDataloadJob(j));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->dataset_uri, j.dataset_uri);
  EXPECT_EQ(back->first_rank, 4u);
  EXPECT_EQ(back->ranks, 4u);
  EXPECT_EQ(back->world, 12u);
  EXPECT_EQ(back->epoch, 3u);
  EXPECT_EQ(back->seed, 99u);
  EXPECT_EQ(back->loader.access, DataAccess::kIterable);
  EXPECT_EQ(back->loader.batch_size, 64);
  EXPECT_EQ(back->loader.num_workers, 7);
  EXPECT_EQ(back->loader.prefetch_factor, 5);
  EXPECT_EQ(back->loader.compute_time, 0.25);
  EXPECT_EQ(back->loader.preprocess_time, 0.002);
  EXPECT_FALSE(back->loader.shuffle);
  EXPECT_FALSE(back->loader.drop_last);
  EXPECT_EQ(back->loader.shuffle_buffer, 333);
  EXPECT_EQ(back->block_size, 1u << 20);
  EXPECT_EQ(back->backend, j.backend);
  EXPECT_EQ(back->cache_mode, CacheMode::kFadvise);
  EXPECT_TRUE(back->listed);
  EXPECT_EQ(back->listed_format, DatasetFormat::kFiles);
  EXPECT_EQ(back->list_limits, j.list_limits);
  ASSERT_TRUE(back->checkpoint.has_value());
  EXPECT_EQ(back->checkpoint->every_batches, 10u);
  EXPECT_EQ(back->checkpoint->first_step, 7u);
  EXPECT_EQ(back->checkpoint->first_step_uri, j.checkpoint->first_step_uri);
  EXPECT_TRUE(back->checkpoint->save.save);
  EXPECT_EQ(back->checkpoint->save.run_id, "run-1");
  EXPECT_EQ(back->checkpoint->save.step_uri, j.checkpoint->first_step_uri);

  // A job without a listing or checkpoints carries neither.
  DataloadJob plain = OffDefaultDataloadJob();
  plain.listed = false;
  plain.checkpoint.reset();
  auto p = DecodeDataloadJob(EncodeDataloadJob(plain));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->listed);
  EXPECT_EQ(p->list_limits, ListLimits());
  EXPECT_FALSE(p->checkpoint.has_value());
}

TEST(DataloadCodec, AJobOutsideItsKeysIsRefusedNamingTheKey) {
  struct Case {
    void (*spoil)(DataloadJob*);
    std::string want;
  };
  const Case cases[] = {
      {[](DataloadJob* j) { j->first_rank = 12; },
       "ranks 12 + 4 of a world of 12 are no share"},
      {[](DataloadJob* j) { j->ranks = 9; }, "are no share"},
      {[](DataloadJob* j) { j->loader.num_workers = 257; },
       "dataload.num_workers = '257': expected an integer from 1 to 256"},
      {[](DataloadJob* j) { j->loader.prefetch_factor = 0; },
       "dataload.prefetch_factor = '0': expected an integer from 1 to 64"},
      {[](DataloadJob* j) { j->loader.batch_size = 0; },
       "dataload.batch_size = '0'"},
      {[](DataloadJob* j) { j->loader.shuffle_buffer = 1 << 25; },
       "dataload.shuffle_buffer = '33554432': expected an integer from 1 to "
       "16777216"},
      {[](DataloadJob* j) { j->loader.compute_time = 3601; },
       "dataload.compute_time = '3601': expected a duration from 0 to 3600 s"},
      {[](DataloadJob* j) {
         j->loader.preprocess_time = std::numeric_limits<double>::quiet_NaN();
       },
       "dataload.preprocess_time = 'nan'"},
      {[](DataloadJob* j) { j->block_size = 100; },
       "io.block_size = '100': expected a byte size from 4KiB to 1GiB"},
      {[](DataloadJob* j) { j->checkpoint->every_batches = 0; },
       "dataload: a checkpoint every 0 batches"},
      {[](DataloadJob* j) { j->checkpoint->save.save = false; },
       "dataload: an epoch's checkpoint job that is not a save"},
      {[](DataloadJob* j) { j->checkpoint->save.workload = "dataload"; },
       "dataload: an epoch's checkpoint job that is not a save"},
  };
  for (const Case& c : cases) {
    DataloadJob j = OffDefaultDataloadJob();
    c.spoil(&j);
    auto back = DecodeDataloadJob(EncodeDataloadJob(j));
    ASSERT_FALSE(back.ok()) << c.want;
    EXPECT_EQ(back.status().code(), absl::StatusCode::kInvalidArgument)
        << back.status();
    EXPECT_NE(back.status().message().find(c.want), std::string::npos)
        << back.status();
  }
  // An access or a listed format this build does not know, a worker count
  // past int's range, and bytes that are no job.
  ckptbench::v1::DataloadJob w;
  ASSERT_TRUE(w.ParseFromString(EncodeDataloadJob(OffDefaultDataloadJob())));
  ckptbench::v1::DataloadJob access = w;
  access.set_access(static_cast<ckptbench::v1::DataAccess>(7));
  auto a = DecodeDataloadJob(access.SerializeAsString());
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("an access of 7"), std::string::npos)
      << a.status();
  ckptbench::v1::DataloadJob format = w;
  format.set_listed_format(static_cast<ckptbench::v1::DatasetFormat>(9));
  auto f = DecodeDataloadJob(format.SerializeAsString());
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("a listed dataset of format 9"),
            std::string::npos)
      << f.status();
  ckptbench::v1::DataloadJob workers = w;
  workers.set_num_workers(4000000000u);
  auto n = DecodeDataloadJob(workers.SerializeAsString());
  ASSERT_FALSE(n.ok());
  EXPECT_NE(n.status().message().find("dataload.num_workers = '4000000000'"),
            std::string::npos)
      << n.status();
  EXPECT_FALSE(DecodeDataloadJob(std::string("\xff\xff\xff", 3)).ok());
}

// The node's bounds are the configuration's: the key table refuses what
// the node would.
TEST(DataloadCodec, TheLoadersBoundsAreTheKeyTables) {
  for (const auto& [override_, want] :
       std::vector<std::pair<std::string, std::string>>{
           {"CKPT_COMPUTE_TIME=2h",
            "(dataload.compute_time) = '2h': expected a duration from 0 to "
            "3600 s"},
           {"CKPT_PREPROCESS_TIME=3601",
            "(dataload.preprocess_time) = '3601': expected a duration from 0 "
            "to 3600 s"},
           {"CKPT_SHUFFLE_BUFFER=16777217",
            "(dataload.shuffle_buffer) = '16777217': expected an integer from "
            "1 to 16777216"}}) {
    auto c = LoadConfig(
        {"", {override_}, [](const char*) { return nullptr; }, {}, {}});
    ASSERT_FALSE(c.ok()) << override_;
    EXPECT_NE(c.status().message().find(want), std::string::npos) << c.status();
  }
  auto ok =
      LoadConfig({"",
                  {"CKPT_COMPUTE_TIME=1h", "CKPT_SHUFFLE_BUFFER=16777216"},
                  [](const char*) { return nullptr; },
                  {},
                  {}});
  EXPECT_TRUE(ok.ok()) << ok.status();
}

TEST(DataloadCodec, APrepareOutcomeArrivesAsItLeft) {
  DataloadPrepared p;
  p.manifest = "{\"manifest\": 2}";
  p.dataset_seconds = 0.375;
  auto back = DecodeDataloadPrepared(EncodeDataloadPrepared(p));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->manifest, p.manifest);
  EXPECT_EQ(back->dataset_seconds, 0.375);
  EXPECT_FALSE(back->listing.has_value());

  DataloadPrepared l;
  DatasetListing& d = l.listing.emplace();
  d = {1, 2, 3, 4, 5, 6, 7.5, 8, 9.5, 10, 11, true, 12, 13, "shard-9.tar"};
  auto listed = DecodeDataloadPrepared(EncodeDataloadPrepared(l));
  ASSERT_TRUE(listed.ok()) << listed.status();
  ASSERT_TRUE(listed->listing.has_value());
  const DatasetListing& g = *listed->listing;
  EXPECT_EQ(g.objects, 1u);
  EXPECT_EQ(g.bytes, 2u);
  EXPECT_EQ(g.samples, 3u);
  EXPECT_EQ(g.sample_bytes, 4u);
  EXPECT_EQ(g.ignored, 5u);
  EXPECT_EQ(g.digest, 6u);
  EXPECT_EQ(g.list_seconds, 7.5);
  EXPECT_EQ(g.list_requests, 8u);
  EXPECT_EQ(g.index_seconds, 9.5);
  EXPECT_EQ(g.index_requests, 10u);
  EXPECT_EQ(g.index_bytes, 11u);
  EXPECT_TRUE(g.index_reused);
  EXPECT_EQ(g.overlong_objects, 12u);
  EXPECT_EQ(g.overlong_bytes, 13u);
  EXPECT_EQ(g.overlong_first, "shard-9.tar");
}

TEST(DataloadCodec, AHostileOutcomeIsRefused) {
  DataloadPrepared big;
  big.manifest.assign(kMaxDatasetManifestBytes + 1, 'x');
  auto back = DecodeDataloadPrepared(EncodeDataloadPrepared(big));
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(DecodeDataloadPrepared(std::string("\xff\xff", 2)).ok());
}

}  // namespace
}  // namespace ckpt
