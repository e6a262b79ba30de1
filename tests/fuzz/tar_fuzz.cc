// libFuzzer target: the tar stream reader, on shards from anywhere (a
// user's own dataset). The first byte picks how the input is split into
// pieces; every member it reports must lie inside the input, in order, and
// its bytes must arrive whole and in order.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/names.h"
#include "node/dataset/tar_reader.h"

namespace {

struct Check : ckpt::TarSink {
  uint64_t size = 0, next_data = 0, last_end = 0, seen = 0;
  bool open = false;
  absl::Status OnMember(const ckpt::TarMember& m) override {
    if (open || m.offset < last_end || m.offset > size ||
        m.size > size - m.offset || m.offset % 512 != 0 ||
        !ckpt::CheckRelativeName(m.name, "fuzz").ok()) {
      std::abort();
    }
    open = true;
    next_data = 0;
    return absl::OkStatus();
  }
  absl::Status OnData(const ckpt::TarMember& m, uint64_t at,
                      const unsigned char*, size_t n) override {
    if (!open || at != next_data || n == 0 || n > m.size - at) std::abort();
    next_data += n;
    return absl::OkStatus();
  }
  absl::Status OnMemberEnd(const ckpt::TarMember& m) override {
    if (!open || next_data != m.size) std::abort();
    open = false;
    last_end = m.offset + m.size;
    ++seen;
    return absl::OkStatus();
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] * 7;
  ++data;
  --size;
  ckpt::TarStreamReader reader("fuzz.tar", size);
  Check check;
  check.size = size;
  for (size_t at = 0; at < size;) {
    size_t n = std::min(piece, size - at);
    if (!reader.Feed(data + at, n, check).ok()) return 0;
    at += n;
  }
  (void)reader.Finish();
  if (reader.members() != check.seen + (check.open ? 1 : 0)) std::abort();
  return 0;
}
