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

}  // namespace ckpt
