// The run's named choices as types: a round's phase, how a run or round
// ended, where shard bytes live, how a load keeps the page cache out, the
// model's optimizer and sharding, the file system's flavour. Their names
// are strings only at the edges (configuration keys, result.json, the
// terminal): Name() gives the name a value is written as, ParseKind<E>()
// the value a name stands for, KindNames<E>() the names for a message.
#ifndef CKPTBENCH_COMMON_KINDS_H_
#define CKPTBENCH_COMMON_KINDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckpt {

enum class Phase { kSave, kLoad };              // save | load
enum class RunStatus { kOk, kFailed };          // ok | failed
enum class Accelerator { kCpu, kGpu };          // cpu | gpu
enum class HostStaging { kPinned, kPageable };  // pinned | pageable
enum class CacheMode { kAuto, kDrop, kFadvise, kDirect, kNone };
enum class Optimizer { kAdam, kSgd, kNone };         // adam | sgd | none
enum class ShardingStrategy { kFull, kHybrid };      // full | hybrid
enum class StorageFlavour { kAuto, kLocal, kFuse };  // auto | local | fuse
// A node's storage backend: posix | fuse | memory | null | s3 | gs.
enum class StorageKind { kPosix, kFuse, kMemory, kNull, kS3, kGcs };
// How a load was kept cold: none, memory (a memory-backed file system: no
// read there can be cold), o_direct, drop_caches, fadvise_dontneed.
enum class CacheMethod {
  kNone,
  kMemory,
  kODirect,
  kDropCaches,
  kFadviseDontneed
};
// The object stores' choices (s3.*, gcs.*).
enum class S3Addressing { kAuto, kPath, kVirtual };    // s3.addressing
enum class PayloadSigning { kUnsigned, kSigned };      // s3.payload_signing
enum class S3Checksum { kNone, kCrc32c, kMd5 };        // s3.checksum
enum class S3Claim { kAuto, kIfNoneMatch, kListing };  // s3.claim
enum class GcsUpload { kResumable, kComposite };       // gcs.upload
// run.mode: save+load | save-only | load-only
enum class RunMode { kSaveAndLoad, kSaveOnly, kLoadOnly };
enum class ReshardReads { kRanges, kSegments };  // ranges | segments
// io.checksum, how segments are summed: xxh3 | crc32c (common/checksum.h).
enum class ChecksumKind { kXxh3, kCrc32c };
// How a dataset stores its samples (dataset.format): files (one object per
// sample) | tar (WebDataset shards; common/dataset/dataset_layout.h).
enum class DatasetFormat { kFiles, kTar };
// Whose dataset a dataload run reads (dataset.source): ckptbench (made by
// datagen: its manifest read, every byte verified) | listed (the user's
// own: listed, TAR shards indexed, read unverified).
enum class DatasetSource { kCkptbench, kListed };
// What ended an accelerator search (dataload.find_accelerators): storage
// (the first count that fell did so on the storage) | client (that count
// was client-bound) | limit (every count up to the limit held) |
// interrupted (a signal: the counts so far are no answer).
enum class SearchEnd { kStorage, kClient, kLimit, kInterrupted };
// How the data loader reads samples (dataload.access): map (a request per
// sample, in the sampler's order) | iterable (objects streamed whole).
enum class DataAccess { kMap, kIterable };
// How a serving replica reads a model's tensors (serve.read_mode): stream
// (concurrent ranged reads into a bounded pool, as Run:ai's Model
// Streamer) | mmap (page faults through a mapping, as safetensors'
// safe_open) | direct (O_DIRECT reads) | download (copied to a local
// directory first, then read from it).
enum class ServeReadMode { kStream, kMmap, kDirect, kDownload };
// How a replica's ranks share a model (serve.split): files (whole files
// per rank) | tp (tensor-parallel slices of every tensor).
enum class ServeSplit { kFiles, kTp };
// A generated model's element type (serve.dtype).
enum class ModelDtype { kBf16, kFp16, kFp32 };
// The kind of a node's failure (result.json's error_kind; common/
// error_kind.h maps it to and from a status): unspecified ("") where no
// node gave one (it could not be reached, or an older node). The one kind
// with an empty name: ParseKind<ErrorKind>("") is unspecified.
enum class ErrorKind {
  kUnspecified,  // ""
  kRetryable,    // retryable
  kAuth,         // auth
  kNotFound,     // not_found
  kNoSpace,      // no_space
  kBadInput,     // bad_input
  kDataLoss,     // data_loss
  kInternal,     // internal
};
// What makes a round's number mean less than it seems (result.json's
// rounds[].flags; docs/results.md), in the order of their names.
enum class RoundFlag {
  kClientBound,        // client_bound
  kMemoryBacked,       // memory_backed
  kNotVisible,         // not_visible
  kPageCacheAllowed,   // page_cache_allowed
  kPageCacheResident,  // page_cache_resident
  kShortPhase,         // short_phase
  kUnverified,         // unverified
};

std::string_view Name(Phase v);
std::string_view Name(RunStatus v);
std::string_view Name(Accelerator v);
std::string_view Name(HostStaging v);
std::string_view Name(CacheMode v);
std::string_view Name(Optimizer v);
std::string_view Name(ShardingStrategy v);
std::string_view Name(StorageFlavour v);
std::string_view Name(RunMode v);
std::string_view Name(StorageKind v);
std::string_view Name(CacheMethod v);
std::string_view Name(S3Addressing v);
std::string_view Name(PayloadSigning v);
std::string_view Name(S3Checksum v);
std::string_view Name(S3Claim v);
std::string_view Name(GcsUpload v);
std::string_view Name(ReshardReads v);
std::string_view Name(ChecksumKind v);
std::string_view Name(DatasetFormat v);
std::string_view Name(DatasetSource v);
std::string_view Name(SearchEnd v);
std::string_view Name(DataAccess v);
std::string_view Name(ServeReadMode v);
std::string_view Name(ServeSplit v);
std::string_view Name(ModelDtype v);
std::string_view Name(RoundFlag v);
std::string_view Name(ErrorKind v);

