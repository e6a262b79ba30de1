#include "common/serving/serve_options.h"

#include "absl/strings/str_cat.h"

namespace ckpt {

std::string ServeModelPath(const Config& c) {
  if (!ServeOf(c).path.empty()) return ServeOf(c).path;
  std::string p = c.storage.path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return absl::StrCat(p, "/models/", c.model.name, "-",
                      std::string(Name(ServeOf(c).dtype)));
}

}  // namespace ckpt
