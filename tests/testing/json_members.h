// The members of a JSON object's text, in the order written (result.json's
// sections are placed by the writer, and tests check where).
#ifndef CKPTBENCH_TESTS_TESTING_JSON_MEMBERS_H_
#define CKPTBENCH_TESTS_TESTING_JSON_MEMBERS_H_

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ckpt {

inline std::vector<std::string> JsonMembers(const std::string& text) {
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> out;
  for (const auto& [key, value] : j.items()) out.push_back(key);
  return out;
}

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_JSON_MEMBERS_H_
