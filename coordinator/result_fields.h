// Reading result.json back (ResultFromJson, coordinator/
// result_from_json.cc, and the workloads' parts: coordinator/dataset/
// dataset_result_json.h): one object's members by name, each checked; and
// a workload's section's codec both ways (SectionCodecOf, SectionText).
#ifndef CKPTBENCH_COORDINATOR_RESULT_FIELDS_H_
#define CKPTBENCH_COORDINATOR_RESULT_FIELDS_H_

#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/json_utf8.h"
#include "common/kinds.h"
#include "common/text.h"
#include "coordinator/result_section.h"
#include "coordinator/results.h"

namespace ckpt {
namespace result_json {

// Ordered: the configuration keys and sweep values keep the order written.
using json = nlohmann::ordered_json;

// Reads the members of one JSON object by name, checking each one's type;
// the first mismatch is kept (with the member's path) and later reads do
// nothing. Absent and null members leave their destination alone.
class Fields {
 public:
  Fields(const json& j, std::string path, absl::Status* status)
      : j_(j), path_(std::move(path)), status_(status) {}

  const std::string& path() const { return path_; }
  const json& value() const { return j_; }
  // The path of member `key`, for an error ("rounds[1].nodes[0].seconds").
  std::string Path(const std::string& key) const {
    return path_.empty() ? key : absl::StrCat(path_, ".", key);
  }
  absl::Status* status() const { return status_; }

  template <typename T>
  void Get(const char* key, T* out) const {
    const json* v = Member(key);
    if (v != nullptr) Read(*v, Path(key), out);
  }
  // Fields of an object member (absent: of an empty object).
  Fields Object(const char* key) const {
    const json* v = Member(key);
    if (v != nullptr && !v->is_object()) {
      Fail(Path(key), "an object", *v);
      v = nullptr;
    }
    return Fields(v != nullptr ? *v : Empty(), Path(key), status_);
  }
  bool Has(const char* key) const { return Member(key) != nullptr; }
  // Each element of an array member, as fields of an object.
  template <typename F>
  void Each(const char* key, F&& each) const {
    const json* v = Member(key);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(Path(key), "an array", *v);
    for (size_t i = 0; i < v->size() && status_->ok(); ++i) {
      const std::string at = absl::StrCat(Path(key), "[", i, "]");
      if (!(*v)[i].is_object()) return Fail(at, "an object", (*v)[i]);
      each(Fields((*v)[i], at, status_));
    }
  }
  // Each member of an object member, by name.
  template <typename F>
  void Members(const char* key, F&& each) const {
    const json* v = Member(key);
    if (v == nullptr) return;
    if (!v->is_object()) return Fail(Path(key), "an object", *v);
    for (const auto& [name, value] : v->items()) {
      if (!status_->ok()) return;
      each(name, value, absl::StrCat(Path(key), ".", name));
    }
  }

  // Each element of an array member, of any type, with its path.
  template <typename F>
  void EachValue(const char* key, F&& each) const {
    const json* v = Member(key);
    if (v == nullptr) return;
    if (!v->is_array()) return Fail(Path(key), "an array", *v);
    for (size_t i = 0; i < v->size() && status_->ok(); ++i) {
      each((*v)[i], absl::StrCat(Path(key), "[", i, "]"));
    }
  }

