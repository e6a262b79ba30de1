// The named choices: each name parses back to its value, strings outside
// the table are refused, and the edges (JSON, StrFormat, the wire) write
// names or the wire enum, never a kind's number.
#include "common/kinds.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
  // Names are exact: no case folding, no spaces.
  EXPECT_FALSE(ParseKind<Accelerator>("GPU").has_value());
  EXPECT_FALSE(ParseKind<Accelerator>(" gpu").has_value());
}

TEST(KindsCodec, EachValueCrossesTheWireAndBack) {
  for (auto v : {Accelerator::kCpu, Accelerator::kGpu}) {
    EXPECT_EQ(FromWire(ToWire(v), "f").value(), v);
  }
  for (auto v : {HostStaging::kPinned, HostStaging::kPageable}) {
    EXPECT_EQ(FromWire(ToWire(v), "f").value(), v);
  }
  for (auto v : {CacheMode::kAuto, CacheMode::kDrop, CacheMode::kFadvise,
                 CacheMode::kDirect, CacheMode::kNone}) {
    EXPECT_EQ(FromWire(ToWire(v), "f").value(), v);
  }
  for (auto v : {Phase::kSave, Phase::kLoad}) {
    EXPECT_EQ(FromWire(ToWire(v), "f").value(), v);
  }
  EXPECT_EQ(ToWire(Accelerator::kGpu), v1::ACCELERATOR_GPU);
  EXPECT_EQ(ToWire(CacheMode::kNone), v1::CACHE_MODE_NONE);
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
  auto mode = FromWire(static_cast<v1::CacheMode>(42), "io.cache_mode");
  ASSERT_TRUE(absl::IsInvalidArgument(mode.status()));
  EXPECT_NE(mode.status().message().find("io.cache_mode = 42"),
            std::string::npos);
}

}  // namespace
}  // namespace ckpt
