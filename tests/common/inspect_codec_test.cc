// A look at a checkpoints directory crosses the wire and back whole: every
// field of the coordinator's job and of the node's answer, set off its
// default, arrives as it left (wire/inspect_codec.h); a listing whose
// values the coordinator cannot use is refused, naming the value.
#include "wire/inspect_codec.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/step_layout.h"

namespace ckpt {
namespace {

TEST(InspectCodec, EveryFieldOfTheJobCrossesTheWireAndBack) {
  InspectJob job;
  job.run_id = "run-7";
  job.steps_uri = "s3://b/p/checkpoints";
  job.probe_write = true;
  job.want_metadata = true;
  job.metadata_step = 12;
  job.backend.flavour = StorageFlavour::kFuse;
  job.backend.s3.region = "eu-west-3";
  job.backend.gcs.anonymous = true;
  job.accelerator = Accelerator::kGpu;
  job.visible = {9, 4096, 0xfeedULL, "__0_0.distcp", 1 << 20, 2.5};
  auto back = FromWire(ToWire(job));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->run_id, job.run_id);
  EXPECT_EQ(back->steps_uri, job.steps_uri);
  EXPECT_TRUE(back->probe_write);
  EXPECT_TRUE(back->want_metadata);
  EXPECT_EQ(back->metadata_step, 12u);
  EXPECT_EQ(back->backend, job.backend);
  EXPECT_EQ(back->accelerator, Accelerator::kGpu);
  EXPECT_EQ(back->visible.step, 9u);
  EXPECT_EQ(back->visible.metadata_size, 4096u);
  EXPECT_EQ(back->visible.metadata_xxh3, 0xfeedULL);
  EXPECT_EQ(back->visible.shard, "__0_0.distcp");
  EXPECT_EQ(back->visible.shard_size, 1u << 20);
  EXPECT_EQ(back->visible.timeout_seconds, 2.5);
}

TEST(InspectCodec, AJobWithAValueThisBuildDoesNotKnowIsRefusedNamingIt) {
  v1::InspectRequest w = ToWire(InspectJob());
  w.set_accelerator(static_cast<v1::Accelerator>(77));
  auto job = FromWire(w);
  ASSERT_FALSE(job.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(job.status())) << job.status();
  EXPECT_NE(job.status().message().find("accelerator"), std::string::npos)
      << job.status();
}

TEST(InspectCodec, EveryFieldOfTheAnswerCrossesTheWireAndBack) {
  Inspection in;
  in.listing.steps = {{3, true}, {4, false}};
  in.listing.newest_committed = 3;
  in.listing.newest_metadata = std::string("meta\0data", 9);
  in.listing.metadata_step = 3;
  in.listing.ignored = {"step-9007199254740993"};
  in.gpus = "2 x NVIDIA H100 80GB HBM3";
  in.visible = {true, 1'700'000'000'000'000'000, 0.25, 3, 0.01, "shard"};
  const Inspection back = FromWire(ToWire(in)).value();
  EXPECT_EQ(back.listing.steps, in.listing.steps);
  EXPECT_EQ(back.listing.newest_committed, 3u);
  EXPECT_EQ(back.listing.newest_metadata, in.listing.newest_metadata);
  EXPECT_EQ(back.listing.metadata_step, 3u);
  EXPECT_EQ(back.listing.ignored, in.listing.ignored);
  EXPECT_EQ(back.gpus, in.gpus);
  EXPECT_TRUE(back.visible.visible);
  EXPECT_EQ(back.visible.at_unix_ns, in.visible.at_unix_ns);
  EXPECT_EQ(back.visible.poll_seconds, 0.25);
  EXPECT_EQ(back.visible.polls, 3u);
  EXPECT_EQ(back.visible.last_poll_seconds, 0.01);
  EXPECT_EQ(back.visible.lacked, "shard");
}

// A listing whose values the coordinator cannot use is refused by the
// codec, saying which value and what was expected.
TEST(InspectCodec, AListingOutOfRangeIsRefusedNamingTheValue) {
  struct Case {
    const char* says;
    void (*spoil)(v1::InspectReply*);
  };
  for (const Case& c : std::vector<Case>{
           {"step 0", [](v1::InspectReply* r) { r->add_steps()->set_step(0); }},
           {"step 9007199254740992",
            [](v1::InspectReply* r) {
              r->add_steps()->set_step(kMaxStep + 1);
            }},
           {"newest committed step 18446744073709551615",
            [](v1::InspectReply* r) { r->set_newest_committed(UINT64_MAX); }},
           {".metadata of step 9007199254740992",
            [](v1::InspectReply* r) { r->set_metadata_step(kMaxStep + 1); }}}) {
    v1::InspectReply w;
    w.add_steps()->set_step(3);
    auto ok = FromWire(w);
    ASSERT_TRUE(ok.ok()) << ok.status();
    c.spoil(&w);
    auto refused = FromWire(w);
    ASSERT_FALSE(refused.ok()) << c.says;
    EXPECT_TRUE(absl::IsDataLoss(refused.status())) << refused.status();
    EXPECT_NE(refused.status().message().find(
                  absl::StrCat("a listing the coordinator cannot use: ", c.says,
                               "; steps run from 1 to ", kMaxStep)),
              std::string::npos)
        << refused.status();
  }
}

}  // namespace
}  // namespace ckpt
