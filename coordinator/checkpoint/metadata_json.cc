// .metadata: written as a stream (MetadataToJson) and read back with a SAX
// parser (ParseMetadata) that keeps only what a load needs.
#include "coordinator/checkpoint/metadata_json.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "common/checksum.h"
#include "common/json_utf8.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/step_layout.h"

namespace ckpt {
namespace {

using nlohmann::json;

std::string Hex(uint64_t v) {
  static const char kDigits[] = "0123456789abcdef";
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, v >>= 4) s[i] = kDigits[v & 15];
  return s;
}

}  // namespace

// Written as a stream, not a DOM: a plan can have millions of segments and
// the DOM costs ~10x the text.
std::string MetadataToJson(const CheckpointPlan& plan, uint64_t step,
                           uint64_t seed, ChecksumKind checksum,
                           const SegmentChecksums& sums, int only_node) {
  auto q = [](const std::string& v) {
    return json(EscapeInvalidUtf8(v)).dump();
  };
  std::string out;
  absl::StrAppend(
      &out, "{\"format\":", q(kMetadataFormat), ",\"step\":", step,
      ",\"seed\":", seed, ",\"checksum\":", q(std::string(Name(checksum))),
      ",\"pattern\":", q(std::string(kPatternName)),
      ",\"fingerprint\":", q(plan.fingerprint), ",\"layout\":", q(plan.layout));
  absl::StrAppend(&out, ",\"plan\":{\"model\":", q(plan.model),
                  ",\"parameters\":", plan.parameters,
                  ",\"world_size\":", plan.world_size,
                  ",\"num_nodes\":", plan.num_nodes,
                  ",\"ranks_per_node\":", plan.ranks_per_node,
                  ",\"thread_count\":", plan.thread_count,
                  ",\"sharding\":", q(plan.sharding),
                  ",\"total_bytes\":", plan.total_bytes, "}");
  out += ",\n\"tensors\":[";
  for (size_t i = 0; i < plan.tensors.size(); ++i) {
    const auto& t = plan.tensors[i];
    absl::StrAppend(&out, i ? ",\n" : "", "{\"name\":", q(t.name),
                    ",\"dtype\":", q(t.dtype), ",\"shape\":[");
    for (size_t d = 0; d < t.shape.size(); ++d) {
      absl::StrAppend(&out, d ? "," : "", t.shape[d]);
    }
    out += "]}";
  }
  // files[].segments[]: [tensor index, tensor offset, length, file offset,
  // checksum as 16 hex digits]
  out += "],\n\"files\":[";
  bool first_file = true;
  for (const auto& r : plan.ranks) {
    if (only_node >= 0 && static_cast<int>(r.node) != only_node) continue;
    for (const auto& f : r.files) {
      absl::StrAppend(&out, first_file ? "" : ",\n", "{\"rank\":", r.rank,
                      ",\"index\":", f.index, ",\"name\":", q(f.name),
                      ",\"size\":", f.size, ",\"segments\":[");
      first_file = false;
      for (size_t k = 0; k < f.segments.size(); ++k) {
        const auto& s = f.segments[k];
        auto it = sums.find({r.rank, f.index, static_cast<uint32_t>(k)});
        absl::StrAppend(&out, k ? "," : "", "[", s.tensor, ",", s.tensor_offset,
                        ",", s.length, ",", s.file_offset, ",\"",
                        it == sums.end() ? "" : Hex(it->second), "\"]");
      }
      out += "]}";
    }
  }
  out += "]}\n";
  return out;
}

namespace {

// SAX reader for .metadata: keeps the scalars it needs and the segment
// checksums, never the whole document.
class MetadataSax : public json::json_sax_t {
 public:
  MetadataSax(CheckpointMetadata* m, std::vector<SavedFile>* files)
      : m_(m), files_(files) {}

  bool null() override { return Value(json()); }
  bool boolean(bool v) override { return Value(json(v)); }
  bool number_integer(number_integer_t v) override { return Value(json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return Value(json(v)); }
  bool number_float(number_float_t v, const string_t&) override {
    return Value(json(v));
  }
  bool string(string_t& v) override { return Value(json(v)); }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (files_ && stack_.size() == 2 && stack_[1].key == "files") {
      files_->emplace_back();
    }
    stack_.push_back({'o', key_, 0});
    return true;
  }
  bool end_object() override {
    stack_.pop_back();
    return Advance();
  }
  bool start_array(std::size_t) override {
    if (files_ && !files_->empty() && stack_.size() == 4 &&
        stack_[1].key == "files" && stack_[3].key == "segments") {
      files_->back().file.segments.emplace_back();
    }
    stack_.push_back({'a', key_, 0});
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return Advance();
  }
  bool key(string_t& k) override {
    key_ = k;
    return true;
  }
  bool parse_error(std::size_t pos, const std::string&,
                   const nlohmann::detail::exception& e) override {
    error_ = absl::StrCat("byte ", pos, ": ", e.what());
    return false;
  }
  const std::string& error() const { return error_; }
  // A file name that would lead outside the step (the parse stopped).
  const std::optional<std::string>& bad_name() const { return bad_name_; }

 private:
  struct Frame {
    char kind;
    std::string key;  // key of this container in its parent
    size_t index;     // element index, for arrays
  };

  bool Advance() {
    if (!stack_.empty() && stack_.back().kind == 'a') ++stack_.back().index;
    return true;
  }

  // A whole number in [0, max of T]. nlohmann's get<unsigned>() would
  // static_cast a float (undefined past the type's range) or wrap a negative.
  template <typename T>
  static T Whole(const json& v) {
    if (v.is_number_unsigned()) {
      const uint64_t u = v.get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return static_cast<T>(u);
      }
    }
    throw std::out_of_range(absl::StrCat("expected a whole number from 0 to ",
                                         std::numeric_limits<T>::max(),
                                         ", got ", v.dump()));
  }

