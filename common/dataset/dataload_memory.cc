#include "common/dataset/dataload_memory.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/bytes.h"

namespace ckpt {
namespace {

// What one kept object name costs beside its characters: a std::string
// (32 bytes) and the heap block its characters take past the small-string
// buffer, rounded up.
constexpr uint64_t kStringBytes = 64;
// A ListedObject: two strings and a size, before the name's characters.
constexpr uint64_t kListedObjectBytes = 96;

// Saturating a * b + c: the estimate of a hostile count must not wrap.
uint64_t MulAdd(uint64_t a, uint64_t b, uint64_t c = 0) {
  if (a != 0 && b > (UINT64_MAX - c) / a) return UINT64_MAX;
  return a * b + c;
}

void Part(DataloadFootprint* f, uint64_t bytes, const char* what) {
  if (bytes == 0) return;
  f->node_bytes = MulAdd(1, f->node_bytes, bytes);
  absl::StrAppend(&f->node_parts, f->node_parts.empty() ? "" : ", ",
                  FormatBytes(bytes), " ", what);
}

}  // namespace

DataloadFootprint EstimateDataloadMemory(const DataloadShape& s) {
  DataloadFootprint f;
  const bool tar = s.format == DatasetFormat::kTar;
  const uint64_t world = std::max<uint64_t>(1, s.world);
  const uint64_t ranks =
      std::min(world, std::max<uint64_t>(1, s.ranks_per_node));
  if (s.listed) {
    Part(&f, MulAdd(s.objects, kListedObjectBytes + s.name_bytes),
         "of listed objects");
    if (tar) {
      Part(&f, MulAdd(s.samples, 20, MulAdd(s.objects, 8)),
           "of the shards' member index");
    }
  } else if (tar) {
    Part(&f, MulAdd(s.samples, 4), "of sample offsets");
    Part(&f, MulAdd(s.objects, 16), "of the shard table");
    f.coordinator_bytes = MulAdd(s.objects, 16);
  }
  // The objects the node's ranks read: iterable, their share; map-style,
  // any of them (a rank's samples spread over every object).
  const uint64_t read =
      s.access == DataAccess::kIterable
          ? std::min(s.objects, s.objects / world * ranks + ranks)
          : s.objects;
  if (s.access == DataAccess::kIterable) {
    Part(&f, MulAdd(read, 4), "of the workers' object lists");
  }
  Part(&f, MulAdd(read, kStringBytes + s.name_bytes, s.objects / 8),
       "of object paths for the cold read");
  return f;
}

absl::Status CheckDataloadMemory(const DataloadFootprint& f, bool node_side,
                                 const MemoryBudget& budget,
                                 const std::string& what) {
  const uint64_t need = node_side ? f.node_bytes : f.coordinator_bytes;
  if (budget.available_bytes == 0) return absl::OkStatus();
  const uint64_t allowed = UsableBytes(budget);
  if (need <= allowed) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrCat(
      "this dataset's plan would hold about ", FormatBytes(need), " on ",
      node_side ? absl::StrCat("each node (", f.node_parts, ")")
                : std::string("the coordinator (its shard table)"),
      ", more than 80% of the ", FormatBytes(budget.available_bytes),
      " available there (", budget.source, "). Expected a dataset of fewer ",
      "samples or objects (", what,
      "), TAR shards instead of one file per sample (dataset.format=tar), "
      "or a node with more memory"));
}

}  // namespace ckpt
