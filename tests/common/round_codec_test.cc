// The round protocol's own messages cross the wire and back whole
// (wire/round_codec.h): every field, set off its default, arrives as it
// left; what a workload leaves out (no storage, a save's cache method)
// reads as absent or none; a kind this build does not know is refused
// naming its field; a refused ask keeps its kind, its words scrubbed.
#include "wire/round_codec.h"

#include <gtest/gtest.h>

#include "common/error_kind.h"
#include "common/secrets.h"

namespace ckpt {
namespace {

TEST(RoundCodec, APreparedNodeCrossesTheWireAndBack) {
  PrepareOutcome o;
  o.storage_kind = StorageKind::kFuse;
  o.filesystem = {"fuse.s3fs", "/mnt/ckpt", "rw,nosuid"};
  o.cache = {CacheMethod::kFadviseDontneed, 4096, 1 << 20, "a FUSE cache",
             "fuse.s3fs: fadvise left 4096 bytes"};
  auto back = FromWire(ToWire(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->storage_kind, StorageKind::kFuse);
  EXPECT_EQ(back->filesystem.type, "fuse.s3fs");
  EXPECT_EQ(back->filesystem.mount_point, "/mnt/ckpt");
  EXPECT_EQ(back->filesystem.options, "rw,nosuid");
  EXPECT_EQ(back->cache.method, CacheMethod::kFadviseDontneed);
  EXPECT_EQ(back->cache.resident_bytes, 4096u);
  EXPECT_EQ(back->cache.checked_bytes, 1u << 20);
  EXPECT_EQ(back->cache.note, "a FUSE cache");
  EXPECT_EQ(back->cache.probe, o.cache.probe);
}

TEST(RoundCodec, WhatAWorkloadLeavesOutIsAbsentAndUnknownKindsAreRefused) {
  auto none = FromWire(v1::PrepareReply());  // a workload's: nothing opened
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_FALSE(none->storage_kind.has_value());
  EXPECT_EQ(none->cache.method, CacheMethod::kNone);
  EXPECT_EQ(ToWire(*none).storage_kind(), v1::STORAGE_KIND_UNSPECIFIED);
  // ... and goes back out as the empty reply it came as.
  EXPECT_EQ(ToWire(*none).cache_method(), v1::CACHE_METHOD_UNSPECIFIED);
  EXPECT_EQ(ToWire(*none).ByteSizeLong(), 0u);

  v1::PrepareReply odd;
  odd.set_storage_kind(static_cast<v1::StorageKind>(77));
  auto refused = FromWire(odd);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("storage_kind"), std::string::npos)
      << refused.status();
  // A node that opened storage says how it kept reads cold.
  odd = v1::PrepareReply();
  odd.set_storage_kind(v1::STORAGE_KIND_POSIX);
  refused = FromWire(odd);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cache_method"), std::string::npos)
      << refused.status();
  odd = v1::PrepareReply();
  odd.set_cache_method(static_cast<v1::CacheMethod>(77));
  refused = FromWire(odd);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("cache_method"), std::string::npos)
      << refused.status();
}

TEST(RoundCodec, StartProgressAndAsksCrossTheWireAndBack) {
  const PhaseStart s{"run-9", 12, 1'700'000'000'123'456'789, 0.25};
  const PhaseStart sb = FromWire(ToWire(s));
  EXPECT_EQ(sb.run_id, "run-9");
  EXPECT_EQ(sb.round_id, 12u);
  EXPECT_EQ(sb.start_at_unix_ns, s.start_at_unix_ns);
  EXPECT_EQ(sb.progress_interval_seconds, 0.25);

  const PhaseProgress p{12, {{3, 100, 400}, {7, 5, 0}}};
  const PhaseProgress pb = FromWire(ToWire(p));
  EXPECT_EQ(pb.round_id, 12u);
  ASSERT_EQ(pb.ranks.size(), 2u);
  EXPECT_EQ(pb.ranks[0].rank, 3u);
  EXPECT_EQ(pb.ranks[0].bytes_done, 100u);
  EXPECT_EQ(pb.ranks[0].bytes_total, 400u);
  EXPECT_EQ(pb.ranks[1].rank, 7u);
  EXPECT_EQ(pb.ranks[1].bytes_done, 5u);

  const ActionAsk a{12, 4, std::string("c\0unt", 5)};
  const ActionAsk ab = FromWire(ToWire(a));
  EXPECT_EQ(ab.round_id, 12u);
  EXPECT_EQ(ab.action_id, 4u);
  EXPECT_EQ(ab.payload, a.payload);

  const ActionAnswer ok{12, 4, absl::OkStatus(), "go"};
  const ActionAnswer okb = FromWire(ToWire(ok));
  EXPECT_EQ(okb.round_id, 12u);
  EXPECT_EQ(okb.action_id, 4u);
  EXPECT_TRUE(okb.status.ok());
  EXPECT_EQ(okb.payload, "go");
}

TEST(RoundCodec, ARefusedAskKeepsItsKindAndLeavesWithoutASecret) {
  RegisterSecret("AKIDEXAMPLEASKER77");
  const ActionAnswer no{
      3,
      9,
      absl::PermissionDeniedError("no checkpoint now (AKIDEXAMPLEASKER77)"),
      {}};
  const v1::ActionReply wire = ToWire(no);
  EXPECT_EQ(wire.error_kind(), v1::ERROR_KIND_AUTH);
  EXPECT_EQ(wire.error().find("AKIDEXAMPLEASKER77"), std::string::npos)
      << wire.error();
  const ActionAnswer back = FromWire(wire);
  EXPECT_TRUE(absl::IsPermissionDenied(back.status)) << back.status;
  EXPECT_EQ(ErrorKindOf(back.status), ErrorKind::kAuth);
  EXPECT_NE(back.status.message().find("no checkpoint now"), std::string::npos);
  EXPECT_EQ(back.action_id, 9u);
  // A refusal without words still refuses: an empty `error` would read as
  // an answer.
  const v1::ActionReply bare =
      ToWire(ActionAnswer{3, 10, absl::InternalError(""), {}});
  EXPECT_FALSE(bare.error().empty());
  EXPECT_FALSE(FromWire(bare).status.ok());
}

}  // namespace
}  // namespace ckpt
