#include "node/dataset/manifest_read.h"

#include "absl/strings/str_cat.h"
#include "common/dataset_manifest.h"
#include "common/status_macros.h"

namespace ckpt {

absl::StatusOr<std::optional<std::string>> ReadManifest(
    Storage& st, const std::string& root, const std::string& shown) {
  const std::string path = JoinPath(root, kDatasetManifestName);
  absl::StatusOr<std::unique_ptr<ReadableFile>> f = st.OpenRead(path, {});
  if (absl::IsNotFound(f.status())) return std::nullopt;
  if (!f.ok()) return f.status();
  if ((*f)->Size() > kMaxDatasetManifestBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        shown, "/", kDatasetManifestName, " is ", (*f)->Size(),
        " bytes; a manifest is at most ", kMaxDatasetManifestBytes));
  }
  ASSIGN_OR_RETURN(std::string text, ReadWhole(**f, path));
  return text;
}

}  // namespace ckpt
