// result.json (schema ckptbench.result/v1) both ways. Pure functions;
// thread-safe. (A step's .metadata is the checkpoint's:
// coordinator/checkpoint/metadata_json.h.)
#ifndef CKPTBENCH_COORDINATOR_JSON_CODEC_H_
#define CKPTBENCH_COORDINATOR_JSON_CODEC_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "coordinator/results.h"

namespace ckpt {

class WorkloadRegistry;

inline constexpr char kResultSchema[] = "ckptbench.result/v1";

// The run's result.json. Each workload's section (RunResult::sections) at
// its place, in `registry`'s registration order: before the rounds, or at
// the end, after the summary (a section `registry` has no codec for: after
// them, by member); a round's (RoundResult::sections) at the round's head
// or after its figures (before its clock), in registration order, every
// other at the round's end. The first form writes with
// WorkloadRegistry::BuiltIn().
std::string ResultToJson(const RunResult& result);
std::string ResultToJson(const RunResult& result,
                         const WorkloadRegistry& registry);

// Whether `name` is a member every result.json's run object may have (one
// this build reads itself; a workload's own section is not).
bool IsRunResultMember(std::string_view name);
// The same of a round's object (rounds[]).
bool IsRoundResultMember(std::string_view name);

// result.json back into the types that wrote it (result_from_json.cc): a
// field that is absent (an older result) or null (a NaN written) keeps its
// default; one of the wrong type, or another schema, is refused naming the
// field's path ("rounds[2].nodes[0].seconds") and `where` (the file), as
// InvalidArgument; text that is not a JSON object is DataLoss. The
// summary is not read: it is derived (RunResult::Summarize) from what is;
// of the checkpoint's goodput only what it is computed at is read, the rest
// derived again (coordinator/checkpoint/checkpoint_results.h).
// A workload `registry` has not registered (the run's or a round's) is
// carried through as foreign (result_foreign.h); the first form reads
// with WorkloadRegistry::BuiltIn().
absl::StatusOr<RunResult> ResultFromJson(const std::string& text,
                                         const std::string& where);
absl::StatusOr<RunResult> ResultFromJson(const std::string& text,
                                         const std::string& where,
                                         const WorkloadRegistry& registry);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_JSON_CODEC_H_
