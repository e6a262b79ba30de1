#include "report/compare.h"

#include <cmath>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckpt {

Comparison ComparePoints(const SweepData& a, const SweepData& b) {
  Comparison c;
  std::vector<PointStats> pa = ByPoint(a), pb = ByPoint(b);
  std::map<std::string, const PointStats*> in_b;
  for (const auto& p : pb) in_b[p.point_name] = &p;
  std::map<std::string, bool> seen;
  for (const auto& p : pa) {
    auto it = in_b.find(p.point_name);
    if (it == in_b.end()) {
      c.only_a.push_back(p.point_name);
      continue;
    }
    seen[p.point_name] = true;
    for (const Phase phase : {Phase::kSave, Phase::kLoad}) {
      const PhaseStats& x = p.phase(phase);
      const PhaseStats& y = it->second->phase(phase);
      if (x.round_mib_s.empty() || y.round_mib_s.empty()) continue;
      CompareRow row;
      row.point = p.point_name;
      row.phase = phase;
      row.a_mib_s = x.mib_s();
      row.b_mib_s = y.mib_s();
      row.a_seconds = x.seconds();
      row.b_seconds = y.seconds();
      row.a_total_mib_s = x.total_mib_s();
      row.b_total_mib_s = y.total_mib_s();
      double delta = row.b_total_mib_s - row.a_total_mib_s;
      row.change_percent =
          row.a_total_mib_s > 0 ? 100 * delta / row.a_total_mib_s : 0;
      row.spread_mib_s = std::max(row.a_mib_s.max - row.a_mib_s.min,
                                  row.b_mib_s.max - row.b_mib_s.min);
      if (row.a_mib_s.count < 2 || row.b_mib_s.count < 2) {
        row.verdict = "too few rounds";
      } else if (std::fabs(delta) > row.spread_mib_s) {
        row.verdict = "changed";
      } else {
        row.verdict = "within spread";
      }
      c.rows.push_back(row);
    }
  }
  for (const auto& p : pb) {
    if (!seen.count(p.point_name)) c.only_b.push_back(p.point_name);
  }
  return c;
}

std::string CompareTable(const Comparison& c, const std::string& a_name,
                         const std::string& b_name) {
  std::string s = absl::StrFormat("A: %s\nB: %s\n\n", a_name, b_name);
  absl::StrAppendFormat(&s, "%-36s %-5s %11s %11s %9s %10s %10s %9s %11s  %s\n",
                        "point", "phase", "A MiB/s", "B MiB/s", "change",
                        "spread", "A s", "B s", "change s", "verdict");
  for (const auto& r : c.rows) {
    double ds =
        r.a_seconds.mean > 0
            ? 100 * (r.b_seconds.mean - r.a_seconds.mean) / r.a_seconds.mean
            : 0;
    absl::StrAppendFormat(&s,
                          "%-36s %-5s %11.1f %11.1f %+8.1f%% %10.1f %10.3f "
                          "%9.3f %+10.1f%%  %s%s\n",
                          r.point, Name(r.phase), r.a_total_mib_s,
                          r.b_total_mib_s, r.change_percent, r.spread_mib_s,
                          r.a_seconds.mean, r.b_seconds.mean, ds,
                          r.verdict == "changed" ? "* " : "", r.verdict);
  }
  for (const auto& p : c.only_a) absl::StrAppend(&s, "only in A: ", p, "\n");
  for (const auto& p : c.only_b) absl::StrAppend(&s, "only in B: ", p, "\n");
  s += "\nMiB/s: all timed rounds' bytes over their summed time (not a mean "
       "of round rates); change: B vs A in that rate; spread: the wider "
       "min..max range of single rounds' MiB/s; * marks a change larger than "
       "the spread.\n";
  return s;
}

}  // namespace ckpt
