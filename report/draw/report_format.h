// What the HTML report's sections share, the workloads' registered parts
// among them: how a number is printed in a table and the line the
// utilization charts draw.
#ifndef CKPTBENCH_REPORT_DRAW_REPORT_FORMAT_H_
#define CKPTBENCH_REPORT_DRAW_REPORT_FORMAT_H_

#include <string>

#include "absl/strings/str_format.h"

namespace ckpt {

// A number with a fixed count of digits after the point ("3.14").
inline std::string Fixed(double v, int digits = 2) {
  return absl::StrFormat("%.*f", digits, v);
}

// MLPerf Storage's bar: a data loader keeps the accelerators at least this
// busy (% utilization).
inline constexpr double kMlperfLine = 90.0;

}  // namespace ckpt

#endif  // CKPTBENCH_REPORT_DRAW_REPORT_FORMAT_H_