  // One value, checked: numbers of the destination's kind and range,
  // booleans, strings, arrays of those.
  void Read(const json& v, const std::string& at, std::string* out) const {
    if (!v.is_string()) return Fail(at, "a string", v);
    *out = v.get<std::string>();
  }
  // A named choice (common/kinds.h): one of its names.
  template <typename E>
  std::enable_if_t<std::is_enum_v<E>> Read(const json& v, const std::string& at,
                                           E* out) const {
    const std::string expected = absl::StrCat("one of ", KindNames<E>());
    if (!v.is_string()) return Fail(at, expected.c_str(), v);
    const std::optional<E> e = ParseKind<E>(v.get<std::string>());
    if (!e) return Fail(at, expected.c_str(), v);
    *out = *e;
  }
  void Read(const json& v, const std::string& at, bool* out) const {
    if (!v.is_boolean()) return Fail(at, "true or false", v);
    *out = v.get<bool>();
  }
  void Read(const json& v, const std::string& at, double* out) const {
    if (!v.is_number()) return Fail(at, "a number", v);
    *out = v.get<double>();
  }
  template <typename T>
  std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>> Read(
      const json& v, const std::string& at, T* out) const {
    using L = std::numeric_limits<T>;
    bool fits = false;
    if (v.is_number_unsigned()) {
      fits = v.get<uint64_t>() <= static_cast<uint64_t>(L::max());
    } else if (v.is_number_integer()) {
      const int64_t n = v.get<int64_t>();
      fits = L::is_signed ? n >= static_cast<int64_t>(L::min()) &&
                                n <= static_cast<int64_t>(L::max())
                          : n >= 0;
    }
    if (!fits) {
      return Fail(at, L::is_signed ? "a whole number" : "a whole number from 0",
                  v);
    }
    *out = v.get<T>();
  }
  template <typename T>
  void Read(const json& v, const std::string& at, std::vector<T>* out) const {
    if (!v.is_array()) return Fail(at, "an array", v);
    out->clear();
    for (size_t i = 0; i < v.size() && status_->ok(); ++i) {
      T item{};
      Read(v[i], absl::StrCat(at, "[", i, "]"), &item);
      out->push_back(std::move(item));
    }
  }

  void Fail(const std::string& at, const char* want, const json& v) const {
    if (!status_->ok()) return;
    *status_ = absl::InvalidArgumentError(
        absl::StrCat(at, ": expected ", want, ", found ", Kind(v)));
  }

 private:
  static const json& Empty() {
    static const json kEmpty = json::object();
    return kEmpty;
  }
  static std::string Kind(const json& v) {
    if (v.is_string()) {
      return absl::StrCat("the string \"",
                          EscapeForTerminal(v.get<std::string>().substr(0, 40)),
                          "\"");
    }
    if (v.is_number_float()) return absl::StrCat("the number ", v.dump());
    if (v.is_number()) return absl::StrCat("the number ", v.dump());
    return v.type_name();  // "boolean", "object", "array", "null"
  }
  const json* Member(const char* key) const {
    if (!status_->ok() || !j_.is_object()) return nullptr;
    auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }

  const json& j_;
  std::string path_;
  absl::Status* status_;
};

}  // namespace result_json

using result_json::Fields;

// An op_latency entry back into a Histogram (result_from_json.cc).
void ReadHistogram(const Fields& f, Histogram* out);

// A section's text (ResultSection::ToJson) from its JSON: any string's
// bytes that are not UTF-8 escaped as \xHH text, as everywhere else in
// result.json (a host's name, a path with a 0xFF byte), so that writing
// the file never throws.
inline std::string SectionText(result_json::json j) {
  SanitizeUtf8(j);
  return j.dump();
}

// A workload's section codec (result_section.h) for its type T under
// `member` at `place`: the section's text parsed and read by `read` with the
// same checks as every member of result.json, a mismatch named by its path
// from the member's ("reshard.from_world: expected ...").
template <typename T>
ResultSectionCodec SectionCodecOf(std::string member, ResultPlace place,
                                  void (*read)(const Fields&, T*)) {
  ResultSectionCodec codec;
  codec.member = std::move(member);
  codec.place = place;
  codec.read = [read](const std::string& text, const std::string& at)
      -> absl::StatusOr<std::shared_ptr<const ResultSection>> {
    const result_json::json j =
        result_json::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded() || !j.is_object()) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": expected an object"));
    }
    absl::Status status;
    auto section = std::make_shared<T>();
    read(Fields(j, at, &status), section.get());
    if (!status.ok()) return status;
    return std::shared_ptr<const ResultSection>(std::move(section));
  };
  return codec;
}

}  // namespace ckpt

#endif  // CKPTBENCH_COORDINATOR_RESULT_FIELDS_H_
