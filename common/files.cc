#include "common/files.h"

#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"

namespace ckpt {

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) return absl::InternalError(absl::StrCat("cannot write ", tmp));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot write ", path, ": ", ec.message()));
  }
  return absl::OkStatus();
}

}  // namespace ckpt
