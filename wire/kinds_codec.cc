#include "wire/kinds_codec.h"

#include <array>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ckpt {
namespace {

template <typename W, typename D, size_t N>
using Rows = std::array<std::pair<W, D>, N>;

constexpr Rows<v1::Accelerator, Accelerator, 2> kAccelerator{{
    {v1::ACCELERATOR_CPU, Accelerator::kCpu},
    {v1::ACCELERATOR_GPU, Accelerator::kGpu},
}};
constexpr Rows<v1::HostStaging, HostStaging, 2> kStaging{{
    {v1::HOST_STAGING_PINNED, HostStaging::kPinned},
    {v1::HOST_STAGING_PAGEABLE, HostStaging::kPageable},
}};
constexpr Rows<v1::CacheMode, CacheMode, 5> kCacheMode{{
    {v1::CACHE_MODE_AUTO, CacheMode::kAuto},
    {v1::CACHE_MODE_DROP, CacheMode::kDrop},
    {v1::CACHE_MODE_FADVISE, CacheMode::kFadvise},
    {v1::CACHE_MODE_DIRECT, CacheMode::kDirect},
    {v1::CACHE_MODE_NONE, CacheMode::kNone},
}};
constexpr Rows<v1::Phase, Phase, 2> kPhase{{
    {v1::PHASE_SAVE, Phase::kSave},
    {v1::PHASE_LOAD, Phase::kLoad},
}};

constexpr Rows<v1::StorageKind, StorageKind, 6> kStorageKind{{
    {v1::STORAGE_KIND_POSIX, StorageKind::kPosix},
    {v1::STORAGE_KIND_FUSE, StorageKind::kFuse},
    {v1::STORAGE_KIND_MEMORY, StorageKind::kMemory},
    {v1::STORAGE_KIND_NULL, StorageKind::kNull},
    {v1::STORAGE_KIND_S3, StorageKind::kS3},
    {v1::STORAGE_KIND_GCS, StorageKind::kGcs},
}};

constexpr Rows<v1::CacheMethod, CacheMethod, 5> kCacheMethod{{
    {v1::CACHE_METHOD_NONE, CacheMethod::kNone},
    {v1::CACHE_METHOD_MEMORY, CacheMethod::kMemory},
    {v1::CACHE_METHOD_O_DIRECT, CacheMethod::kODirect},
    {v1::CACHE_METHOD_DROP_CACHES, CacheMethod::kDropCaches},
    {v1::CACHE_METHOD_FADVISE_DONTNEED, CacheMethod::kFadviseDontneed},
}};

constexpr Rows<v1::StorageFlavour, StorageFlavour, 3> kFlavour{{
    {v1::STORAGE_FLAVOUR_AUTO, StorageFlavour::kAuto},
    {v1::STORAGE_FLAVOUR_LOCAL, StorageFlavour::kLocal},
    {v1::STORAGE_FLAVOUR_FUSE, StorageFlavour::kFuse},
}};
constexpr Rows<v1::S3Addressing, S3Addressing, 3> kAddressing{{
    {v1::S3_ADDRESSING_AUTO, S3Addressing::kAuto},
    {v1::S3_ADDRESSING_PATH, S3Addressing::kPath},
    {v1::S3_ADDRESSING_VIRTUAL, S3Addressing::kVirtual},
}};
constexpr Rows<v1::PayloadSigning, PayloadSigning, 2> kSigning{{
    {v1::PAYLOAD_SIGNING_UNSIGNED, PayloadSigning::kUnsigned},
    {v1::PAYLOAD_SIGNING_SIGNED, PayloadSigning::kSigned},
}};
constexpr Rows<v1::S3Checksum, S3Checksum, 3> kS3Checksum{{
    {v1::S3_CHECKSUM_NONE, S3Checksum::kNone},
    {v1::S3_CHECKSUM_CRC32C, S3Checksum::kCrc32c},
    {v1::S3_CHECKSUM_MD5, S3Checksum::kMd5},
}};
constexpr Rows<v1::S3Claim, S3Claim, 3> kClaim{{
    {v1::S3_CLAIM_AUTO, S3Claim::kAuto},
    {v1::S3_CLAIM_IF_NONE_MATCH, S3Claim::kIfNoneMatch},
    {v1::S3_CLAIM_LISTING, S3Claim::kListing},
}};
constexpr Rows<v1::GcsUpload, GcsUpload, 2> kUpload{{
    {v1::GCS_UPLOAD_RESUMABLE, GcsUpload::kResumable},
    {v1::GCS_UPLOAD_COMPOSITE, GcsUpload::kComposite},
}};
constexpr Rows<v1::Checksum, ChecksumKind, 2> kChecksum{{
    {v1::CHECKSUM_CRC32C, ChecksumKind::kCrc32c},
    {v1::CHECKSUM_XXH3, ChecksumKind::kXxh3},
}};

template <typename W, typename D, size_t N>
W To(const Rows<W, D, N>& rows, D v) {
  for (const auto& [w, d] : rows) {
    if (d == v) return w;
  }
  return W{};  // not reached: every enumerator has a row
}

// `unspecified`: what a zero reads as (nullopt: refused).
template <typename W, typename D, size_t N>
absl::StatusOr<D> From(const Rows<W, D, N>& rows, W v, std::string_view field,
                       std::optional<D> unspecified) {
  if (static_cast<int>(v) == 0 && unspecified) return *unspecified;
  for (const auto& [w, d] : rows) {
    if (w == v) return d;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(field), " = ", static_cast<int>(v), ": expected one of ",
      KindNames<D>(), " (a number this build does not know)"));
}

}  // namespace

