// Map-style access (batch_source.h): worker w of W makes the rank's
// batches w, w + W, w + 2W, ..., each sample read with one request for its
// bytes (on TAR shards a ranged read of the member; the size is known, so
// no HEAD) and verified as it arrives.
#ifndef CKPTBENCH_NODE_DATASET_MAP_SOURCE_H_
#define CKPTBENCH_NODE_DATASET_MAP_SOURCE_H_

#include <memory>
#include <vector>

#include "common/dataset/epoch_order.h"
#include "node/dataset/batch_source.h"

namespace ckpt {

// `samples`: the rank's, in the sampler's order (outlives the source).
std::unique_ptr<BatchSource> NewMapSource(const SourceContext& ctx,
                                          const RankOrder& samples,
                                          uint32_t worker);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_MAP_SOURCE_H_
