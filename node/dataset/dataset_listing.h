// A dataset ckptbench did not make (dataset.source=listed): the user's own
// files or WebDataset TAR shards under a directory or prefix, found by
// listing it (Storage::ListTree) at the epoch's untimed prepare. Files:
// every object is one sample (the manifest's name left out), in name
// order. Tar: the objects ending in ".tar" are shards, in name order; the
// others are counted and left out. Their members are indexed by reading
// every shard whole through the hostile TarStreamReader and grouping
// consecutive members by WebDataset's key (the member's path up to the
// first '.' of its last component): a sample is one key's members, read
// map-style as one ranged read from its first member's data to its last
// member's end. A shard is read to its end-of-archive blocks, no further:
// an object longer than its archive by more than a record (10 KiB, what
// tar pads to) is counted and named (overlong), its rest never read. The index
// is kept for later epochs of the process while a new listing finds the same
// names, sizes and versions (ListedObject). The bytes are the user's: nothing
// is verified but that they are there. Every name must be printable text
// (EscapeForTerminal leaves it as it is): it is printed as it is from here on.
#ifndef CKPTBENCH_NODE_DATASET_DATASET_LISTING_H_
#define CKPTBENCH_NODE_DATASET_DATASET_LISTING_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/kinds.h"
#include "node/storage/http_client.h"
#include "node/storage/storage.h"

namespace ckpt {

// The bytes tar pads an archive to (a record: 20 blocks): an object longer
// than its end-of-archive by more than this is noted as overlong.
inline constexpr uint64_t kTarRecordBytes = 20 * 512;

struct ListedDataset {
  DatasetFormat format = DatasetFormat::kFiles;
  std::vector<ListedObject> objects;  // shards or sample files, sorted
  uint64_t ignored = 0;               // listed, not of the format
  uint64_t bytes = 0;                 // the objects'
  // Tar: the shards' members, shared with later epochs' listings.
  struct Members {
    // Shard k holds samples [first_sample[k], first_sample[k + 1]);
    // sample s spans size[s] bytes from block[s] * 512 of its shard.
    std::vector<uint64_t> first_sample;
    std::vector<uint32_t> block;
    std::vector<uint64_t> size;
  };
  std::shared_ptr<const Members> members;
  uint64_t samples = 0;
  uint64_t sample_bytes = 0;  // the samples' spans summed (files: objects)
  // Of the names and sizes listed (and the members indexed): nodes that
  // read one shared dataset must agree on it.
  uint64_t digest = 0;
  // What it cost, this prepare: the listing's, and the index's (0 when a
  // kept index served; index_reused says so).
  double list_seconds = 0;
  uint64_t list_requests = 0;
  double index_seconds = 0;
  uint64_t index_requests = 0, index_bytes = 0;
  bool index_reused = false;
  // Shards longer than their archive by more than a record, the bytes
  // past their archives' ends, and the first one's name.
  uint64_t overlong = 0, overlong_bytes = 0;
  std::string overlong_first;
};

// The last TAR index a node made, for its later epochs while the listing
// is unchanged: one per node (the dataload workload's registration holds
// it; nothing of it is process-wide). Thread-safe.
class KeptIndex {
 public:
  // Into `d`: the kept index of `root` if its listing (`digest`) is the
  // same; false if none is.
  bool Take(const std::string& root, uint64_t digest, ListedDataset* d) const;
  // Keeps `d`'s index of `root` (listing `digest`).
  void Keep(const std::string& root, uint64_t digest, const ListedDataset& d);

 private:
  mutable std::mutex mu_;
  std::string root_;
  uint64_t digest_ = 0;
  std::shared_ptr<const ListedDataset::Members> members_;
  uint64_t overlong_ = 0, overlong_bytes_ = 0;
  std::string overlong_first_;
};

// Lists (and indexes) the dataset at `root` (the backend's path) of
// `format` within `bounds` (whose abort flag also stops the index between
// reads); `shown` names it in errors; requests count in `counters`; a TAR
// index comes from `kept` (may be null) while the listing is unchanged,
// and is kept there. A name
// listed twice (DataLoss: the server's), a 0-byte shard and a dataset of no
// sample at all (FailedPrecondition) are refused, naming them; so is an
// index past bounds.memory_bytes (ResourceExhausted).
absl::StatusOr<ListedDataset> ListDataset(
    Storage& storage, const ObjectStoreCounters& counters,
    const std::string& root, DatasetFormat format, const std::string& shown,
    const ListingBounds& bounds, KeptIndex* kept);

// WebDataset's key of a member name: "a/b.c.jpg" is "a/b".
std::string WebDatasetKey(const std::string& member);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_DATASET_LISTING_H_
