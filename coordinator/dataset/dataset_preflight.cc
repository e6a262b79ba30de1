#include "coordinator/dataset/dataset_preflight.h"

#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/datagen_job.h"
#include "common/dataset/dataload_job.h"
#include "common/dataset/dataload_memory.h"
#include "common/dataset/dataset_manifest.h"
#include "common/dataset/dataset_options.h"
#include "common/dataset/epoch_order.h"
#include "common/error_kind.h"
#include "common/memory.h"
#include "common/status_macros.h"
#include "common/storage_uri.h"
#include "common/text.h"

namespace ckpt {
namespace {

absl::Status CheckDatagen(const Config& c, const DatasetLook& look,
                          const std::string& uri) {
  const DatasetSpec spec = DatasetSpecOf(c);
  const std::string shown = EscapeForTerminal(uri);
  if (look.manifest_found) {
    const std::string where = absl::StrCat(shown, "/", kDatasetManifestName);
    ASSIGN_OR_RETURN(const DatasetManifest m,
                     DatasetManifestFromJson(look.manifest, where));
    return CheckManifestMatches(m, spec, shown);  // a match is reused
  }
  if (!look.free_known) return absl::OkStatus();
  const DatasetTotals totals = ComputeTotals(spec);
  if (totals.bytes <= look.free_bytes) return absl::OkStatus();
  return absl::ResourceExhaustedError(absl::StrCat(
      "datagen: the dataset asked for is ", FormatBytes(totals.bytes), " (",
      totals.objects, " objects) but ", shown, " is on a file system (",
      EscapeForTerminal(look.filesystem), ") with ",
      FormatBytes(look.free_bytes),
      " free. Expected fewer samples (dataset.samples), smaller ones "
      "(dataset.sample_bytes) or another dataset.path"));
}

absl::Status CheckDataload(const Config& c, const DatasetLook& look,
                           const std::string& uri, size_t nodes) {
  const std::string shown = EscapeForTerminal(uri);
  if (!look.manifest_found) return NoDatasetAt(shown);
  const std::string where = absl::StrCat(shown, "/", kDatasetManifestName);
  ASSIGN_OR_RETURN(const DatasetManifest m,
                   DatasetManifestFromJson(look.manifest, where));
  // The footprint first: it needs only the manifest's numbers, and the
  // totals' check below walks every sample.
  DataloadShape shape;
  shape.format = m.spec.format;
  shape.access = DataloadOf(c).access;
  shape.samples = m.spec.samples;
  shape.objects = ApproxObjects(m.spec);  // the manifest's may lie
  shape.name_bytes = uri.size() + 32;
  const int ranks = DataloadOf(c).find_accelerators > 0
                        ? DataloadOf(c).find_accelerators
                        : c.RanksPerNode();
  shape.ranks_per_node = static_cast<uint64_t>(std::max(ranks, 1));
  shape.world = shape.ranks_per_node * std::max<size_t>(nodes, 1);
  const DataloadFootprint f = EstimateDataloadMemory(shape);
  RETURN_IF_ERROR(CheckDataloadMemory(
      f, /*node_side=*/true, {look.memory_bytes, look.memory_source},
      absl::StrCat("the manifest's samples ", m.spec.samples, " at ", where)));
  RETURN_IF_ERROR(CheckDataloadMemory(
      f, /*node_side=*/false, AvailableMemory(),
      absl::StrCat("the manifest's samples ", m.spec.samples, " at ", where)));
  RETURN_IF_ERROR(CheckManifestTotals(m, where));
  // The accelerator search's first count is 1 rank per node; its memory
  // above is its largest's.
  const uint64_t first =
      DataloadOf(c).find_accelerators > 0
          ? 1
          : static_cast<uint64_t>(std::max(c.RanksPerNode(), 1));
  return CheckEveryRankReads(
      m.spec.samples, m.totals.objects, first * std::max<size_t>(nodes, 1),
      DataloadOf(c).access == DataAccess::kIterable, DataloadOf(c).drop_last,
      absl::StrCat("the dataset at ", shown));
}

}  // namespace

bool LooksAtDataset(const Config& c) {
  if (c.run.workload == kDatagenWorkload) return !DatasetOf(c).remove;
  return c.run.workload == kDataloadWorkload &&
         DatasetOf(c).source == DatasetSource::kCkptbench;
}

absl::Status CheckDatasetBeforeRun(const Config& c,
                                   const std::vector<DatasetLook>& looks,
                                   const std::vector<std::string>& uris,
                                   size_t nodes) {
  for (size_t i = 0; i < looks.size() && i < uris.size(); ++i) {
    if (c.run.workload == kDatagenWorkload) {
      RETURN_IF_ERROR(CheckDatagen(c, looks[i], uris[i]));
    } else {
      RETURN_IF_ERROR(CheckDataload(c, looks[i], uris[i], nodes));
    }
  }
  return absl::OkStatus();
}

absl::Status PreflightDataset(RunContext& ctx) {
  const Config& config = ctx.config();
  if (!LooksAtDataset(config)) return absl::OkStatus();
  std::vector<DatasetLook> looks;
  std::vector<std::string> uris;
  for (size_t i = 0; i < ctx.StorageOwners(); ++i) {
    NodeClient* node = ctx.nodes()[i];
    InspectJob job;
    job.run_id = ctx.run_id();
    job.dataset_uri = ForNode(DatasetPath(config), node->index());
    job.backend = ctx.backend();
    auto look = node->Inspect(job);
    if (IsNodeError(look.status())) {
      return WithPrefix(look.status(),
                        absl::StrCat("dataset.path (CKPT_DATASET_PATH) ",
                                     job.dataset_uri, " is not usable: "));
    }
    RETURN_IF_ERROR(look.status());
    looks.push_back(std::move(look->dataset));
    uris.push_back(job.dataset_uri);
  }
  return CheckDatasetBeforeRun(config, looks, uris, ctx.nodes().size());
}

}  // namespace ckpt
