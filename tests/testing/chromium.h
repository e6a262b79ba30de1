// Opens an HTML file in Debian's headless Chromium (tests only).
#ifndef CKPTBENCH_TESTS_TESTING_CHROMIUM_H_
#define CKPTBENCH_TESTS_TESTING_CHROMIUM_H_

#include <string>
#include <utility>

#include "tests/testing/temp_dir.h"

namespace ckpt {

// Renders `html` (a path) with /usr/bin/chromium: the DOM after the page's
// scripts ran in *dom, the browser's console lines in *console. False when
// Chromium is not installed (scripts/install-deps.sh installs it).
bool RenderInChromium(const TempDir& t, const std::string& html,
                      std::string* dom, std::string* console);

// The report's self-check in a rendered DOM (data-charts, data-charts-drawn
// on <body>): the charts present, and how many the browser laid out; -1
// each when the attributes are missing.
std::pair<int, int> ChartsDrawn(const std::string& dom);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_CHROMIUM_H_
