// Reads a tar archive as a stream (the iterable access streams whole
// shards; the index of a user's shards reads them once): bytes go in as
// they arrive, in pieces of any size, and the regular members' data comes
// out to a sink with each member's name, offset and size. The archive is
// hostile input: every header's checksum is checked, a member's name must
// be a relative name that stays inside the archive (a leading "./" is
// dropped; CheckRelativeName), its size must fit in what is left of the
// archive, extended headers (POSIX pax "x" records, GNU long names) are
// bounded to kMaxTarExtension bytes, and links, devices and FIFOs are
// refused: only regular files and directories (skipped) are read.
// Not thread-safe: one reader per stream.
#ifndef CKPTBENCH_NODE_DATASET_TAR_READER_H_
#define CKPTBENCH_NODE_DATASET_TAR_READER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "node/dataset/tar_header.h"

namespace ckpt {

inline constexpr uint64_t kMaxTarExtension = 64 * 1024;

struct TarMember {
  std::string name;     // checked
  uint64_t offset = 0;  // of its data in the archive
  uint64_t size = 0;
};

class TarSink {
 public:
  virtual ~TarSink() = default;
  // A regular member begins (OnData follows for its bytes, if any).
  virtual absl::Status OnMember(const TarMember& member) = 0;
  // `n` bytes of it, from `at` bytes into its data.
  virtual absl::Status OnData(const TarMember& member, uint64_t at,
                              const unsigned char* data, size_t n) = 0;
  // All of its bytes went by.
  virtual absl::Status OnMemberEnd(const TarMember& /*member*/) {
    return absl::OkStatus();
  }
};

class TarStreamReader {
 public:
  // `what` names the archive in errors (escaped by the caller); its size
  // bounds every member.
  TarStreamReader(std::string what, uint64_t archive_size)
      : what_(std::move(what)), archive_size_(archive_size) {}

  // The next `n` bytes of the archive. A sink's error is returned as it
  // is; the archive's own faults are DataLoss naming it and the offset.
  absl::Status Feed(const unsigned char* data, size_t n, TarSink& sink);
  // The archive's bytes ended: an error if they ended inside a header, an
  // extension or a member's data.
  absl::Status Finish() const;
  bool ended() const { return state_ == State::kEnd; }
  uint64_t members() const { return members_; }
  uint64_t consumed() const { return pos_; }

 private:
  enum class State { kHeader, kData, kExtension, kSkip, kEnd };
  absl::Status OnHeader(TarSink& sink);
  absl::Status StartMember(std::string name, uint64_t size, TarSink& sink);
  absl::Status ApplyPax();
  absl::Status Fault(const std::string& why) const;

  const std::string what_;
  const uint64_t archive_size_;
  State state_ = State::kHeader;
  uint64_t pos_ = 0;  // bytes consumed
  TarBlock block_{};
  size_t block_fill_ = 0;
  TarMember member_;
  uint64_t remaining_ = 0;  // of the member's data, extension or skip
  uint64_t pad_ = 0;        // after the member's data
  char extension_type_ = 0;
  std::string extension_;
  // What the last extended header said of the next member.
  std::optional<std::string> next_name_;
  std::optional<uint64_t> next_size_;
  uint64_t members_ = 0;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_TAR_READER_H_
