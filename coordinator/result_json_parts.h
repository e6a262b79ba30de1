// Parts of result.json (json_codec.cc writes them) for files that embed
// them (the collated results of a sweep, report/collate.cc) and for the
// workloads' own parts of it.
#ifndef CKPTBENCH_COORDINATOR_RESULT_JSON_PARTS_H_
#define CKPTBENCH_COORDINATOR_RESULT_JSON_PARTS_H_

#include <nlohmann/json.hpp>

#include "coordinator/results.h"

namespace ckpt {

// result.json's "plan" and a "summary" phase.
nlohmann::ordered_json PlanJson(const RunResult& r);
nlohmann::ordered_json SummaryJson(const PhaseSummary& s);
// An operation's latency: its percentiles and the histogram itself (the
// workloads' parts write theirs with it).
nlohmann::ordered_json OpJson(const Histogram& h);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RESULT_JSON_PARTS_H_