// The value named `name` (exactly, as Name writes it), or nullopt.
template <typename E>
std::optional<E> ParseKind(std::string_view name);
// Every name of E in order, joined with `sep` ("cpu, gpu").
template <typename E>
std::string KindNames(std::string_view sep = ", ");
// The names of `values`, joined with `sep` ("short_phase,unverified").
template <typename E>
std::string JoinNames(const std::vector<E>& values, std::string_view sep) {
  std::string out;
  for (const E& v : values) {
    if (!out.empty()) out += sep;
    out += Name(v);
  }
  return out;
}

// JSON (nlohmann::json finds these by the kind's namespace) and
// absl::StrFormat's %s write each kind by its name, never its number (%d of
// a kind does not compile).
#define CKPT_KIND_TO_JSON(E)                                                   \
  template <typename Json>                                                     \
  void to_json(Json& j, E v) {                                                 \
    j = std::string(Name(v));                                                  \
  }                                                                            \
  inline absl::FormatConvertResult<absl::FormatConversionCharSet::kString>     \
  AbslFormatConvert(E v, const absl::FormatConversionSpec& spec,               \
                    absl::FormatSink* sink) {                                  \
    const std::string_view n = Name(v);                                        \
    sink->PutPaddedString(absl::string_view(n.data(), n.size()), spec.width(), \
                          spec.precision(), spec.has_left_flag());             \
    return {true};                                                             \
  }
CKPT_KIND_TO_JSON(Phase)
CKPT_KIND_TO_JSON(RunStatus)
CKPT_KIND_TO_JSON(Accelerator)
CKPT_KIND_TO_JSON(HostStaging)
CKPT_KIND_TO_JSON(CacheMode)
CKPT_KIND_TO_JSON(Optimizer)
CKPT_KIND_TO_JSON(ShardingStrategy)
CKPT_KIND_TO_JSON(StorageFlavour)
CKPT_KIND_TO_JSON(RunMode)
CKPT_KIND_TO_JSON(ReshardReads)
CKPT_KIND_TO_JSON(StorageKind)
CKPT_KIND_TO_JSON(CacheMethod)
CKPT_KIND_TO_JSON(S3Addressing)
CKPT_KIND_TO_JSON(PayloadSigning)
CKPT_KIND_TO_JSON(S3Checksum)
CKPT_KIND_TO_JSON(S3Claim)
CKPT_KIND_TO_JSON(GcsUpload)
CKPT_KIND_TO_JSON(ChecksumKind)
CKPT_KIND_TO_JSON(DatasetFormat)
CKPT_KIND_TO_JSON(DatasetSource)
CKPT_KIND_TO_JSON(SearchEnd)
CKPT_KIND_TO_JSON(DataAccess)
CKPT_KIND_TO_JSON(ServeReadMode)
CKPT_KIND_TO_JSON(ServeSplit)
CKPT_KIND_TO_JSON(ModelDtype)
CKPT_KIND_TO_JSON(RoundFlag)
CKPT_KIND_TO_JSON(ErrorKind)
#undef CKPT_KIND_TO_JSON

}  // namespace ckpt

// absl::StrCat would write a scoped enum as its number: for the kinds it
// does not compile (write Name(v)).
namespace absl {
ABSL_NAMESPACE_BEGIN
template <>
AlphaNum::AlphaNum(ckpt::Phase) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ChecksumKind) = delete;
template <>
AlphaNum::AlphaNum(ckpt::DatasetFormat) = delete;
template <>
AlphaNum::AlphaNum(ckpt::DatasetSource) = delete;
template <>
AlphaNum::AlphaNum(ckpt::SearchEnd) = delete;
template <>
AlphaNum::AlphaNum(ckpt::DataAccess) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ServeReadMode) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ServeSplit) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ModelDtype) = delete;
template <>
AlphaNum::AlphaNum(ckpt::RoundFlag) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ErrorKind) = delete;
template <>
AlphaNum::AlphaNum(ckpt::RunStatus) = delete;
template <>
AlphaNum::AlphaNum(ckpt::Accelerator) = delete;
template <>
AlphaNum::AlphaNum(ckpt::HostStaging) = delete;
template <>
AlphaNum::AlphaNum(ckpt::CacheMode) = delete;
template <>
AlphaNum::AlphaNum(ckpt::Optimizer) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ShardingStrategy) = delete;
template <>
AlphaNum::AlphaNum(ckpt::StorageFlavour) = delete;
template <>
AlphaNum::AlphaNum(ckpt::RunMode) = delete;
template <>
AlphaNum::AlphaNum(ckpt::ReshardReads) = delete;
template <>
AlphaNum::AlphaNum(ckpt::StorageKind) = delete;
template <>
AlphaNum::AlphaNum(ckpt::S3Addressing) = delete;
template <>
AlphaNum::AlphaNum(ckpt::PayloadSigning) = delete;
template <>
AlphaNum::AlphaNum(ckpt::S3Checksum) = delete;
template <>
AlphaNum::AlphaNum(ckpt::S3Claim) = delete;
template <>
AlphaNum::AlphaNum(ckpt::GcsUpload) = delete;
ABSL_NAMESPACE_END
}  // namespace absl

#endif  // CKPTBENCH_COMMON_KINDS_H_
