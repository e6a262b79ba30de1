#include "common/checksum.h"

#include <isa-l/crc.h>
#include <xxhash.h>

#include <algorithm>
#include <climits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {
namespace {

class Xxh3Checksummer : public Checksummer {
 public:
  Xxh3Checksummer() : state_(XXH3_createState()) { Reset(); }
  ~Xxh3Checksummer() override { XXH3_freeState(state_); }
  Xxh3Checksummer(const Xxh3Checksummer&) = delete;
  Xxh3Checksummer& operator=(const Xxh3Checksummer&) = delete;

  void Update(const void* data, size_t len) override {
    XXH3_64bits_update(state_, data, len);
  }
  uint64_t Value() const override { return XXH3_64bits_digest(state_); }
  void Reset() override { XXH3_64bits_reset(state_); }

 private:
  XXH3_state_t* state_;
};

// ISA-L's AVX-512 CRC32C returns with the upper halves of the vector
// registers dirty; every legacy-SSE instruction after it (the generator's
// loop, compiled for baseline x86-64) then pays a state transition: the
// generator ran at 13.6 GiB/s after a CRC32C and 34 GiB/s with them
// cleared (bench/data_path_bench). vzeroupper clears them; it needs AVX.
__attribute__((target("avx"))) void ClearUpperVectorState() {
  __builtin_ia32_vzeroupper();
}
const bool kHaveAvx = __builtin_cpu_supports("avx");

// ISA-L's crc32_iscsi neither inverts its seed nor its result: feed the
// running (un-inverted) value back in, and invert at the end.
class Crc32cChecksummer : public Checksummer {
 public:
  void Update(const void* data, size_t len) override {
    const auto* p = static_cast<const unsigned char*>(data);
    while (len > 0) {
      size_t n = std::min<size_t>(len, 1u << 30);  // len is an int in ISA-L
      crc_ =
          crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(n), crc_);
      p += n;
      len -= n;
    }
    if (kHaveAvx) ClearUpperVectorState();
  }
  uint64_t Value() const override { return static_cast<uint32_t>(~crc_); }
  void Reset() override { crc_ = 0xFFFFFFFFu; }

 private:
  unsigned int crc_ = 0xFFFFFFFFu;
};

}  // namespace

std::unique_ptr<Checksummer> NewChecksummer(ChecksumKind kind) {
  if (kind == ChecksumKind::kCrc32c) {
    return std::make_unique<Crc32cChecksummer>();
  }
  return std::make_unique<Xxh3Checksummer>();
}

uint64_t Xxh3(const void* data, size_t len) { return XXH3_64bits(data, len); }

uint32_t Crc32c(const void* data, size_t len) {
  Crc32cChecksummer c;
  c.Update(data, len);
  return static_cast<uint32_t>(c.Value());
}

std::string Crc32cBase64(const void* data, size_t len) {
  return Crc32cToBase64(Crc32c(data, len));
}

std::string Crc32cToBase64(uint32_t v) {
  const char be[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                      static_cast<char>(v >> 8), static_cast<char>(v)};
  return Base64Encode(std::string_view(be, 4));
}

}  // namespace ckpt
