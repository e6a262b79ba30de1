// `ckptbench report DIR` and `ckptbench compare A B`.
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "common/log.h"
#include "main/commands.h"
#include "report/compare.h"
#include "report/html_report.h"
#include "report/sweep_data.h"

namespace ckpt {
namespace {

int Fail(const std::string& message, int code) {
  PrintError(message);
  return code;
}

}  // namespace

int ReportCommand(const CliArgs& args) {
  if (args.positional.size() != 1 || !args.overrides.empty()) {
    return Fail("report: expected one directory: ckptbench report DIR", 2);
  }
  auto data = LoadSweepDir(args.positional[0]);
  if (!data.ok()) return Fail(std::string(data.status().message()), 2);
  if (auto s = WriteSweepOutputs(*data); !s.ok()) {
    return Fail(std::string(s.message()), 1);
  }
  std::printf("%s/report.html\n", data->dir.c_str());
  return 0;
}

int CompareCommand(const CliArgs& args) {
  if (args.positional.size() != 2 || !args.overrides.empty()) {
    return Fail("compare: expected two directories: ckptbench compare A B", 2);
  }
  auto a = LoadSweepDir(args.positional[0]);
  if (!a.ok()) return Fail(std::string(a.status().message()), 2);
  auto b = LoadSweepDir(args.positional[1]);
  if (!b.ok()) return Fail(std::string(b.status().message()), 2);
  Comparison c = ComparePoints(*a, *b);
  std::fputs(CompareTable(c, a->dir, b->dir).c_str(), stdout);
  if (c.rows.empty()) {
    return Fail(absl::StrCat("compare: ", a->dir, " and ", b->dir,
                             " share no point with timed rounds"),
                1);
  }
  return 0;
}

}  // namespace ckpt
