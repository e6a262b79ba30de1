// `ckptbench compare A B`: the points two sweep (or run) directories share,
// matched by their swept values, side by side per phase: mean MiB/s and
// seconds over every timed round, the change in percent, and a flag where
// the change in mean throughput is larger than the run-to-run spread
// (the wider of the two min..max ranges of round throughput). Pure.
#ifndef CKPTBENCH_REPORT_COMPARE_H_
#define CKPTBENCH_REPORT_COMPARE_H_

#include <string>
#include <vector>

#include "report/sweep_data.h"

namespace ckpt {

struct CompareRow {
  std::string point;
  Phase phase = Phase::kSave;
  // Per round (distributions).
  Spread a_mib_s, b_mib_s, a_seconds, b_seconds;
  // Each side's rate: its rounds' bytes over their summed time.
  double a_total_mib_s = 0, b_total_mib_s = 0;
  double change_percent = 0;  // B vs A, of those rates
  double spread_mib_s = 0;    // max(A range, B range) of round rates
  // "changed": |B - A| > spread with at least 2 rounds on each side;
  // "within spread"; or "too few rounds" to judge.
  std::string verdict;
};

struct Comparison {
  std::vector<CompareRow> rows;
  std::vector<std::string> only_a, only_b;  // points one side lacks
};

Comparison ComparePoints(const SweepData& a, const SweepData& b);
std::string CompareTable(const Comparison& c, const std::string& a_name,
                         const std::string& b_name);

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_COMPARE_H_
