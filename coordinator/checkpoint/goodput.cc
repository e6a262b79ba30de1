#include "coordinator/checkpoint/goodput.h"

#include <algorithm>
#include <cmath>

namespace ckpt {

double YoungInterval(double delta, double mttf) {
  return std::sqrt(2 * std::max(0.0, delta) * mttf);
}

double DalyInterval(double delta, double mttf) {
  if (delta >= 2 * mttf) return mttf;
  return YoungInterval(delta, mttf) - std::max(0.0, delta);
}

double CostAt(const GoodputInputs& in, double tau) {
  return in.delta_seconds + std::max(0.0, in.persist_seconds - tau);
}

double WasteFraction(double delta, double tau, double restart, double mttf) {
  if (tau <= 0 || mttf <= 0) return 1;
  return delta / tau + (tau / 2 + restart) / mttf;
}

GoodputPoint PointAt(const GoodputInputs& in, double tau) {
  GoodputPoint p;
  p.interval_seconds = tau;
  p.cost_seconds = CostAt(in, tau);
  p.waste =
      WasteFraction(p.cost_seconds, tau, in.restart_seconds, in.mttf_seconds);
  p.goodput = std::clamp(1 - p.waste, 0.0, 1.0);
  return p;
}

double OptimalInterval(const GoodputInputs& in) {
  const double m = in.mttf_seconds, d = std::max(0.0, in.delta_seconds),
               p = std::max(0.0, in.persist_seconds);
  // waste is convex on each side of tau = P: below it the cost is
  // d + P - tau (minimum at sqrt(2 (d + P) M)), from it on d (minimum at
  // sqrt(2 d M)); the optimum is the better of the two clipped minima.
  double best = std::max(p, YoungInterval(d, m));
  if (p > 0) {
    const double below = std::min(p, YoungInterval(d + p, m));
    if (below > 0 && PointAt(in, below).waste < PointAt(in, best).waste) {
      best = below;
    }
  }
  return best;
}

GoodputResult ComputeGoodput(const GoodputInputs& in) {
  GoodputResult r;
  r.in = in;
  r.young_seconds = YoungInterval(in.delta_seconds, in.mttf_seconds);
  r.daly_seconds = DalyInterval(in.delta_seconds, in.mttf_seconds);
  if (in.interval_seconds > 0) r.at_interval = PointAt(in, in.interval_seconds);
  if (r.daly_seconds > 0) r.at_daly = PointAt(in, r.daly_seconds);
  const double best = OptimalInterval(in);
  if (best <= 0) {  // saves cost nothing: only the restart is lost
    r.at_optimum.waste = in.restart_seconds / in.mttf_seconds;
    r.at_optimum.goodput = std::clamp(1 - r.at_optimum.waste, 0.0, 1.0);
    return r;
  }
  r.at_optimum = PointAt(in, best);
  constexpr int kPoints = 25;  // best/8 .. best*8, 4 per factor of 2
  for (int i = 0; i < kPoints; ++i) {
    r.curve.push_back(PointAt(in, best * std::pow(2.0, (i - 12) / 4.0)));
  }
  return r;
}

}  // namespace ckpt
