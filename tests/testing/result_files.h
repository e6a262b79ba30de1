// The per-file table of a round in result.json (`rounds[].files`: columns
// named once, one row per file), read by name in tests.
#ifndef CKPTBENCH_TESTS_TESTING_RESULT_FILES_H_
#define CKPTBENCH_TESTS_TESTING_RESULT_FILES_H_

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ckpt {

// The index of column `name` of round["files"]; the column count when the
// table has no such column (then row.at() throws, failing the test).
inline size_t FileColumn(const nlohmann::json& round, const std::string& name) {
  const auto cols = round["files"]["columns"].get<std::vector<std::string>>();
  return static_cast<size_t>(std::find(cols.begin(), cols.end(), name) -
                             cols.begin());
}

// Column `name` of round["files"], summed over its rows.
inline uint64_t FileColumnSum(const nlohmann::json& round,
                              const std::string& name) {
  const size_t c = FileColumn(round, name);
  uint64_t sum = 0;
  for (const auto& row : round["files"]["rows"]) {
    sum += row.at(c).get<uint64_t>();
  }
  return sum;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_RESULT_FILES_H_
