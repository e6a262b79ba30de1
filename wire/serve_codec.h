// The serve workload's messages (common/serving/serve_job.h) to and from
// the bytes the round protocol carries for a workload, as ckptbench.v1
// ServeJob, ServePrepared and ServeReport (proto/ckptbench/v1/
// serving.proto). Both sides use them: the coordinator encodes the job and
// decodes the other two, the node the reverse. Decoding checks what it can
// without the storage: the bytes parse, every enum is one this build knows,
// the backend settings and the serve.* values through the configuration's
// key table (the node's bounds are the table's), a share that is one, at
// most kMaxServeRanks ranks reported.
#ifndef CKPTBENCH_WIRE_SERVE_CODEC_H_
#define CKPTBENCH_WIRE_SERVE_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/serving/serve_job.h"

namespace ckpt {

std::string EncodeServeJob(const ServeJob& job);
// InvalidArgument naming the field (or key) and what was expected.
absl::StatusOr<ServeJob> DecodeServeJob(const std::string& bytes);

std::string EncodeServePrepared(const ServePrepared& prepared);
// DataLoss when it does not parse.
absl::StatusOr<ServePrepared> DecodeServePrepared(const std::string& bytes);

std::string EncodeServeReport(const ServeReport& report);
// DataLoss when it does not parse or has more ranks than a replica may.
absl::StatusOr<ServeReport> DecodeServeReport(const std::string& bytes);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_SERVE_CODEC_H_
