// What checkpoints cost a training job, from measured figures and a
// user-given mean time to failure (run.mttf). Pure functions; thread-safe.
//
//   delta(tau)  what one save takes from training at checkpoint interval
//               tau: a synchronous save's whole round; an async save's
//               staging (blocking) time + the slowdown of the training it
//               overlapped + max(0, P - tau), the wait for its persistence
//               (P: staging end to durable) when the interval is shorter
//   R           restart: load round time + time to visible (0 until it is
//               measured)
//   M           run.mttf
//   waste(tau)  = delta(tau) / tau + (tau / 2 + R) / M   (first order: a
//               save every tau of training; per failure, on average half
//               an interval of work and a restart are lost)
//   goodput     = 1 - waste, clamped to [0, 1]
// The optimum is this model's own minimum: with a constant delta it is
// Young's tau = sqrt(2 delta M) (1974). Daly's refinement sqrt(2 delta M) -
// delta (2006; M when delta >= 2M), from a higher-order model, is given
// beside it for reference, with goodput evaluated at it by the model above.
#ifndef CKPTBENCH_COORDINATOR_CHECKPOINT_GOODPUT_H_
#define CKPTBENCH_COORDINATOR_CHECKPOINT_GOODPUT_H_

#include <string>
#include <vector>

namespace ckpt {

struct GoodputInputs {
  double delta_seconds = 0;     // the part of delta that does not depend on tau
  double persist_seconds = 0;   // P (async saves; 0 for synchronous ones)
  double restart_seconds = 0;   // R
  double mttf_seconds = 0;      // M > 0
  double interval_seconds = 0;  // configured tau; 0 = none configured
};

struct GoodputPoint {
  double interval_seconds = 0;
  double cost_seconds = 0;  // delta(tau)
  double waste = 0;         // fraction of wall time lost
  double goodput = 0;       // 1 - waste, in [0, 1]
};

struct GoodputResult {
  GoodputInputs in;
  std::string delta_source, restart_source;  // which measured figure
  double young_seconds = 0;                  // sqrt(2 delta(inf) M)
  double daly_seconds = 0;
  GoodputPoint at_interval;  // when in.interval_seconds > 0
  GoodputPoint at_optimum;   // the model's minimum waste
  GoodputPoint at_daly;
  // From the optimum/8 to the optimum*8 (log-spaced), for a chart.
  std::vector<GoodputPoint> curve;
};

double YoungInterval(double delta, double mttf);
double DalyInterval(double delta, double mttf);
// delta(tau) as above.
double CostAt(const GoodputInputs& in, double tau);
// waste(tau) for a constant delta; 1 (all lost) when tau <= 0.
double WasteFraction(double delta, double tau, double restart, double mttf);
GoodputPoint PointAt(const GoodputInputs& in, double tau);
// The interval of least waste (0 when saves cost nothing: then only R is
// lost per failure).
double OptimalInterval(const GoodputInputs& in);
// Everything above; in.mttf_seconds must be > 0.
GoodputResult ComputeGoodput(const GoodputInputs& in);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_CHECKPOINT_GOODPUT_H_
