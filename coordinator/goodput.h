// What checkpoints cost a training job, from measured figures and a
// user-given mean time to failure (run.mttf). Pure functions; thread-safe.
//
//   delta (checkpoint cost)  the time one save blocks training: the save
//                            round's time when synchronous; with
//                            run.async=true the staging (blocking) time plus
//                            any wait for the previous save's persistence
//   restart (R)              load round time + time to visible (0 until it
//                            is measured)
//   M                        run.mttf
//   Young (1974):  tau* = sqrt(2 delta M)
//   Daly (2006):   tau* = sqrt(2 delta M) - delta   for delta < 2M, else M
//   waste(tau)  = delta / tau + (tau / 2 + R) / M   (first order: a save
//                 every tau of compute; on average half an interval of work
//                 and a restart lost per failure)
//   goodput     = 1 - waste, clamped to [0, 1]
#ifndef CKPTBENCH_COORDINATOR_GOODPUT_H_
#define CKPTBENCH_COORDINATOR_GOODPUT_H_

#include <string>
#include <vector>

namespace ckpt {

struct GoodputInputs {
  double delta_seconds = 0;     // checkpoint cost to training
  double restart_seconds = 0;   // R
  double mttf_seconds = 0;      // M > 0
  double interval_seconds = 0;  // configured tau; 0 = none configured
};

struct GoodputPoint {
  double interval_seconds = 0;
  double waste = 0;    // fraction of wall time lost
  double goodput = 0;  // 1 - waste, in [0, 1]
};

struct GoodputResult {
  GoodputInputs in;
  std::string delta_source, restart_source;  // which measured figure
  double young_seconds = 0;
  double daly_seconds = 0;
  GoodputPoint at_interval;  // when in.interval_seconds > 0
  GoodputPoint at_optimum;   // at daly_seconds
  // goodput over intervals from daly/8 to daly*8 (log-spaced), for a chart.
  std::vector<GoodputPoint> curve;
};

double YoungInterval(double delta, double mttf);
double DalyInterval(double delta, double mttf);
// waste(tau) as above; 1 (all lost) when tau <= 0.
double WasteFraction(double delta, double tau, double restart, double mttf);
GoodputPoint PointAt(const GoodputInputs& in, double tau);
// Everything above; in.mttf_seconds must be > 0.
GoodputResult ComputeGoodput(const GoodputInputs& in);

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_GOODPUT_H_
