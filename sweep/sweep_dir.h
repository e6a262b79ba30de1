// A sweep's results directory: its manifest (sweep.json, written before the
// first run) and what --resume reads back: that the directory holds this
// sweep, and which runs finished.
#ifndef CKPTBENCH_SWEEP_SWEEP_DIR_H_
#define CKPTBENCH_SWEEP_SWEEP_DIR_H_

#include <nlohmann/json.hpp>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt {

// multirun/<date>/<time> (local time), with a suffix if a sweep started in
// the same second.
std::string DefaultSweepDir();

// OK when the manifest at `manifest_path` lists the same runs as
// `manifest` (this sweep's); else an error naming the first that differs
// (resuming into another sweep's directory).
absl::Status CheckSameSweep(const std::string& manifest_path,
                            const nlohmann::json& manifest);

// The sweep's results directory (`results_dir`, "" for DefaultSweepDir)
// with `manifest` (this sweep's, SweepManifest) written first, or with
// `resume` the one that already holds this sweep; a resume where no sweep
// started yet starts it (one command for a JobSet's first start and its
// restarts). InvalidArgument, naming the directory, for s3:// or gs://, a
// resume without a directory, a directory that holds a sweep without
// `resume`, or one that holds another sweep; a manifest that cannot be
// read keeps its reader's error (CheckSameSweep).
absl::StatusOr<std::string> OpenSweepDir(const std::string& results_dir,
                                         bool resume, nlohmann::json manifest);

// Whether `run_dir`'s result.json says the run finished without error
// (read into the types that wrote it: one that cannot be read did not).
bool FinishedOk(const std::string& run_dir);

}  // namespace ckpt

#endif  // CKPTBENCH_SWEEP_SWEEP_DIR_H_
