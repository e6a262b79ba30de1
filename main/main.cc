// ckptbench: one binary, subcommands. Thin: parse, dispatch.
#include <cstdio>

#include "common/log.h"
#include "main/cli.h"
#include "main/commands.h"

int main(int argc, char** argv) {
  auto args = ckpt::ParseCli(argc, argv);
  if (!args.ok()) {
    ckpt::PrintError(std::string(args.status().message()));
    return 2;
  }
  if (args->verbose) ckpt::SetLogLevel(ckpt::LogLevel::kDebug);
  if (args->command == "help") {
    std::fputs(ckpt::UsageText().c_str(), stdout);
    return 0;
  }
  if (args->command == "version") {
    std::printf("ckptbench %s (protocol ckptbench.v1)\n", CKPTBENCH_VERSION);
    return 0;
  }
  if (args->command == "sweep") return ckpt::SweepCommand(*args);
  if (args->command == "report") return ckpt::ReportCommand(*args);
  if (args->command == "compare") return ckpt::CompareCommand(*args);
  if (args->command == "plan") return ckpt::PlanCommand(*args);
  if (args->command == "keys") return ckpt::KeysCommand(*args);
  if (args->command == "coordinator") return ckpt::CoordinatorCommand(*args);
  if (args->command == "node") return ckpt::NodeCommand(*args);
  if (args->command == "uploads") return ckpt::UploadsCommand(*args);
  return ckpt::RunCommand(*args);
}
