// `ckptbench run` of the serve workload as the CLI tests run it: the tiny
// Llama preset in 1 MiB files, read in 64 KiB chunks by 2 ranks, under
// `t`'s store/, results in `t`'s `results`; `env` adds to or overrides it.
#ifndef CKPTBENCH_TESTS_TESTING_SERVE_CLI_H_
#define CKPTBENCH_TESTS_TESTING_SERVE_CLI_H_

#include <map>
#include <string>

#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {

inline ProcessResult RunServeCli(const TempDir& t, const std::string& results,
                                 std::map<std::string, std::string> env = {}) {
  std::map<std::string, std::string> all = {
      {"CKPT_WORKLOAD", "serve"},         {"CKPT_DIR_PATH", t.Sub("store")},
      {"CKPT_MODEL", "llama-3-tiny"},     {"CKPT_SERVE_FILE_BYTES", "1MiB"},
      {"CKPT_SERVE_CHUNK_SIZE", "64KiB"}, {"NUM_DEVICES", "2"}};
  for (auto& [k, v] : env) all[k] = std::move(v);
  return RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub(results)},
                    all);
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_SERVE_CLI_H_
