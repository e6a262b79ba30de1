// The datagen workload's messages (common/dataset/datagen_job.h) to and from
// the bytes the round protocol carries for a workload (PrepareRequest's
// workload_job, PrepareReply's workload_outcome, PhaseReport's
// workload_report), as ckptbench.v1 DatagenJob, DatagenPrepared and
// DatagenReport (proto/ckptbench/v1/dataset.proto). Both sides use them:
// the coordinator encodes the job and decodes the other two, the node the
// reverse. Decoding checks what it can without the storage: the bytes
// parse, a dataset format and the backend settings this build knows (the
// settings and dataset.write_threads and io.block_size through the
// configuration's key table, so the node's bounds are the table's), a
// share that is one, a manifest within kMaxDatasetManifestBytes. The
// dataset's numbers are checked by the node (CheckDatasetSpec).
#ifndef CKPTBENCH_WIRE_DATAGEN_CODEC_H_
#define CKPTBENCH_WIRE_DATAGEN_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/dataset/datagen_job.h"

namespace ckpt {

std::string EncodeDatagenJob(const DatagenJob& job);
// InvalidArgument naming the field (or key) and what was expected.
absl::StatusOr<DatagenJob> DecodeDatagenJob(const std::string& bytes);

std::string EncodeDatagenPrepared(const DatagenPrepared& prepared);
// DataLoss when it does not parse or its manifest is too large.
absl::StatusOr<DatagenPrepared> DecodeDatagenPrepared(const std::string& bytes);

std::string EncodeDatagenReport(const DatagenReport& report);
// DataLoss when it does not parse.
absl::StatusOr<DatagenReport> DecodeDatagenReport(const std::string& bytes);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_DATAGEN_CODEC_H_
