// Makes a JSON document safe to serialize: nlohmann::json throws
// (type_error 316) on a string that is not UTF-8, which aborted runs whose
// errors quoted a garbage file or whose paths held a 0xFF byte. Every string
// and object key with invalid bytes gets them escaped as \xHH text
// (EscapeInvalidUtf8). Include only where nlohmann/json is used already.
#ifndef CKPTBENCH_COMMON_JSON_UTF8_H_
#define CKPTBENCH_COMMON_JSON_UTF8_H_

#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "common/text.h"

namespace ckpt {

template <class Json>
void SanitizeUtf8(Json& j) {
  if (j.is_string()) {
    auto& s = j.template get_ref<std::string&>();
    if (!IsValidUtf8(s)) s = EscapeInvalidUtf8(s);
  } else if (j.is_array()) {
    for (auto& e : j) SanitizeUtf8(e);
  } else if (j.is_object()) {
    bool bad_key = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      bad_key |= !IsValidUtf8(it.key());
      SanitizeUtf8(it.value());
    }
    if (!bad_key) return;
    Json fixed = Json::object();
    for (auto it = j.begin(); it != j.end(); ++it) {
      fixed[EscapeInvalidUtf8(it.key())] = std::move(it.value());
    }
    j = std::move(fixed);
  }
}

}  // namespace ckpt

#endif  // CKPTBENCH_COMMON_JSON_UTF8_H_
