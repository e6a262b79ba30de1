#include "node/dataset/manifest_read.h"

#include "absl/strings/str_cat.h"
#include "common/dataset/dataset_manifest.h"
#include "common/memory.h"
#include "common/status_macros.h"

namespace ckpt {

absl::StatusOr<std::optional<std::string>> ReadManifest(
    Storage& st, const std::string& root, const std::string& shown,
    const std::string& name) {
  const std::string path = JoinPath(root, name);
  absl::StatusOr<std::unique_ptr<ReadableFile>> f = st.OpenRead(path, {});
  if (absl::IsNotFound(f.status())) return std::nullopt;
  if (!f.ok()) return f.status();
  if ((*f)->Size() > kMaxDatasetManifestBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        shown, "/", name, " is ", (*f)->Size(),
        " bytes; a manifest is at most ", kMaxDatasetManifestBytes));
  }
  ASSIGN_OR_RETURN(std::string text, ReadWhole(**f, path));
  return text;
}

namespace {

bool IsClaimEntry(const std::string& name) {
  return name.rfind(kClaimName, 0) == 0;
}

}  // namespace

absl::Status ReleaseMakeClaim(Storage& st, const std::string& claim_dir) {
  auto names = ListEntries(st, claim_dir);
  if (absl::IsNotFound(names.status())) return absl::OkStatus();
  RETURN_IF_ERROR(names.status());
  std::vector<std::string> ours;
  for (const std::string& n : *names) {
    if (n == kPendingManifestName || IsClaimEntry(n)) ours.push_back(n);
  }
  return st.RemoveFiles(claim_dir, ours);
}

absl::StatusOr<bool> HoldsMakeClaim(Storage& st, const std::string& claim_dir) {
  auto names = ListEntries(st, claim_dir);
  if (absl::IsNotFound(names.status())) return false;
  RETURN_IF_ERROR(names.status());
  for (const std::string& n : *names) {
    if (IsClaimEntry(n)) return true;
  }
  return false;
}

absl::StatusOr<DatasetLook> LookAtDataset(Storage& st, const std::string& root,
                                          const std::string& shown) {
  DatasetLook look;
  ASSIGN_OR_RETURN(std::optional<std::string> text,
                   ReadManifest(st, root, shown));
  if (text) {
    look.manifest_found = true;
    look.manifest = *std::move(text);
  }
  if (const std::optional<uint64_t> free = st.FreeBytes(root)) {
    look.free_known = true;
    look.free_bytes = *free;
  }
  const FilesystemInfo fs = st.Filesystem(root);
  if (!fs.type.empty()) {
    look.filesystem = absl::StrCat(fs.type, " at ", fs.mount_point);
  }
  const MemoryBudget memory = AvailableMemory();
  look.memory_bytes = memory.available_bytes;
  look.memory_source = memory.source;
  return look;
}

}  // namespace ckpt
