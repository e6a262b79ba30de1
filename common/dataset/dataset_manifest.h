// A dataset's manifest, "ckptbench-dataset.json" at its root: written
// last by `ckptbench datagen` (a dataset counts only once it is there, as a
// step counts once its .metadata is), read before a dataset is reused or
// read. It holds the numbers the whole layout derives from
// (common/dataset/dataset_layout.h) and a few totals to cross-check, so it
// stays a few hundred bytes at any sample count. Read as hostile input: bounded
// size, known version and generator, every number in range. Pure.
#ifndef CKPTBENCH_COMMON_DATASET_DATASET_MANIFEST_H_
#define CKPTBENCH_COMMON_DATASET_DATASET_MANIFEST_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "common/dataset/dataset_layout.h"

namespace ckpt {

inline constexpr char kDatasetManifestName[] = "ckptbench-dataset.json";
// A make's claim of the path it writes (a datagen's dataset, or a serve
// run's generated model, common/serving/model_manifest.h; Storage::
// ClaimDir, as a save claims its step), kept with what it made, and in it
// the manifest the run is writing (pending until the real one is written):
// what a removal removes when a make was killed before its manifest, or a
// removal before its end. Its name on storage is the one datagen always
// wrote.
inline constexpr char kMakeClaimDir[] = ".ckptbench-datagen";
inline constexpr char kPendingManifestName[] = "pending.json";
inline constexpr int kDatasetManifestVersion = 1;
inline constexpr size_t kMaxDatasetManifestBytes = 64 * 1024;

struct DatasetManifest {
  DatasetSpec spec;
  DatasetTotals totals;
  std::string run_id;  // the datagen run that made it
  int64_t created_unix_ns = 0;
};

std::string DatasetManifestToJson(const DatasetManifest& manifest);
// `what` names the file in errors.
absl::StatusOr<DatasetManifest> DatasetManifestFromJson(
    std::string_view text, const std::string& what);

// A dataload of a dataset of ckptbench's where `shown` holds no manifest:
// NotFound saying how to make one or read one's own.
absl::Status NoDatasetAt(const std::string& shown);

// Whether the manifest's totals (objects, bytes, the samples' bytes) are
// what its spec's layout gives (ComputeTotals: a walk of every sample,
// tens of ns each); if not, DataLoss naming `what`, the field, both values.
absl::Status CheckManifestTotals(const DatasetManifest& manifest,
                                 const std::string& what);

// Whether the dataset the manifest describes is the one `spec` asks for;
// if not, an error naming each field that differs, both values, and
// `where` (the dataset's location).
absl::Status CheckManifestMatches(const DatasetManifest& manifest,
                                  const DatasetSpec& spec,
                                  const std::string& where);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_DATASET_DATASET_MANIFEST_H_
