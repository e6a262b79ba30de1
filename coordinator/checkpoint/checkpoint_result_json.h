// The checkpoint's sections of result.json (checkpoint_results.h), written
// (ResultToJson) and read back (ResultFromJson): the run's "reshard" and
// "goodput", with their codecs.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_

#include <nlohmann/json.hpp>

#include "coordinator/checkpoint/checkpoint_results.h"
#include "coordinator/result_fields.h"
#include "coordinator/result_section.h"

namespace ckpt {

nlohmann::ordered_json ReshardJson(const ReshardResult& rs);
void ReadReshard(const Fields& f, ReshardResult* rs);
nlohmann::ordered_json GoodputJson(const GoodputResult& g);
// Only what goodput is computed at: the rest is derived again.
void ReadGoodputAt(const Fields& f, GoodputAt* at);

// The section's codec, registered with the checkpoint: placed before the
// rounds, first of the run's sections there (the checkpoint is registered
// first), where "reshard" always was.
ResultSectionCodec ReshardSectionCodec();
// Placed at the end, after the run's summary, where "goodput" always was;
// its text derived from the run's rounds when the file is written (none
// without run.mttf or a timed save).
ResultSectionCodec GoodputSectionCodec();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_
