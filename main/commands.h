// The subcommands' entry points; each returns the process exit code:
// 0 success, 1 a run that failed while measuring, 2 bad input.
#ifndef CKPTBENCH_MAIN_COMMANDS_H_
#define CKPTBENCH_MAIN_COMMANDS_H_

#include "main/cli.h"

namespace ckpt {

int RunCommand(const CliArgs& args);
int SweepCommand(const CliArgs& args);
int ReportCommand(const CliArgs& args);
int CompareCommand(const CliArgs& args);
int PlanCommand(const CliArgs& args);
int KeysCommand(const CliArgs& args);
int CoordinatorCommand(const CliArgs& args);
int NodeCommand(const CliArgs& args);
int UploadsCommand(const CliArgs& args);

}  // namespace ckpt

#endif  // CKPTBENCH_MAIN_COMMANDS_H_
