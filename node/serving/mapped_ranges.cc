#include "node/serving/mapped_ranges.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/status_macros.h"
#include "common/text.h"
#include "node/storage/page_cache.h"
#include "node/storage/posix_open.h"

namespace ckpt {
namespace {

// A file mapped whole, unmapped and closed when it goes.
class Mapping {
 public:
  ~Mapping() {
    if (data_ != nullptr) munmap(data_, size_);
    if (fd_ >= 0) close(fd_);
  }
  absl::Status Open(const std::string& root, const std::string& path,
                    uint64_t expected) {
    ASSIGN_OR_RETURN(fd_, OpenBeneath(path, O_RDONLY, root, 0, &size_));
    if (size_ != expected) {
      return absl::DataLossError(
          absl::StrCat(EscapeForTerminal(path), " is ", size_,
                       " bytes; its listing said ", expected));
    }
    if (size_ == 0) return absl::OkStatus();
    void* p = mmap(nullptr, size_, PROT_READ, MAP_SHARED, fd_, 0);
    if (p == MAP_FAILED) {
      return absl::InternalError(absl::StrCat("mmap ", EscapeForTerminal(path),
                                              ": ", std::strerror(errno)));
    }
    data_ = static_cast<unsigned char*>(p);
    return absl::OkStatus();
  }
  const unsigned char* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  unsigned char* data_ = nullptr;
};

uint64_t MajorFaults() {
  struct rusage u {};
  getrusage(RUSAGE_THREAD, &u);
  return static_cast<uint64_t>(u.ru_majflt);
}

}  // namespace

absl::StatusOr<StreamTally> MapRanges(const std::string& root,
                                      const std::vector<StreamedFile>& files,
                                      const StreamOptions& options,
                                      const ChunkSink& sink,
                                      const std::atomic<bool>* abort) {
  const uint64_t chunk_bytes = options.chunk_bytes;
  if (chunk_bytes == 0 || chunk_bytes > kMaxStreamChunk || !sink) {
    return absl::InvalidArgumentError(
        absl::StrCat("mapped reads in pieces of ", chunk_bytes,
                     " bytes; expected 1 to ", kMaxStreamChunk));
  }
  uint64_t largest = 0;
  for (const StreamedFile& f : files) {
    for (const ByteRange& r : f.ranges) {
      largest = std::max(largest, std::min(r.length, chunk_bytes));
    }
  }
  std::vector<unsigned char> buffer(static_cast<size_t>(largest));
  const SteadyClock::time_point start = SteadyClock::now();
  const uint64_t faults = MajorFaults();
  StreamTally tally;
  tally.threads = 1;
  tally.buffer_bytes = largest;
  for (size_t i = 0; i < files.size(); ++i) {
    const StreamedFile& f = files[i];
    Mapping m;
    RETURN_IF_ERROR(m.Open(root, f.path, f.size));
    for (const ByteRange& r : f.ranges) {
      if (r.offset > m.size() || r.length > m.size() - r.offset) {
        return absl::DataLossError(
            absl::StrCat(EscapeForTerminal(f.path), ": bytes [", r.offset, ", ",
                         r.offset + r.length, ") past its ", m.size()));
      }
      for (uint64_t at = 0; at < r.length; at += chunk_bytes) {
        if (abort != nullptr && abort->load()) {
          return absl::AbortedError("the model's load was stopped");
        }
        const size_t n =
            static_cast<size_t>(std::min(chunk_bytes, r.length - at));
        const unsigned char* const from = m.data() + r.offset + at;
        if (options.count_cached) {
          // What the page cache holds before the copy faults the rest in.
          if (absl::StatusOr<uint64_t> held = ResidentInMapping(from, n);
              held.ok()) {
            tally.cached_bytes += *held;
          }
        }
        std::memcpy(buffer.data(), from, n);
        const double in = SecondsSince(start);
        if (tally.first_byte_seconds < 0) tally.first_byte_seconds = in;
        tally.last_byte_seconds = in;
        ++tally.chunks;
        tally.bytes += n;
        RETURN_IF_ERROR(sink(i, r.offset + at, buffer.data(), n));
      }
    }
  }
  tally.major_faults = MajorFaults() - faults;
  return tally;
}

}  // namespace ckpt
