#include "common/kinds.h"

#include <array>
#include <utility>

namespace ckpt {
namespace {

template <typename E, size_t N>
using Table = std::array<std::pair<E, std::string_view>, N>;

// One table per kind: the only place its names are spelled.
constexpr Table<Phase, 2> kPhase{
    {{Phase::kSave, "save"}, {Phase::kLoad, "load"}}};
constexpr Table<RunStatus, 2> kRunStatus{
    {{RunStatus::kOk, "ok"}, {RunStatus::kFailed, "failed"}}};
constexpr Table<Accelerator, 2> kAccelerator{
    {{Accelerator::kCpu, "cpu"}, {Accelerator::kGpu, "gpu"}}};
constexpr Table<HostStaging, 2> kHostStaging{
    {{HostStaging::kPinned, "pinned"}, {HostStaging::kPageable, "pageable"}}};
constexpr Table<CacheMode, 5> kCacheMode{{{CacheMode::kAuto, "auto"},
                                          {CacheMode::kDrop, "drop"},
                                          {CacheMode::kFadvise, "fadvise"},
                                          {CacheMode::kDirect, "direct"},
                                          {CacheMode::kNone, "none"}}};
constexpr Table<Optimizer, 3> kOptimizer{{{Optimizer::kAdam, "adam"},
                                          {Optimizer::kSgd, "sgd"},
                                          {Optimizer::kNone, "none"}}};
constexpr Table<ShardingStrategy, 2> kSharding{
    {{ShardingStrategy::kFull, "full"}, {ShardingStrategy::kHybrid, "hybrid"}}};
constexpr Table<StorageFlavour, 3> kFlavour{{{StorageFlavour::kAuto, "auto"},
                                             {StorageFlavour::kLocal, "local"},
                                             {StorageFlavour::kFuse, "fuse"}}};

constexpr Table<RunMode, 3> kRunMode{{{RunMode::kSaveAndLoad, "save+load"},
                                      {RunMode::kSaveOnly, "save-only"},
                                      {RunMode::kLoadOnly, "load-only"}}};
constexpr Table<ReshardReads, 2> kReshardReads{
    {{ReshardReads::kRanges, "ranges"}, {ReshardReads::kSegments, "segments"}}};

constexpr Table<StorageKind, 6> kStorageKind{{{StorageKind::kPosix, "posix"},
                                              {StorageKind::kFuse, "fuse"},
                                              {StorageKind::kMemory, "memory"},
                                              {StorageKind::kNull, "null"},
                                              {StorageKind::kS3, "s3"},
                                              {StorageKind::kGcs, "gs"}}};

constexpr Table<S3Addressing, 3> kS3Addressing{
    {{S3Addressing::kAuto, "auto"},
     {S3Addressing::kPath, "path"},
     {S3Addressing::kVirtual, "virtual"}}};
constexpr Table<PayloadSigning, 2> kPayloadSigning{
    {{PayloadSigning::kUnsigned, "unsigned"},
     {PayloadSigning::kSigned, "signed"}}};
constexpr Table<S3Checksum, 3> kS3Checksum{{{S3Checksum::kNone, "none"},
                                            {S3Checksum::kCrc32c, "crc32c"},
                                            {S3Checksum::kMd5, "md5"}}};
constexpr Table<S3Claim, 3> kS3Claim{{{S3Claim::kAuto, "auto"},
                                      {S3Claim::kIfNoneMatch, "if_none_match"},
                                      {S3Claim::kListing, "listing"}}};
constexpr Table<GcsUpload, 2> kGcsUpload{
    {{GcsUpload::kResumable, "resumable"},
     {GcsUpload::kComposite, "composite"}}};

constexpr Table<ChecksumKind, 2> kChecksum{
    {{ChecksumKind::kXxh3, "xxh3"}, {ChecksumKind::kCrc32c, "crc32c"}}};

constexpr Table<RoundFlag, 7> kRoundFlag{
    {{RoundFlag::kClientBound, "client_bound"},
     {RoundFlag::kMemoryBacked, "memory_backed"},
     {RoundFlag::kNotVisible, "not_visible"},
     {RoundFlag::kPageCacheAllowed, "page_cache_allowed"},
     {RoundFlag::kPageCacheResident, "page_cache_resident"},
     {RoundFlag::kShortPhase, "short_phase"},
     {RoundFlag::kUnverified, "unverified"}}};

constexpr Table<ErrorKind, 8> kErrorKind{{{ErrorKind::kUnspecified, ""},
                                          {ErrorKind::kRetryable, "retryable"},
                                          {ErrorKind::kAuth, "auth"},
                                          {ErrorKind::kNotFound, "not_found"},
                                          {ErrorKind::kNoSpace, "no_space"},
                                          {ErrorKind::kBadInput, "bad_input"},
                                          {ErrorKind::kDataLoss, "data_loss"},
                                          {ErrorKind::kInternal, "internal"}}};

constexpr Table<CacheMethod, 5> kCacheMethod{
    {{CacheMethod::kNone, "none"},
     {CacheMethod::kMemory, "memory"},
     {CacheMethod::kODirect, "o_direct"},
     {CacheMethod::kDropCaches, "drop_caches"},
     {CacheMethod::kFadviseDontneed, "fadvise_dontneed"}}};

constexpr const auto& TableOf(Phase) { return kPhase; }
constexpr const auto& TableOf(RunStatus) { return kRunStatus; }
constexpr Table<DatasetFormat, 2> kDatasetFormat{
    {{DatasetFormat::kFiles, "files"}, {DatasetFormat::kTar, "tar"}}};
constexpr const auto& TableOf(DatasetFormat) { return kDatasetFormat; }
constexpr Table<DatasetSource, 2> kDatasetSource{
    {{DatasetSource::kCkptbench, "ckptbench"},
     {DatasetSource::kListed, "listed"}}};
constexpr const auto& TableOf(DatasetSource) { return kDatasetSource; }
constexpr Table<SearchEnd, 4> kSearchEnd{
    {{SearchEnd::kStorage, "storage"},
     {SearchEnd::kClient, "client"},
     {SearchEnd::kLimit, "limit"},
     {SearchEnd::kInterrupted, "interrupted"}}};
constexpr const auto& TableOf(SearchEnd) { return kSearchEnd; }
constexpr Table<DataAccess, 2> kDataAccess{
    {{DataAccess::kMap, "map"}, {DataAccess::kIterable, "iterable"}}};
constexpr const auto& TableOf(DataAccess) { return kDataAccess; }
constexpr Table<ServeReadMode, 4> kServeReadMode{
    {{ServeReadMode::kStream, "stream"},
     {ServeReadMode::kMmap, "mmap"},
     {ServeReadMode::kDirect, "direct"},
     {ServeReadMode::kDownload, "download"}}};
constexpr const auto& TableOf(ServeReadMode) { return kServeReadMode; }
constexpr Table<ServeSplit, 2> kServeSplit{
    {{ServeSplit::kFiles, "files"}, {ServeSplit::kTp, "tp"}}};
constexpr const auto& TableOf(ServeSplit) { return kServeSplit; }
constexpr Table<ModelDtype, 3> kModelDtype{{{ModelDtype::kBf16, "bf16"},
                                            {ModelDtype::kFp16, "fp16"},
                                            {ModelDtype::kFp32, "fp32"}}};
constexpr const auto& TableOf(ModelDtype) { return kModelDtype; }
constexpr const auto& TableOf(Accelerator) { return kAccelerator; }
constexpr const auto& TableOf(HostStaging) { return kHostStaging; }
constexpr const auto& TableOf(CacheMode) { return kCacheMode; }
constexpr const auto& TableOf(Optimizer) { return kOptimizer; }
constexpr const auto& TableOf(ShardingStrategy) { return kSharding; }
constexpr const auto& TableOf(StorageFlavour) { return kFlavour; }
constexpr const auto& TableOf(RunMode) { return kRunMode; }
constexpr const auto& TableOf(ReshardReads) { return kReshardReads; }
constexpr const auto& TableOf(StorageKind) { return kStorageKind; }
constexpr const auto& TableOf(CacheMethod) { return kCacheMethod; }
constexpr const auto& TableOf(S3Addressing) { return kS3Addressing; }
constexpr const auto& TableOf(PayloadSigning) { return kPayloadSigning; }
constexpr const auto& TableOf(S3Checksum) { return kS3Checksum; }
constexpr const auto& TableOf(S3Claim) { return kS3Claim; }
constexpr const auto& TableOf(GcsUpload) { return kGcsUpload; }
constexpr const auto& TableOf(ChecksumKind) { return kChecksum; }
constexpr const auto& TableOf(RoundFlag) { return kRoundFlag; }
constexpr const auto& TableOf(ErrorKind) { return kErrorKind; }

template <typename E>
std::string_view NameIn(E v) {
  for (const auto& [value, name] : TableOf(v)) {
    if (value == v) return name;
  }
  return "?";  // not reached: every enumerator has a row
}

}  // namespace

std::string_view Name(Phase v) { return NameIn(v); }
std::string_view Name(RunStatus v) { return NameIn(v); }
std::string_view Name(Accelerator v) { return NameIn(v); }
std::string_view Name(HostStaging v) { return NameIn(v); }
std::string_view Name(CacheMode v) { return NameIn(v); }
std::string_view Name(Optimizer v) { return NameIn(v); }
std::string_view Name(ShardingStrategy v) { return NameIn(v); }
std::string_view Name(StorageFlavour v) { return NameIn(v); }
std::string_view Name(RunMode v) { return NameIn(v); }
std::string_view Name(ReshardReads v) { return NameIn(v); }
std::string_view Name(StorageKind v) { return NameIn(v); }
std::string_view Name(CacheMethod v) { return NameIn(v); }
std::string_view Name(S3Addressing v) { return NameIn(v); }
std::string_view Name(PayloadSigning v) { return NameIn(v); }
std::string_view Name(S3Checksum v) { return NameIn(v); }
std::string_view Name(S3Claim v) { return NameIn(v); }
std::string_view Name(GcsUpload v) { return NameIn(v); }
std::string_view Name(ChecksumKind v) { return NameIn(v); }
std::string_view Name(DatasetFormat v) { return NameIn(v); }
std::string_view Name(DatasetSource v) { return NameIn(v); }
std::string_view Name(SearchEnd v) { return NameIn(v); }
std::string_view Name(DataAccess v) { return NameIn(v); }
std::string_view Name(ServeReadMode v) { return NameIn(v); }
std::string_view Name(ServeSplit v) { return NameIn(v); }
std::string_view Name(ModelDtype v) { return NameIn(v); }
std::string_view Name(RoundFlag v) { return NameIn(v); }
std::string_view Name(ErrorKind v) { return NameIn(v); }

template <typename E>
std::optional<E> ParseKind(std::string_view name) {
  for (const auto& [value, n] : TableOf(E{})) {
    if (n == name) return value;
  }
  return std::nullopt;
}

template <typename E>
std::string KindNames(std::string_view sep) {
  std::string out;
  for (const auto& row : TableOf(E{})) {
    if (!out.empty()) out += sep;
    out += row.second;
  }
  return out;
}

#define CKPT_KIND(E)                                        \
  template std::optional<E> ParseKind<E>(std::string_view); \
  template std::string KindNames<E>(std::string_view);
CKPT_KIND(Phase)
CKPT_KIND(RunStatus)
CKPT_KIND(Accelerator)
CKPT_KIND(HostStaging)
CKPT_KIND(CacheMode)
CKPT_KIND(Optimizer)
CKPT_KIND(ShardingStrategy)
CKPT_KIND(StorageFlavour)
CKPT_KIND(RunMode)
CKPT_KIND(ReshardReads)
CKPT_KIND(StorageKind)
CKPT_KIND(CacheMethod)
CKPT_KIND(S3Addressing)
CKPT_KIND(PayloadSigning)
CKPT_KIND(S3Checksum)
CKPT_KIND(S3Claim)
CKPT_KIND(GcsUpload)
CKPT_KIND(ChecksumKind)
CKPT_KIND(DatasetFormat)
CKPT_KIND(DatasetSource)
CKPT_KIND(SearchEnd)
CKPT_KIND(DataAccess)
CKPT_KIND(ServeReadMode)
CKPT_KIND(ServeSplit)
CKPT_KIND(ModelDtype)
CKPT_KIND(RoundFlag)
CKPT_KIND(ErrorKind)
#undef CKPT_KIND

}  // namespace ckpt
