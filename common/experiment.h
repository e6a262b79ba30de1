// An experiment file: configuration keys composed from group files, plus a
// sweep whose parameters form a cartesian product, repeated N times.
//
//   name: part-size
//   defaults:                 # group files: <file's dir>/<group>/<option>.yaml
//     - storage: s3
//     - rounds: standard
//   repeat: 2
//   sweep:
//     s3.part_size: [8MiB, 64MiB]   # dotted key or env name; list or a,b,c
//     storage: [s3, fuse]           # a group: one file per value
//   run:
//     num_save_calls: 3             # any configuration key
//   prepare: datagen          # dataload points: their dataset made first
//   smoke:                    # `sweep --smoke`: the seconds-long form
//     dataset.samples: 200          # a value, or a,b to sweep
//
// Command-line `key=value` or `key=a,b,c` sweeps too (replacing the file's
// sweep of that key); `repeat=N` and `GROUP=option` work there as well.
// `smoke:` entries do the same, below the command line, only with --smoke.
// `prepare: datagen`: every point that reads a dataset of ckptbench's
// (run.workload=dataload) gets it made by a datagen run first, once per
// dataset in the sweep (sweep/sweep_plan.h says where it goes).
// Every error names the file and line (or "command line") and the key.
// Pure apart from reading files; thread-compatible.
#ifndef CKPTBENCH_COMMON_EXPERIMENT_H_
#define CKPTBENCH_COMMON_EXPERIMENT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config_loader.h"

namespace ckpt {

struct SweepParam {
  std::string name;       // as the user wrote it (NUM_LAYERS, s3.part_size)
  std::string canonical;  // dotted key, or the group's name
  bool group = false;     // selects a group file per value
  std::vector<std::string> values;
  std::string where;  // "FILE:LINE" or "command line"
};

struct Experiment {
  std::string path;  // the experiment file
  std::string name;  // `name:`, else the file's stem
  std::string description;
  int repeat = 1;
  // Groups in `defaults:` order: (group, option, where).
  struct Group {
    std::string group, option, where;
  };
  std::vector<Group> groups;
  std::vector<SourcedValue> values;  // the file's own keys
  std::vector<SweepParam> params;    // in order; first varies slowest
  // `prepare: datagen`: the points a workload of theirs prepares (dataload
  // points' datasets) made first (coordinator/run_workload.h, Preparation).
  std::string prepare;  // the preparing workload's name; "" = none
};

// One run of the sweep: a point of the product, in one repeat pass.
struct SweepRun {
  int index = 0;   // 0-based position in the whole sweep
  int point = 0;   // 0-based point of the product
  int repeat = 1;  // 1-based pass
  // Every parameter's value at this point, (name, value), in param order.
  std::vector<std::pair<std::string, std::string>> values;
  // "003-NUM_LAYERS=2,NUM_DEVICES=1" (only swept parameters with more
  // than one value are named; ",repeat=R" when repeat > 1).
  std::string name;
  // The point's name without index or repeat ("NUM_LAYERS=2,..."), the
  // same in every repeat and in another sweep of the same file.
  std::string point_name;
};

// Reads `path` and applies the command-line `overrides`. Checks every key,
// group and sweep value's key; values are checked per point by LoadConfig.
// `smoke`: apply the file's smoke: entries (an error when it has none).
absl::StatusOr<Experiment> LoadExperiment(
    const std::string& path, const std::vector<std::string>& overrides,
    bool smoke = false);

int PointCount(const Experiment& experiment);

// Every run, repeat passes outermost: all points once, then all again, so
// slow drift in the storage spreads over every point.
std::vector<SweepRun> ExpandRuns(const Experiment& experiment);

// The configuration sources of one run: its group files and the file's
// keys below the environment, its parameter values above the command line.
absl::StatusOr<LoadOptions> RunLoadOptions(const Experiment& experiment,
                                           const SweepRun& run);

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_EXPERIMENT_H_
