// A node's dataload report and the asks and answers of the checkpoints
// during its epoch (common/dataset/dataload_report.h) to and from the bytes the
// round protocol carries for a workload (PhaseReport's workload_report,
// ActionRequest's and ActionReply's payload), as ckptbench.v1
// DataloadReport, EpochSaveAsk and EpochSaveAnswer (proto/ckptbench/v1/
// dataset.proto). Both sides use them. Decoding checks what the bytes
// alone can say (they parse; the histograms are ones this build holds);
// the figures against the epoch are the coordinator's to check.
#ifndef CKPTBENCH_WIRE_DATALOAD_REPORT_CODEC_H_
#define CKPTBENCH_WIRE_DATALOAD_REPORT_CODEC_H_

#include <string>

#include "absl/status/statusor.h"
#include "common/dataset/dataload_report.h"

namespace ckpt {

std::string EncodeDataloadReport(const DataloadReport& report);
// DataLoss naming what does not hold: the bytes do not parse, or a
// histogram is not one this build holds.
absl::StatusOr<DataloadReport> DecodeDataloadReport(const std::string& bytes);

std::string EncodeEpochSaveAsk(const EpochSaveAsk& ask);
// InvalidArgument when the bytes do not parse or name no save. A saved
// ask's report or prepare outcome that cannot be held is its `unheld`.
absl::StatusOr<EpochSaveAsk> DecodeEpochSaveAsk(const std::string& bytes);

std::string EncodeEpochSaveAnswer(const EpochSaveAnswer& answer);
// Internal when the bytes do not parse (the coordinator is trusted to
// answer with what this build sends).
absl::StatusOr<EpochSaveAnswer> DecodeEpochSaveAnswer(const std::string& bytes);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_DATALOAD_REPORT_CODEC_H_