v1::Accelerator ToWire(Accelerator v) { return To(kAccelerator, v); }
v1::HostStaging ToWire(HostStaging v) { return To(kStaging, v); }
v1::CacheMode ToWire(CacheMode v) { return To(kCacheMode, v); }
v1::Phase ToWire(Phase v) { return To(kPhase, v); }
v1::StorageKind ToWire(StorageKind v) { return To(kStorageKind, v); }
v1::CacheMethod ToWire(CacheMethod v) { return To(kCacheMethod, v); }
v1::StorageFlavour ToWire(StorageFlavour v) { return To(kFlavour, v); }
v1::S3Addressing ToWire(S3Addressing v) { return To(kAddressing, v); }
v1::PayloadSigning ToWire(PayloadSigning v) { return To(kSigning, v); }
v1::S3Checksum ToWire(S3Checksum v) { return To(kS3Checksum, v); }
v1::S3Claim ToWire(S3Claim v) { return To(kClaim, v); }
v1::GcsUpload ToWire(GcsUpload v) { return To(kUpload, v); }
v1::Checksum ToWire(ChecksumKind v) { return To(kChecksum, v); }

absl::StatusOr<Accelerator> FromWire(v1::Accelerator v,
                                     std::string_view field) {
  return From(kAccelerator, v, field, std::optional(Accelerator::kCpu));
}
absl::StatusOr<HostStaging> FromWire(v1::HostStaging v,
                                     std::string_view field) {
  return From(kStaging, v, field, std::optional(HostStaging::kPinned));
}
absl::StatusOr<CacheMode> FromWire(v1::CacheMode v, std::string_view field) {
  return From(kCacheMode, v, field, std::optional(CacheMode::kAuto));
}
absl::StatusOr<Phase> FromWire(v1::Phase v, std::string_view field) {
  return From(kPhase, v, field, std::optional<Phase>());
}
absl::StatusOr<StorageKind> FromWire(v1::StorageKind v,
                                     std::string_view field) {
  return From(kStorageKind, v, field, std::optional<StorageKind>());
}

absl::StatusOr<CacheMethod> FromWire(v1::CacheMethod v,
                                     std::string_view field) {
  return From(kCacheMethod, v, field, std::optional<CacheMethod>());
}

absl::StatusOr<StorageFlavour> FromWire(v1::StorageFlavour v,
                                        std::string_view field) {
  return From(kFlavour, v, field, std::optional(StorageFlavour::kAuto));
}
absl::StatusOr<S3Addressing> FromWire(v1::S3Addressing v,
                                      std::string_view field) {
  return From(kAddressing, v, field, std::optional(S3Addressing::kAuto));
}
absl::StatusOr<PayloadSigning> FromWire(v1::PayloadSigning v,
                                        std::string_view field) {
  return From(kSigning, v, field, std::optional(PayloadSigning::kUnsigned));
}
absl::StatusOr<S3Checksum> FromWire(v1::S3Checksum v, std::string_view field) {
  return From(kS3Checksum, v, field, std::optional(S3Checksum::kNone));
}
absl::StatusOr<S3Claim> FromWire(v1::S3Claim v, std::string_view field) {
  return From(kClaim, v, field, std::optional(S3Claim::kAuto));
}
absl::StatusOr<GcsUpload> FromWire(v1::GcsUpload v, std::string_view field) {
  return From(kUpload, v, field, std::optional(GcsUpload::kResumable));
}
absl::StatusOr<ChecksumKind> FromWire(v1::Checksum v, std::string_view field) {
  return From(kChecksum, v, field, std::optional(ChecksumKind::kCrc32c));
}

}  // namespace ckpt
