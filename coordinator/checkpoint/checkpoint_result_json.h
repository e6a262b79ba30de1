// The checkpoint's sections of result.json (checkpoint_results.h), written
// (ResultToJson) and read back (ResultFromJson): the run's "reshard", with
// its codec.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_

#include <nlohmann/json.hpp>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/result_fields.h"
#include "coordinator/result_section.h"

namespace ckpt {

nlohmann::ordered_json ReshardJson(const ReshardResult& rs);
void ReadReshard(const Fields& f, ReshardResult* rs);

// The section's codec, registered with the checkpoint: placed before the
// rounds, first of the run's sections there (the checkpoint is registered
// first), where "reshard" always was.
ResultSectionCodec ReshardSectionCodec();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_
