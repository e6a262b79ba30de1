// Iterable access (batch_source.h), as a WebDataset pipeline runs in one
// DataLoader worker: the worker's objects (its share of the epoch's
// shuffled TAR shards, or of the files of one sample each; see
// WorkerObjects in common/dataset/epoch_order.h) are each read whole, in order
// (one request per object on object stores), copied out in pieces of the
// worker's buffer (SourceContext::Buffer: up to io.block_size); a shard's
// bytes go through the tar stream
// reader (tar_reader.h), a sample ending with its `.cls` member; every
// sample then passes a shuffle buffer of dataload.shuffle_buffer samples
// (WebDataset's shuffle(K)) and the worker makes batches of batch_size
// from what comes out, the last one partial (WebDataset's batched(),
// partial=True). Every byte of a shard (headers, data, labels, padding) is
// checked against what datagen wrote before it is parsed.
#ifndef CKPTBENCH_NODE_DATASET_STREAM_SOURCE_H_
#define CKPTBENCH_NODE_DATASET_STREAM_SOURCE_H_

#include <memory>
#include <vector>

#include "node/dataset/batch_source.h"

namespace ckpt {

// `objects`: the worker's, in the order it streams them; `seed` its
// shuffle buffer's.
std::unique_ptr<BatchSource> NewStreamSource(const SourceContext& ctx,
                                             std::vector<uint32_t> objects,
                                             uint64_t seed);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_DATASET_STREAM_SOURCE_H_
