// The named choices: each name parses back to its value, strings outside
// the table are refused, and the edges (JSON, StrFormat, the wire) write
// names or the wire enum, never a kind's number.
#include "common/kinds.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "wire/backend_codec.h"
#include "wire/file_record_codec.h"
#include "wire/kinds_codec.h"

namespace ckpt {
namespace {

template <typename E>
void ExpectRoundTrips(std::initializer_list<E> all, const std::string& names) {
  EXPECT_EQ(KindNames<E>(), names);
  for (E v : all) {
    const std::string name(Name(v));
    EXPECT_EQ(ParseKind<E>(name), v) << name;
    EXPECT_EQ(absl::StrFormat("[%-10s]", v),
              absl::StrFormat("[%-10s]", name));  // padded like a string
    EXPECT_EQ(nlohmann::json(v), nlohmann::json(name));
  }
  EXPECT_FALSE(ParseKind<E>("").has_value());
  EXPECT_FALSE(ParseKind<E>("bogus").has_value());
}

TEST(Kinds, EveryNameParsesBackAndIsWrittenAsAName) {
  ExpectRoundTrips({Phase::kSave, Phase::kLoad}, "save, load");
  ExpectRoundTrips({RunStatus::kOk, RunStatus::kFailed}, "ok, failed");
  ExpectRoundTrips({Accelerator::kCpu, Accelerator::kGpu}, "cpu, gpu");
  ExpectRoundTrips({HostStaging::kPinned, HostStaging::kPageable},
                   "pinned, pageable");
  ExpectRoundTrips({CacheMode::kAuto, CacheMode::kDrop, CacheMode::kFadvise,
                    CacheMode::kDirect, CacheMode::kNone},
                   "auto, drop, fadvise, direct, none");
  ExpectRoundTrips({Optimizer::kAdam, Optimizer::kSgd, Optimizer::kNone},
                   "adam, sgd, none");
  ExpectRoundTrips({ShardingStrategy::kFull, ShardingStrategy::kHybrid},
                   "full, hybrid");
  ExpectRoundTrips(
      {StorageFlavour::kAuto, StorageFlavour::kLocal, StorageFlavour::kFuse},
      "auto, local, fuse");
  ExpectRoundTrips(
      {RunMode::kSaveAndLoad, RunMode::kSaveOnly, RunMode::kLoadOnly},
      "save+load, save-only, load-only");
  ExpectRoundTrips({ReshardReads::kRanges, ReshardReads::kSegments},
                   "ranges, segments");
  ExpectRoundTrips(
      {RoundFlag::kClientBound, RoundFlag::kMemoryBacked,
       RoundFlag::kNotVisible, RoundFlag::kPageCacheAllowed,
       RoundFlag::kPageCacheResident, RoundFlag::kShortPhase,
       RoundFlag::kUnverified},
      "client_bound, memory_backed, not_visible, page_cache_allowed, "
      "page_cache_resident, short_phase, unverified");
  EXPECT_EQ(JoinNames(std::vector<RoundFlag>{RoundFlag::kShortPhase,
                                             RoundFlag::kUnverified},
                      ","),
            "short_phase,unverified");
  // Names are exact: no case folding, no spaces.
  EXPECT_FALSE(ParseKind<Accelerator>("GPU").has_value());
  EXPECT_FALSE(ParseKind<Accelerator>(" gpu").has_value());
}

// A node failure's kind is the one kind whose table has an empty name:
// unspecified (no node gave one) is written as "" in result.json.
TEST(Kinds, AnErrorKindsNameParsesBackAndUnspecifiedIsEmpty) {
  for (ErrorKind v :
       {ErrorKind::kRetryable, ErrorKind::kAuth, ErrorKind::kNotFound,
        ErrorKind::kNoSpace, ErrorKind::kBadInput, ErrorKind::kDataLoss,
        ErrorKind::kInternal}) {
    const std::string name(Name(v));
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(ParseKind<ErrorKind>(name), v) << name;
    EXPECT_EQ(nlohmann::json(v), nlohmann::json(name));
  }
  EXPECT_EQ(KindNames<ErrorKind>(),  // unspecified lists as nothing
            "retryable, auth, not_found, no_space, bad_input, data_loss, "
            "internal");
  EXPECT_EQ(Name(ErrorKind::kUnspecified), "");
  EXPECT_EQ(ParseKind<ErrorKind>(""), ErrorKind::kUnspecified);
  EXPECT_FALSE(ParseKind<ErrorKind>("Auth").has_value());
}

// Each value of E crosses the wire (its v1 enum) and back as itself.
template <typename E>
void ExpectCrossesTheWire(std::initializer_list<E> all) {
  for (E v : all) EXPECT_EQ(FromWire(ToWire(v), "f").value(), v) << Name(v);
}

TEST(KindsCodec, EachValueCrossesTheWireAndBack) {
  ExpectCrossesTheWire({Accelerator::kCpu, Accelerator::kGpu});
  ExpectCrossesTheWire({HostStaging::kPinned, HostStaging::kPageable});
  ExpectCrossesTheWire({CacheMode::kAuto, CacheMode::kDrop, CacheMode::kFadvise,
                        CacheMode::kDirect, CacheMode::kNone});
  ExpectCrossesTheWire({Phase::kSave, Phase::kLoad});
  EXPECT_EQ(ToWire(Accelerator::kGpu), v1::ACCELERATOR_GPU);
  EXPECT_EQ(ToWire(CacheMode::kNone), v1::CACHE_MODE_NONE);
  // The backend settings' choices (protocol version 4).
  ExpectCrossesTheWire(
      {StorageFlavour::kAuto, StorageFlavour::kLocal, StorageFlavour::kFuse});
  ExpectCrossesTheWire(
      {S3Addressing::kAuto, S3Addressing::kPath, S3Addressing::kVirtual});
  ExpectCrossesTheWire({PayloadSigning::kUnsigned, PayloadSigning::kSigned});
  ExpectCrossesTheWire(
      {S3Checksum::kNone, S3Checksum::kCrc32c, S3Checksum::kMd5});
  ExpectCrossesTheWire(
      {S3Claim::kAuto, S3Claim::kIfNoneMatch, S3Claim::kListing});
  ExpectCrossesTheWire({GcsUpload::kResumable, GcsUpload::kComposite});
  ExpectCrossesTheWire({ChecksumKind::kCrc32c, ChecksumKind::kXxh3});
  EXPECT_EQ(ToWire(S3Claim::kIfNoneMatch), v1::S3_CLAIM_IF_NONE_MATCH);
  EXPECT_EQ(ToWire(ChecksumKind::kXxh3), v1::CHECKSUM_XXH3);
}

// Every backend setting crosses the wire and back as it was, none at its
// default (a field the codec forgot would come back as the default).
TEST(BackendCodec, EverySettingCrossesTheWireAndBack) {
  BackendOptions o;
  o.flavour = StorageFlavour::kFuse;
  o.s3.endpoint = "http://127.0.0.1:9000";
  o.s3.region = "eu-west-3";
  o.s3.addressing = S3Addressing::kVirtual;
  o.s3.part_size = 16 << 20;
  o.s3.multipart_threshold = 32 << 20;
  o.s3.payload_signing = PayloadSigning::kSigned;
  o.s3.ca_bundle = "/etc/ssl/own.pem";
  o.s3.verify_tls = false;
  o.s3.stall_timeout = 7.5;
  o.s3.max_attempts = 3;
  o.s3.parts_in_flight = 9;
  o.s3.range_size = 4 << 20;
  o.s3.ranges_in_flight = 6;
  o.s3.spread_prefixes = 16;
  o.s3.checksum = S3Checksum::kMd5;
  o.s3.claim = S3Claim::kListing;
  o.s3.keys_secret = "team-a.s3-keys";
  o.gcs.endpoint = "http://127.0.0.1:4443";
  o.gcs.project = "proj-1";
  o.gcs.user_project = true;
  o.gcs.upload = GcsUpload::kComposite;
  o.gcs.single_threshold = 1 << 20;
  o.gcs.chunk_size = 512 << 10;
  o.gcs.parts_in_flight = 2;
  o.gcs.range_size = 2 << 20;
  o.gcs.ranges_in_flight = 3;
  o.gcs.max_attempts = 4;
  o.gcs.stall_timeout = 12;
  o.gcs.ca_bundle = "/etc/ssl/gcs.pem";
  o.gcs.verify_tls = false;
  o.gcs.anonymous = true;
  ASSERT_FALSE(o.s3 == S3Config());
  ASSERT_TRUE(CheckBackendOptions(o).ok()) << CheckBackendOptions(o);
  auto back = FromWire(ToWire(o));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_TRUE(*back == o);
  // Each field on its own, so a forgotten one is named by the failure.
  auto wire = ToWire(o);
  EXPECT_EQ(wire.s3().region(), "eu-west-3");
  EXPECT_TRUE(wire.s3().skip_tls_verify());
  EXPECT_EQ(back->s3.spread_prefixes, 16);
  EXPECT_EQ(back->s3.keys_secret, "team-a.s3-keys");
  EXPECT_EQ(back->s3.multipart_threshold, 32u << 20);
  EXPECT_EQ(back->gcs.chunk_size, 512u << 10);
  EXPECT_EQ(back->gcs.single_threshold, 1u << 20);
  EXPECT_TRUE(back->gcs.anonymous);
}

TEST(KindsCodec, UnsetReadsAsTheDefaultAndUnknownNumbersAreRefused) {
  EXPECT_EQ(FromWire(v1::ACCELERATOR_UNSPECIFIED, "f").value(),
            Accelerator::kCpu);
  EXPECT_EQ(FromWire(v1::HOST_STAGING_UNSPECIFIED, "f").value(),
            HostStaging::kPinned);
  EXPECT_EQ(FromWire(v1::CACHE_MODE_UNSPECIFIED, "f").value(),
            CacheMode::kAuto);
  // A round always names its phase.
  auto phase = FromWire(v1::PHASE_UNSPECIFIED, "phase");
  ASSERT_FALSE(phase.ok());
  EXPECT_EQ(phase.status().message(),
            "phase = 0: expected one of save, load (a number this build does "
            "not know)");
  EXPECT_EQ(FromWire(v1::STORAGE_FLAVOUR_UNSPECIFIED, "f").value(),
            StorageFlavour::kAuto);
  EXPECT_EQ(FromWire(v1::S3_CLAIM_UNSPECIFIED, "f").value(), S3Claim::kAuto);
  EXPECT_EQ(FromWire(v1::GCS_UPLOAD_UNSPECIFIED, "f").value(),
            GcsUpload::kResumable);
  EXPECT_EQ(FromWire(v1::CHECKSUM_UNSPECIFIED, "f").value(),
            ChecksumKind::kCrc32c);
  auto sum = FromWire(static_cast<v1::Checksum>(3), "io.checksum");
  ASSERT_FALSE(sum.ok());
  EXPECT_EQ(sum.status().message(),
            "io.checksum = 3: expected one of xxh3, crc32c (a number this "
            "build does not know)");
  auto mode = FromWire(static_cast<v1::CacheMode>(42), "io.cache_mode");
  ASSERT_TRUE(absl::IsInvalidArgument(mode.status()));
  EXPECT_NE(mode.status().message().find("io.cache_mode = 42"),
            std::string::npos);
}

// A file's one record crosses the wire whole (the node's `node` excepted:
// the coordinator sets it).
TEST(FileRecordCodec, EveryFieldCrossesTheWireAndBack) {
  FileRecord f;
  f.node = 3;
  f.rank = 7;
  f.file_index = 2;
  f.name = "__7_2.distcp";
  f.bytes = 123456789;
  f.start = 0.25;
  f.first_byte = 0.5;
  f.last_byte = 1.75;
  f.done = 2.0;
  f.data = 0.125;
  f.io = 1.25;
  f.sync = 0.0625;
  f.requests = 41;
  f.retries = 2;
  v1::FileRecord wire;
  ToWire(f, &wire);
  const FileRecord back = FromWire(wire);
  EXPECT_EQ(back.node, 0);
  EXPECT_EQ(back.rank, f.rank);
  EXPECT_EQ(back.file_index, f.file_index);
  EXPECT_EQ(back.name, f.name);
  EXPECT_EQ(back.bytes, f.bytes);
  EXPECT_EQ(back.start, f.start);
  EXPECT_EQ(back.first_byte, f.first_byte);
  EXPECT_EQ(back.last_byte, f.last_byte);
  EXPECT_EQ(back.done, f.done);
  EXPECT_EQ(back.data, f.data);
  EXPECT_EQ(back.io, f.io);
  EXPECT_EQ(back.sync, f.sync);
  EXPECT_EQ(back.requests, f.requests);
  EXPECT_EQ(back.retries, f.retries);
  // No byte moved: -1 crosses as it is.
  f.first_byte = -1;
  ToWire(f, &wire);
  EXPECT_EQ(FromWire(wire).first_byte, -1);
}

}  // namespace
}  // namespace ckpt
