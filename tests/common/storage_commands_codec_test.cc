// The storage steps outside a round cross the wire and back whole: every
// field of each job and outcome, set off its default, arrives as it left
// (wire/storage_commands_codec.h); a claim taken by another run crosses as
// an answer, its holder's words scrubbed of credentials.
#include "wire/storage_commands_codec.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/secrets.h"

namespace ckpt {
namespace {

BackendOptions OffDefaultBackend() {
  BackendOptions b;
  b.flavour = StorageFlavour::kLocal;
  b.s3.endpoint = "http://127.0.0.1:9000";
  b.gcs.anonymous = true;
  return b;
}

TEST(StorageCommandsCodec, EveryJobCrossesTheWireAndBack) {
  CommitJob commit{"run-1", 7, "s3://b/c/step-3", std::string("m\0d", 3),
                   OffDefaultBackend()};
  auto c = FromWire(ToWire(commit));
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->run_id, "run-1");
  EXPECT_EQ(c->round_id, 7u);
  EXPECT_EQ(c->step_uri, commit.step_uri);
  EXPECT_EQ(c->metadata, commit.metadata);
  EXPECT_EQ(c->backend, commit.backend);

  ClaimJob claim{"run-1", "s3://b/c",     4,
                 true,    ".claim-run-1", OffDefaultBackend()};
  auto cl = FromWire(ToWire(claim));
  ASSERT_TRUE(cl.ok()) << cl.status();
  EXPECT_EQ(cl->run_id, "run-1");
  EXPECT_EQ(cl->steps_uri, "s3://b/c");
  EXPECT_EQ(cl->step, 4u);
  EXPECT_TRUE(cl->release);
  EXPECT_EQ(cl->claim_name, ".claim-run-1");
  EXPECT_EQ(cl->backend, claim.backend);

  CleanupJob cleanup{"run-1", "gs://b/c",
                     {2, 3},  {"__0_0.distcp", ".claim-x"},
                     true,    OffDefaultBackend()};
  auto cu = FromWire(ToWire(cleanup));
  ASSERT_TRUE(cu.ok()) << cu.status();
  EXPECT_EQ(cu->run_id, "run-1");
  EXPECT_EQ(cu->steps_uri, "gs://b/c");
  EXPECT_EQ(cu->remove_steps, cleanup.remove_steps);
  EXPECT_EQ(cu->file_names, cleanup.file_names);
  EXPECT_TRUE(cu->abort_uploads);
  EXPECT_EQ(cu->backend, cleanup.backend);

  PutResultJob put{"s3://b/results",   "result.json", "{}", true, true,
                   OffDefaultBackend()};
  auto p = FromWire(ToWire(put));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->dir_uri, put.dir_uri);
  EXPECT_EQ(p->name, "result.json");
  EXPECT_EQ(p->data, "{}");
  EXPECT_TRUE(p->check_only);
  EXPECT_TRUE(p->overwrite);
  EXPECT_EQ(p->backend, put.backend);
}

TEST(StorageCommandsCodec, BackendSettingsTheNodeRefusesFailTheJob) {
  v1::ClaimRequest w = ToWire(ClaimJob());
  w.mutable_backend()->mutable_s3()->set_addressing(
      static_cast<v1::S3Addressing>(99));
  auto job = FromWire(w);
  ASSERT_FALSE(job.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(job.status())) << job.status();
  EXPECT_NE(job.status().message().find("s3.addressing"), std::string::npos)
      << job.status();
}

// A Secret's name that is not one (a peer's, or a coordinator of another
// version) is refused by the node before it is ever printed.
TEST(StorageCommandsCodec, AKeysSecretThatIsNoSecretNameFailsTheJob) {
  for (const std::string& bad :
       std::vector<std::string>{"Ckptbench-S3", "-s3", "s3-", "a b", "s3/keys",
                                "x\x1b[2J", std::string(254, 'a')}) {
    v1::ClaimRequest w = ToWire(ClaimJob());
    w.mutable_backend()->mutable_s3()->set_keys_secret(bad);
    auto job = FromWire(w);
    ASSERT_FALSE(job.ok()) << bad;
    EXPECT_TRUE(absl::IsInvalidArgument(job.status())) << job.status();
    EXPECT_NE(job.status().message().find("s3.keys_secret"), std::string::npos)
        << job.status();
  }
  for (const std::string& good : std::vector<std::string>{
           "", "ckptbench-s3", "a", "team-a.s3-keys", std::string(253, 'a')}) {
    v1::ClaimRequest w = ToWire(ClaimJob());
    w.mutable_backend()->mutable_s3()->set_keys_secret(good);
    auto job = FromWire(w);
    ASSERT_TRUE(job.ok()) << good << ": " << job.status();
    EXPECT_EQ(job->backend.s3.keys_secret, good);
  }
}

TEST(StorageCommandsCodec, EveryOutcomeCrossesTheWireAndBack) {
  const ClaimOutcome won = FromWire(ToWire(ClaimOutcome{false, "", ".c-r1"}));
  EXPECT_FALSE(won.taken);
  EXPECT_EQ(won.claim_name, ".c-r1");
  const v1::ClaimReply wire = ToWire(ClaimOutcome{true, "held by run-b", ""});
  EXPECT_TRUE(wire.taken());
  // What an older coordinator read with `taken` (the node's AlreadyExists).
  EXPECT_EQ(wire.error_kind(), v1::ERROR_KIND_BAD_INPUT);
  const ClaimOutcome taken = FromWire(wire);
  EXPECT_TRUE(taken.taken);
  EXPECT_EQ(taken.holder, "held by run-b");
  EXPECT_EQ(FromWire(ToWire(CleanupOutcome{5})).aborted_uploads, 5);
  EXPECT_TRUE(FromWire(ToWire(PutResultOutcome{true})).exists);
  EXPECT_FALSE(FromWire(ToWire(PutResultOutcome{false})).exists);
}

TEST(StorageCommandsCodec, AHoldersWordsLeaveTheNodeWithoutASecret) {
  RegisterSecret("AKIDEXAMPLEHOLDER42");
  const v1::ClaimReply wire = ToWire(
      ClaimOutcome{true, "claimed by run-b (key AKIDEXAMPLEHOLDER42)", ""});
  EXPECT_EQ(wire.error().find("AKIDEXAMPLEHOLDER42"), std::string::npos)
      << wire.error();
  EXPECT_NE(wire.error().find("claimed by run-b"), std::string::npos);
}

}  // namespace
}  // namespace ckpt
