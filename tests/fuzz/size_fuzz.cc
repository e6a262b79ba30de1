// libFuzzer target: the size and duration parsers ("4MiB", "1.5GiB",
// "30", "2.5s") and the integer/bool/enum parsers behind every key.
#include <cstddef>
#include <cstdint>
#include <string>

#include "common/bytes.h"
#include "common/config.h"
#include "common/config_keys.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ckpt::ParseByteSize(text);
  int i = 0;
  uint64_t u = 0;
  bool b = false;
  (void)ckpt::keydefs::ParseInt(text, 0, &i);
  (void)ckpt::keydefs::ParseU64(text, &u);
  (void)ckpt::keydefs::ParseBool(text, &b);
  // Every key's own setter: sizes with bounds, durations, enums, URIs.
  for (const auto& key : ckpt::ConfigKeys()) {
    ckpt::Config c;
    (void)key.set(c, text);
  }
  return 0;
}
