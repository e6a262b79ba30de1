#include "coordinator/goodput.h"

#include <algorithm>
#include <cmath>

namespace ckpt {

double YoungInterval(double delta, double mttf) {
  return std::sqrt(2 * delta * mttf);
}

double DalyInterval(double delta, double mttf) {
  if (delta >= 2 * mttf) return mttf;
  return std::sqrt(2 * delta * mttf) - delta;
}

double WasteFraction(double delta, double tau, double restart, double mttf) {
  if (tau <= 0 || mttf <= 0) return 1;
  return delta / tau + (tau / 2 + restart) / mttf;
}

GoodputPoint PointAt(const GoodputInputs& in, double tau) {
  GoodputPoint p;
  p.interval_seconds = tau;
  p.waste =
      WasteFraction(in.delta_seconds, tau, in.restart_seconds, in.mttf_seconds);
  p.goodput = std::clamp(1 - p.waste, 0.0, 1.0);
  return p;
}

GoodputResult ComputeGoodput(const GoodputInputs& in) {
  GoodputResult r;
  r.in = in;
  r.young_seconds = YoungInterval(in.delta_seconds, in.mttf_seconds);
  r.daly_seconds = DalyInterval(in.delta_seconds, in.mttf_seconds);
  if (in.interval_seconds > 0) r.at_interval = PointAt(in, in.interval_seconds);
  r.at_optimum = PointAt(in, r.daly_seconds);
  if (r.daly_seconds > 0) {
    constexpr int kPoints = 25;  // daly/8 .. daly*8, 4 per factor of 2
    for (int i = 0; i < kPoints; ++i) {
      const double tau = r.daly_seconds * std::pow(2.0, (i - 12) / 4.0);
      r.curve.push_back(PointAt(in, tau));
    }
  }
  return r;
}

}  // namespace ckpt
