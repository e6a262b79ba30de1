// ckptbench: one binary, subcommands. Thin: parse, dispatch.
#include <cstdio>
#include <utility>

#include "common/log.h"
#include "common/memory.h"
#include "main/cli.h"
#include "main/commands.h"

namespace {

int Help(const ckpt::CliArgs&) {
  std::fputs(ckpt::UsageText().c_str(), stdout);
  return 0;
}

int Version(const ckpt::CliArgs&) {
  std::printf("ckptbench %s (protocol ckptbench.v1)\n", CKPTBENCH_VERSION);
  return 0;
}

// Each command of CliCommands() but run, the default.
constexpr std::pair<const char*, int (*)(const ckpt::CliArgs&)> kCommands[] = {
    {"help", Help},
    {"version", Version},
    {"sweep", ckpt::SweepCommand},
    {"report", ckpt::ReportCommand},
    {"compare", ckpt::CompareCommand},
    {"plan", ckpt::PlanCommand},
    {"keys", ckpt::KeysCommand},
    {"coordinator", ckpt::CoordinatorCommand},
    {"node", ckpt::NodeCommand},
    {"uploads", ckpt::UploadsCommand},
};

}  // namespace

int main(int argc, char** argv) {
  ckpt::MapLargeAllocationsApart();
  auto args = ckpt::ParseCli(argc, argv);
  if (!args.ok()) {
    ckpt::PrintError(std::string(args.status().message()));
    return 2;
  }
  if (args->verbose) ckpt::SetLogLevel(ckpt::LogLevel::kDebug);
  for (const auto& [name, command] : kCommands) {
    if (args->command == name) return command(*args);
  }
  return ckpt::RunCommand(*args);
}
