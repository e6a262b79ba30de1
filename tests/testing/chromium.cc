#include "tests/testing/chromium.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include "tests/testing/subprocess.h"

namespace ckpt {

bool RenderInChromium(const TempDir& t, const std::string& html,
                      std::string* dom, std::string* console) {
  const std::string chromium = "/usr/bin/chromium";
  if (!std::filesystem::exists(chromium)) return false;
  // No network here: the flags keep Chromium from dialing Google's hosts.
  auto r = RunProcess(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu",
       "--disable-quic", "--no-first-run", "--disable-background-networking",
       "--disable-component-update", "--disable-sync",
       "--enable-logging=stderr", "--v=0",
       "--user-data-dir=" + t.Sub("chromium-profile"), "--dump-dom",
       "file://" + html},
      {{"HOME", t.path()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  *dom = r.out;
  console->clear();
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":CONSOLE") != std::string::npos) *console += line + "\n";
  }
  return true;
}

std::pair<int, int> ChartsDrawn(const std::string& dom) {
  std::smatch m;
  if (!std::regex_search(
          dom, m,
          std::regex("data-charts=\"(\\d+)\" data-charts-drawn=\"(\\d+)\""))) {
    return {-1, -1};
  }
  return {std::stoi(m[1]), std::stoi(m[2])};
}

}  // namespace ckpt
