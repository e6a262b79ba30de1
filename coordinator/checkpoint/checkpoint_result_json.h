// The codecs of the checkpoint's sections of result.json
// (checkpoint_results.h), with which ResultToJson writes them and
// ResultFromJson reads them back: the run's "reshard" and "goodput", a
// save round's "time_to_visible".
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_

#include "coordinator/result_section.h"

namespace ckpt {

// The section's codec, registered with the checkpoint: placed before the
// rounds, first of the run's sections there (the checkpoint is registered
// first), where "reshard" always was.
ResultSectionCodec ReshardSectionCodec();
// Placed at the end, after the run's summary, where "goodput" always was;
// its text derived from the run's rounds when the file is written (none
// without run.mttf or a timed save).
ResultSectionCodec GoodputSectionCodec();
// A round's, placed after its figures (kRoundFigures), where
// "time_to_visible" always was: after a load's coverage and page cache
// (a save has neither), before the round's clock.
ResultSectionCodec VisibilitySectionCodec();

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_CHECKPOINT_RESULT_JSON_H_
