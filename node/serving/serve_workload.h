// The serve workload on a node (registered as kServeWorkload,
// common/serving/serve_job.h): one node is one serving replica.
//  - make: writes its share of a generated model's files (the manifest
//    owner first claims the directory and writes the pending manifest; the
//    coordinator writes the manifest once every node is done); a directory
//    whose manifest matches is reused, one holding another model refused.
//  - load: the ranks' reads planned at prepare (common/serving/
//    replica_plan.h) and every file's pages evicted as io.cache_mode says
//    (Storage::PrepareColdRead); then timed from the common start, as a
//    replica loads: with `download` the files copied to the node first
//    (model_download.h); every rank at once finds the files, reads every
//    header (model_headers.h) and reads its share in serve.read_mode
//    (range_stream.h, mapped_ranges.h), kept in host memory with
//    serve.hold (held_weights.h); a generated model's bytes are each
//    checked against the pattern, a listed model's read unverified.
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
