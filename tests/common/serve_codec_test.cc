// The serve workload's messages cross the wire and back whole
// (wire/serve_codec.h): a job, a prepare outcome and a report with every
// field off its default arrive as they left; a job whose share is none,
// whose ranks, concurrency or chunk are outside their bounds, or whose
// kinds this build does not know is refused naming what was wrong; a
// report of more ranks than a replica may have, and bytes that do not
// parse, are refused.
#include "wire/serve_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/serving/serve_options.h"
#include "proto/ckptbench/v1/serving.pb.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

ServeJob OffDefaultServeJob() {
  ServeJob j;
  j.action = ServeAction::kMake;
  j.model_uri = "gs://bucket/models/m";
  j.generated = false;
  j.model.preset = "llama-3.1-8b";
  j.model.num_layers = 7;
  j.model.dtype = ModelDtype::kFp16;
  j.model.file_bytes = 123456;
  j.model.seed = 99;
  j.share_index = 1;
  j.share_count = 3;
  j.manifest_owner = true;
  j.write_threads = 5;
  j.block_size = 1 << 20;
  j.fsync = false;
  j.ranks = 4;
  j.read_mode = ServeReadMode::kDownload;
  j.split = ServeSplit::kFiles;
  j.concurrency = 12;
  j.chunk_bytes = 1 << 16;
  j.download_path = "/var/tmp/replica";
  j.hold = true;
  j.on_gpu = true;
  j.cache_mode = CacheMode::kFadvise;
  j.backend.flavour = StorageFlavour::kFuse;
  j.backend.s3.region = "eu-west-3";
  return j;
}

TEST(ServeCodec, AJobArrivesAsItLeft) {
  const ServeJob j = OffDefaultServeJob();
  auto back = DecodeServeJob(EncodeServeJob(j));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->action, ServeAction::kMake);
  EXPECT_EQ(back->model_uri, j.model_uri);
  EXPECT_FALSE(back->generated);
  EXPECT_EQ(back->model, j.model);
  EXPECT_EQ(back->share_index, 1u);
  EXPECT_EQ(back->share_count, 3u);
  EXPECT_TRUE(back->manifest_owner);
  EXPECT_EQ(back->write_threads, 5u);
  EXPECT_EQ(back->block_size, 1u << 20);
  EXPECT_FALSE(back->fsync);
  EXPECT_EQ(back->ranks, 4u);
  EXPECT_EQ(back->read_mode, ServeReadMode::kDownload);
  EXPECT_EQ(back->split, ServeSplit::kFiles);
  EXPECT_EQ(back->concurrency, 12u);
  EXPECT_EQ(back->chunk_bytes, 1u << 16);
  EXPECT_EQ(back->download_path, "/var/tmp/replica");
  EXPECT_TRUE(back->hold);
  EXPECT_TRUE(back->on_gpu);
  EXPECT_EQ(back->cache_mode, CacheMode::kFadvise);
  EXPECT_EQ(back->backend, j.backend);
}

TEST(ServeCodec, AJobOutsideItsBoundsIsRefusedNamingWhat) {
  auto refused = [](const ServeJob& j) {
    auto back = DecodeServeJob(EncodeServeJob(j));
    EXPECT_FALSE(back.ok());
    return std::string(back.status().message());
  };
  ServeJob j = OffDefaultServeJob();
  j.share_index = 3;
  EXPECT_THAT(refused(j), HasSubstr("share 3 of 3"));
  j = OffDefaultServeJob();
  j.ranks = 0;
  EXPECT_THAT(refused(j), HasSubstr("ranks 0"));
  j.ranks = kMaxServeRanks + 1;
  EXPECT_THAT(refused(j), HasSubstr("ranks"));
  j = OffDefaultServeJob();
  j.concurrency = kMaxStreamConcurrency + 1;
  EXPECT_THAT(refused(j), HasSubstr("serve.concurrency"));
  j = OffDefaultServeJob();
  j.chunk_bytes = 100;
  EXPECT_THAT(refused(j), HasSubstr("serve.chunk_size"));
  j = OffDefaultServeJob();
  j.write_threads = 0;
  EXPECT_THAT(refused(j), HasSubstr("serve.write_threads"));
  // download: the node's directory an absolute path.
  j = OffDefaultServeJob();
  j.download_path = "relative/dir";
  EXPECT_THAT(refused(j), HasSubstr("serve.download_path"));
  j.download_path = "";
  EXPECT_THAT(refused(j), HasSubstr("serve.download_path"));
  j.download_path = "//";  // the root itself: its copy could not be removed
  EXPECT_THAT(refused(j), HasSubstr("serve.download_path"));
  // Kinds this build does not know.
  v1::ServeJob w;
  ASSERT_TRUE(w.ParseFromString(EncodeServeJob(OffDefaultServeJob())));
  w.set_read_mode(static_cast<v1::ServeReadMode>(9));
  auto back = DecodeServeJob(w.SerializeAsString());
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("serve.read_mode"));
  w.set_read_mode(v1::SERVE_READ_MODE_STREAM);
  w.set_action(v1::SERVE_ACTION_UNSPECIFIED);
  back = DecodeServeJob(w.SerializeAsString());
  ASSERT_FALSE(back.ok());
  EXPECT_THAT(back.status().message(), HasSubstr("action"));
  EXPECT_FALSE(DecodeServeJob("\xff\xff\xff").ok());
}