  // A checksum as written by SerializeMetadata: 1 to 16 hex digits.
  static uint64_t Sum(const std::string& hex) {
    uint64_t sum = 0;
    if (hex.size() > 16 ||
        !std::all_of(hex.begin(), hex.end(),
                     [](unsigned char c) { return std::isxdigit(c); }) ||
        !absl::SimpleHexAtoi(hex, &sum)) {
      throw std::invalid_argument(
          absl::StrCat("expected 1 to 16 hex digits, got '", hex.substr(0, 40),
                       hex.size() > 40 ? "...'" : "'"));
    }
    return sum;
  }

  bool Value(const json& v) {
    const size_t depth = stack_.size();
    try {
      if (depth == 1) {  // top level
        if (key_ == "format") format_ = v.get<std::string>();
        if (key_ == "step") m_->step = Whole<uint64_t>(v);
        if (key_ == "seed") m_->seed = Whole<uint64_t>(v);
        if (key_ == "checksum") m_->checksum = v.get<std::string>();
        if (key_ == "pattern") m_->pattern = v.get<std::string>();
        if (key_ == "fingerprint") m_->fingerprint = v.get<std::string>();
        if (key_ == "layout") m_->layout = v.get<std::string>();
      } else if (depth == 2 && stack_[1].key == "plan") {
        if (key_ == "model") m_->model = v.get<std::string>();
        if (key_ == "parameters") m_->parameters = Whole<uint64_t>(v);
        if (key_ == "world_size") m_->world_size = Whole<int>(v);
        if (key_ == "ranks_per_node") m_->ranks_per_node = Whole<int>(v);
        if (key_ == "thread_count") m_->thread_count = Whole<int>(v);
        if (key_ == "sharding") m_->sharding = v.get<std::string>();
        if (key_ == "total_bytes") m_->total_bytes = Whole<uint64_t>(v);
      } else if (depth == 3 && stack_[1].key == "files") {
        if (key_ == "rank") rank_ = Whole<uint32_t>(v);
        if (key_ == "index") file_ = Whole<uint32_t>(v);
        if (key_ == "name") {
          // Names go into paths under the step: none may lead outside it,
          // whether or not this load reads files by name.
          std::string name = v.get<std::string>();
          if (!CheckEntryName(name, "").ok()) {
            bad_name_ = std::move(name);
            return false;
          }
        }
        if (files_ && !files_->empty()) {
          SavedFile& f = files_->back();
          if (key_ == "rank") f.rank = rank_;
          if (key_ == "index") f.file.index = file_;
          if (key_ == "name") f.file.name = v.get<std::string>();
          if (key_ == "size") f.file.size = Whole<uint64_t>(v);
        }
      } else if (files_ && depth == 5 && stack_[3].key == "segments" &&
                 stack_[4].index < 4 && !files_->empty() &&
                 !files_->back().file.segments.empty()) {
        SegmentPlan& s = files_->back().file.segments.back();
        const size_t field = stack_[4].index;
        if (field == 0) s.tensor = Whole<uint32_t>(v);
        if (field == 1) s.tensor_offset = Whole<uint64_t>(v);
        if (field == 2) s.length = Whole<uint64_t>(v);
        if (field == 3) s.file_offset = Whole<uint64_t>(v);
      } else if (depth == 5 && stack_[3].key == "segments" &&
                 stack_[4].index == 4) {
        std::string hex = v.get<std::string>();
        if (!hex.empty()) {
          m_->sums[{rank_, file_, static_cast<uint32_t>(stack_[3].index)}] =
              Sum(hex);
        }
      }
    } catch (const std::exception& e) {
      error_ = absl::StrCat("field '", key_, "': ", e.what());
      return false;
    }
    return Advance();
  }

 public:
  std::string format_;

 private:
  CheckpointMetadata* m_;
  std::vector<SavedFile>* files_;  // kept only when asked for
  std::vector<Frame> stack_;
  std::string key_;
  std::string error_;
  std::optional<std::string> bad_name_;
  uint32_t rank_ = 0, file_ = 0;
};

}  // namespace

absl::StatusOr<CheckpointMetadata> ParseMetadata(
    const std::string& text, const std::string& where,
    std::vector<SavedFile>* files) {
  CheckpointMetadata m;
  MetadataSax sax(&m, files);
  bool ok = json::sax_parse(text, &sax);
  if (sax.bad_name()) {
    return CheckEntryName(*sax.bad_name(),
                          absl::StrCat("file name in ", where));
  }
  if (!ok) {
    return absl::DataLossError(
        absl::StrCat(where, ": unreadable .metadata: ", sax.error()));
  }
  if (sax.format_ == "ckptbench.checkpoint/v1") {
    return absl::FailedPreconditionError(absl::StrCat(
        where, ": written by an older ckptbench (format ", sax.format_,
        ", expected ", kMetadataFormat,
        "): its plan identity is computed differently. Expected a checkpoint "
        "written by this version: delete that step or use another path"));
  }
  if (sax.format_ != kMetadataFormat) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": not a ckptbench checkpoint (format '",
                     sax.format_, "', expected ", kMetadataFormat, ")"));
  }
  if (m.fingerprint.empty() || m.layout.empty()) {
    return absl::DataLossError(
        absl::StrCat(where, ": .metadata has no plan ",
                     m.fingerprint.empty() ? "fingerprint" : "layout"));
  }
  if (!ParseKind<ChecksumKind>(m.checksum)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": checksum '", m.checksum,
                     "': expected xxh3 or crc32c (the kinds ckptbench "
                     "records; this is not one of its checkpoints)"));
  }
  return m;
}

}  // namespace ckpt
