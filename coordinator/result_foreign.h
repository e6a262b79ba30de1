// The parts of a result.json this build does not read (ForeignParts,
// coordinator/results.h): a workload another build knows and this one
// does not, and sections it has no reader for. Read, they are kept as they
// were, within bounds; written, they go back as they came; shown, they are
// named (escaped), so a reader of the summary or the report knows what it
// did not see. A whole file is never refused for them.
#ifndef CKPTBENCH_COORDINATOR_RESULT_FOREIGN_H_
#define CKPTBENCH_COORDINATOR_RESULT_FOREIGN_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "absl/types/span.h"
#include "coordinator/result_fields.h"
#include "coordinator/results.h"

namespace ckpt {

class WorkloadRegistry;

// Per run and per round object: at most this many sections, each named in
// at most kMaxForeignName bytes and nested at most kMaxForeignDepth deep,
// and a workload's name of at most kMaxForeignName bytes; past them the
// file is refused, naming the member. ForeignLines names at most
// kMaxForeignRoundLines rounds, then counts the rest.
inline constexpr size_t kMaxForeignSections = 64;
inline constexpr size_t kMaxForeignName = 64;
inline constexpr size_t kMaxForeignDepth = 32;
inline constexpr size_t kMaxForeignRoundLines = 8;

// The object's "workload" into *workload (and, when `registry` has no such
// workload, into out->workload too) and each member not in `known` (nor a
// workload's section `registry` has a codec for, of the run's object when
// `run_object`, else of a round's) into out->sections, with the member
// read that followed each into out->before. A failure goes to the
// fields' status.
void ReadForeign(const Fields& f, absl::Span<const std::string_view> known,
                 const WorkloadRegistry& registry, bool run_object,
                 std::string* workload, ForeignParts* out);

// Back into the object: each section where it was, before the member this
// build reads that followed it in the file, or at the end (the workload's
// name is the object's own "workload", written with it). A section under a
// member the object has already is left out: this build's own wins.
void WriteForeign(const ForeignParts& foreign, nlohmann::ordered_json* j);

// How deep `v` nests, counted without recursion (a hostile file may nest
// far deeper than a stack holds, and dump() recurses), up to `limit` + 1.
size_t DepthOf(const nlohmann::ordered_json& v, size_t limit);

// "workload 'serving' (unknown to this build); sections carried through
// unread: model, replicas", escaped for a terminal; "" when there is none.
std::string DescribeForeign(const ForeignParts& foreign);

// The run's and its rounds' foreign parts, one line each ("round 3 of
// rounds[]: ..."), for the readers' warning, the summary and the report.
std::vector<std::string> ForeignLines(const RunResult& r);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RESULT_FOREIGN_H_
