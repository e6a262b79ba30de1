// The serve workload on a node (registered as kServeWorkload,
// common/serving/serve_job.h): one node is one serving replica.
//  - make: writes its share of a generated model's files (the manifest
//    owner first claims the directory and writes the pending manifest; the
//    coordinator writes the manifest once every node is done); a directory
//    whose manifest matches is reused, one holding another model refused.
//  - load: timed from the common start, as a replica loads: the model's
//    files found and every header read (model_headers.h), the ranks' reads
//    planned (common/serving/replica_plan.h), then every rank reads its
//    share at once, in `stream` mode (range_stream.h); a generated model's
//    bytes are each checked against the pattern, a listed model's read
//    unverified. Before the clock, every file's pages are evicted as
//    io.cache_mode says (Storage::PrepareColdRead).
//  - remove: the manifest first, then exactly the files it names, then the
//    claim.
#ifndef CKPTBENCH_NODE_SERVING_SERVE_WORKLOAD_H_
#define CKPTBENCH_NODE_SERVING_SERVE_WORKLOAD_H_

#include <memory>

#include "node/round/node_workload.h"

namespace ckpt {

std::unique_ptr<NodeWorkload> NewServeWorkload();

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_SERVE_WORKLOAD_H_