TEST(ServeCodec, APrepareOutcomeAndAReportArriveAsTheyLeft) {
  ServePrepared p{true, true, 3, 40, 5000, 300, 4800, 77};
  auto pb = DecodeServePrepared(EncodeServePrepared(p));
  ASSERT_TRUE(pb.ok()) << pb.status();
  EXPECT_TRUE(pb->manifest_found);
  EXPECT_TRUE(pb->reuse);
  EXPECT_EQ(pb->files, 3u);
  EXPECT_EQ(pb->tensors, 40u);
  EXPECT_EQ(pb->model_bytes, 5000u);
  EXPECT_EQ(pb->header_bytes, 300u);
  EXPECT_EQ(pb->read_bytes, 4800u);
  EXPECT_EQ(pb->ranges, 77u);

  ServeReport r;
  r.header_reads = 6;
  r.header_bytes = 300;
  r.headers_seconds = 0.25;
  r.ranks = {{100, 3, 0.5, 1.5, 0, 0, 0}, {200, 4, 0.75, 2.5, 7, 5, 150}};
  r.verified = true;
  r.files = 2;
  r.bytes = 999;
  r.download_seconds = 0.125;
  r.download_bytes = 5300;
  r.download_requests = 21;
  r.download_retries = 9;
  r.download_throttles = 8;
  r.download_cached_bytes = 4000;
  r.cached_at_start_bytes = 2500;
  r.objects = {{"model-00001-of-00002.safetensors", 40, 3, 2}};
  auto rb = DecodeServeReport(EncodeServeReport(r));
  ASSERT_TRUE(rb.ok()) << rb.status();
  EXPECT_EQ(rb->header_reads, 6u);
  EXPECT_EQ(rb->header_bytes, 300u);
  EXPECT_EQ(rb->headers_seconds, 0.25);
  ASSERT_EQ(rb->ranks.size(), 2u);
  EXPECT_EQ(rb->ranks[1].bytes, 200u);
  EXPECT_EQ(rb->ranks[1].requests, 4u);
  EXPECT_EQ(rb->ranks[1].first_byte_seconds, 0.75);
  EXPECT_EQ(rb->ranks[1].last_byte_seconds, 2.5);
  EXPECT_EQ(rb->ranks[1].retries, 7u);
  EXPECT_EQ(rb->ranks[1].throttles, 5u);
  EXPECT_TRUE(rb->verified);
  EXPECT_EQ(rb->files, 2u);
  EXPECT_EQ(rb->bytes, 999u);
  EXPECT_EQ(rb->download_seconds, 0.125);
  EXPECT_EQ(rb->download_bytes, 5300u);
  EXPECT_EQ(rb->download_requests, 21u);
  EXPECT_EQ(rb->download_retries, 9u);
  EXPECT_EQ(rb->download_throttles, 8u);
  EXPECT_EQ(rb->ranks[1].cached_bytes, 150u);
  EXPECT_EQ(rb->download_cached_bytes, 4000u);
  EXPECT_EQ(rb->cached_at_start_bytes, 2500u);
  ASSERT_EQ(rb->objects.size(), 1u);
  EXPECT_EQ(rb->objects[0].name, "model-00001-of-00002.safetensors");
  EXPECT_EQ(rb->objects[0].requests, 40u);
  EXPECT_EQ(rb->objects[0].retries, 3u);
  EXPECT_EQ(rb->objects[0].throttles, 2u);

  // A node that says it found more cached than it read is refused.
  ServeReport more = r;
  more.ranks[0].cached_bytes = 101;
  EXPECT_THAT(DecodeServeReport(EncodeServeReport(more)).status().message(),
              ::testing::HasSubstr("101 bytes cached of the 100 it read"));
  more = r;
  more.download_cached_bytes = 5301;
  EXPECT_FALSE(DecodeServeReport(EncodeServeReport(more)).ok());
  // Objects past their bounds: unnamed, a name past its length, too many.
  more = r;
  more.objects[0].name.clear();
  EXPECT_FALSE(DecodeServeReport(EncodeServeReport(more)).ok());
  more.objects[0].name.assign(kMaxModelObjectName + 1, 'x');
  EXPECT_FALSE(DecodeServeReport(EncodeServeReport(more)).ok());
  more.objects = {r.objects[0], r.objects[0]};  // one object twice
  EXPECT_THAT(DecodeServeReport(EncodeServeReport(more)).status().message(),
              ::testing::HasSubstr("twice"));
  more.objects = {{"m.safetensors", 2, 0, 3}};  // more throttles than sent
  EXPECT_FALSE(DecodeServeReport(EncodeServeReport(more)).ok());
  more.objects = {{"m.safetensors", 2, 3, 0}};  // more retries than sent
  EXPECT_FALSE(DecodeServeReport(EncodeServeReport(more)).ok());
  more.objects.assign(kMaxModelReportObjects + 1, r.objects[0]);
  EXPECT_THAT(DecodeServeReport(EncodeServeReport(more)).status().message(),
              ::testing::HasSubstr("a model has at most"));

  r.ranks.assign(kMaxServeRanks + 1, ServeRankReport{});
  EXPECT_FALSE(DecodeServeReport(EncodeServeReport(r)).ok());
  EXPECT_FALSE(DecodeServeReport("\xff\xff").ok());
  EXPECT_FALSE(DecodeServePrepared("\xff\xff").ok());
}

}  // namespace
}  // namespace ckpt
