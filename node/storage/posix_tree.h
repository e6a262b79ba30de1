// A file system directory walked for Storage::ListTree (a dataset
// ckptbench did not make): every regular file at any depth, with its size,
// without following a link; a link, device, FIFO or socket is refused,
// named, and so is a tree more than 64 directories deep. More than
// `bounds.max_entries` files is ResourceExhausted; the abort flag is
// looked at before each directory (Aborted).
#ifndef CKPTBENCH_NODE_STORAGE_POSIX_TREE_H_
#define CKPTBENCH_NODE_STORAGE_POSIX_TREE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "node/storage/storage.h"

namespace ckpt {

absl::StatusOr<std::vector<ListedObject>> ListRegularFiles(
    const std::string& dir, const ListingBounds& bounds);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_POSIX_TREE_H_
