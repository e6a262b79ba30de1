// The dataload workload's job and prepare outcome
// (common/dataset/dataload_job.h) to and from the bytes the round protocol
// carries for a workload (PrepareRequest's workload_job, PrepareReply's
// workload_outcome), as ckptbench.v1 DataloadJob and DataloadPrepared
// (proto/ckptbench/v1/ dataset.proto). Both sides use them: the coordinator
// encodes the job and decodes the outcome, the node the reverse. Decoding a job
// checks what it can without the storage: the bytes parse, the node's ranks are
// a share of the world, the kinds are ones this build knows, and the loader's
// settings (dataload.*), io.block_size and the backend settings through the
// configuration's key table, so the node's bounds are the table's. The epoch's
// checkpoint carries the checkpoint's own save job (wire/prepare_codec.h),
// which must be a save of the checkpoint.
#ifndef CKPTBENCH_WIRE_DATALOAD_CODEC_H_
#define CKPTBENCH_WIRE_DATALOAD_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/dataset/dataload_job.h"

namespace ckpt {

std::string EncodeDataloadJob(const DataloadJob& job);
// InvalidArgument naming the field (or key) and what was expected.
absl::StatusOr<DataloadJob> DecodeDataloadJob(const std::string& bytes);

std::string EncodeDataloadPrepared(const DataloadPrepared& prepared);
// DataLoss when it does not parse or its manifest is too large.
absl::StatusOr<DataloadPrepared> DecodeDataloadPrepared(
    const std::string& bytes);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_DATALOAD_CODEC_H_
