// Command-line parsing for `ckptbench <command> [flags] [key=value ...]`.
// Pure; thread-safe.
#ifndef CKPTBENCH_MAIN_CLI_H_
#define CKPTBENCH_MAIN_CLI_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/protocol_version.h"

namespace ckpt {

struct CliArgs {
  std::string
      command;  // run | sweep | coordinator | node | report | compare | ...
  std::string config_path;
  std::string results_dir;
  std::vector<std::string> overrides;  // key=value, in order
  // sweep FILE, report DIR, compare A B.
  std::vector<std::string> positional;
  bool resume = false;     // sweep: finish the runs DIR lacks
  bool overwrite = false;  // run/coordinator: replace DIR/result.json
  bool dry_run = false;    // sweep: validate and list the runs, run nothing
  bool smoke = false;      // sweep: the experiment file's smoke: form
  bool json = false;       // keys: the machine-readable interface
  bool per_rank = false;   // plan: list every rank
  bool list = false;       // plan: list presets
  bool abort = false;      // uploads: abort what is listed
  bool verbose = false;
  bool quiet = false;
  int protocol_version =
      kProtocolVersion;  // node: for testing refusal of other versions
};

absl::StatusOr<CliArgs> ParseCli(int argc, const char* const* argv);

// Every command ParseCli accepts.
const std::vector<std::string>& CliCommands();

// Every flag ParseCli accepts (ParseCli refuses any other).
struct FlagDef {
  std::string name;  // "--listen", "-q"
  bool takes_value = false;
  std::string help;
};
const std::vector<FlagDef>& CliFlags();

std::string UsageText();

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_CLI_H_
