// A dataset's manifest read from a node's storage: bounded to
// kMaxDatasetManifestBytes before a byte of it is read (what a shared
// bucket holds under that name may be anything).
#ifndef CKPTBENCH_NODE_DATASET_MANIFEST_READ_H_
#define CKPTBENCH_NODE_DATASET_MANIFEST_READ_H_

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "common/dataset/dataset_manifest.h"
#include "common/inspection.h"
#include "node/storage/storage.h"

namespace ckpt {

// The manifest's text at `root` (the backend's path), nullopt when there
// is none; `shown` names the dataset in errors. `name`: the manifest's
// (kDatasetManifestName), or a pending one's in the datagen claim.
absl::StatusOr<std::optional<std::string>> ReadManifest(
    Storage& storage, const std::string& root, const std::string& shown,
    const std::string& name = kDatasetManifestName);

// Removes a make's claim (a dataset's or a model's) at `claim_dir`
// (kMakeClaimDir): its pending manifest and its claim entries (kClaimName, or
// kClaimName-<run> on stores without conditional writes), nothing else; missing
// is fine.
absl::Status ReleaseMakeClaim(Storage& storage, const std::string& claim_dir);

// Whether `claim_dir` holds a make's claim entry.
absl::StatusOr<bool> HoldsMakeClaim(Storage& storage,
                                    const std::string& claim_dir);

// What a datagen or dataload run's preflight asks of a node (an Inspect
// with a dataset_uri): the manifest at `root`, the free space of the file
// system there, the memory this node may still use.
absl::StatusOr<DatasetLook> LookAtDataset(Storage& storage,
                                          const std::string& root,
                                          const std::string& shown);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_MANIFEST_READ_H_
