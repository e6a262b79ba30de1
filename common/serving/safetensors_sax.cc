#include "common/serving/safetensors_sax.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/text.h"

namespace ckpt {
namespace {

using nlohmann::json;

constexpr std::string_view kMetadataKey = "__metadata__";

// Reads the header's JSON as events, keeping the tensors' entries and the
// metadata; anything not of the header's shape stops the parse with an
// error saying where and what was expected. Nesting is never deeper than
// a tensor's arrays (depth 3): any other object or array stops it.
class HeaderSax : public json::json_sax_t {
 public:
  explicit HeaderSax(StHeader* out) : out_(out) {}

  bool null() override { return Unexpected("null"); }
  bool boolean(bool) override { return Unexpected("a boolean"); }
  bool number_integer(number_integer_t v) override {
    if (v >= 0) return Whole(static_cast<uint64_t>(v));
    return Unexpected(absl::StrCat("the negative number ", v));
  }
  bool number_unsigned(number_unsigned_t v) override { return Whole(v); }
  bool number_float(number_float_t, const string_t& text) override {
    return Unexpected(absl::StrCat("the number ", StShown(text),
                                   " (not a whole number from 0 to 2^64-1)"));
  }
  bool binary(binary_t&) override { return Unexpected("binary data"); }
  bool string(string_t& v) override;
  bool start_object(std::size_t) override;
  bool end_object() override;
  bool start_array(std::size_t) override;
  bool end_array() override;
  bool key(string_t& k) override;
  bool parse_error(std::size_t pos, const std::string&,
                   const nlohmann::detail::exception& e) override {
    if (error_.empty()) {
      error_ = absl::StrCat("not valid JSON at byte ", pos, " of the header (",
                            StShown(e.what()), ")");
    }
    return false;
  }
  const std::string& error() const { return error_; }

 private:
  enum class State {
    kTop,            // before the header's object
    kTensors,        // in it: a key, or its end
    kEntry,          // after a tensor's name: its object
    kTensor,         // in a tensor's object: a key, or its end
    kDtype,          // its dtype's string
    kShapeOpen,      // its shape's array
    kShape,          // in it: a dimension, or its end
    kOffsetsOpen,    // its data_offsets' array
    kOffsets,        // in it: an offset, or its end
    kMetadataOpen,   // __metadata__'s object
    kMetadata,       // in it: a key, or its end
    kMetadataValue,  // a metadata string
    kDone,           // after the header's object
  };

  bool Fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
    return false;
  }
  // What is being read, for an error.
  std::string Where() const;
  bool Unexpected(const std::string& what);
  bool Whole(uint64_t v);

  StHeader* out_;
  State state_ = State::kTop;
  std::string key_;  // the key just read in a tensor's or metadata's object
  bool seen_metadata_ = false;
  bool dtype_set_ = false, shape_set_ = false, offsets_set_ = false;
  std::vector<uint64_t> offsets_;
  std::string error_;
};

std::string HeaderSax::Where() const {
  switch (state_) {
    case State::kTop:
    case State::kDone:
      return "the header";
    case State::kTensors:
      return "the header's object";
    case State::kMetadataOpen:
    case State::kMetadata:
    case State::kMetadataValue:
      return "__metadata__";
    default:
      break;
  }
  std::string where =
      absl::StrCat("tensor '", StShown(out_->tensors.back().name), "'");
  if (state_ != State::kEntry && state_ != State::kTensor) {
    absl::StrAppend(&where, " ", key_);
  }
  return where;
}

bool HeaderSax::Unexpected(const std::string& what) {
  std::string expected;
  switch (state_) {
    case State::kTop:
      expected = "an object";
      break;
    case State::kTensors:
    case State::kTensor:
    case State::kMetadata:
      expected = "a member name";
      break;
    case State::kEntry:
      expected = "an object of dtype, shape and data_offsets";
      break;
    case State::kDtype:
      expected = "a dtype's name as a string";
      break;
    case State::kShapeOpen:
      expected = "an array of whole numbers";
      break;
    case State::kShape:
      expected = "a whole number";
      break;
    case State::kOffsetsOpen:
      expected = "an array of two whole numbers [begin, end]";
      break;
    case State::kOffsets:
      expected = "a whole number";
      break;
    case State::kMetadataOpen:
      expected = "an object of strings";
      break;
    case State::kMetadataValue:
      expected = "a string";
      break;
    case State::kDone:
      expected = "nothing after the header's object";
      break;
  }
  return Fail(absl::StrCat(Where(), ": found ", what, ", expected ", expected));
}

bool HeaderSax::Whole(uint64_t v) {
  if (state_ == State::kShape) {
    if (out_->tensors.back().shape.size() >= kMaxStDims) {
      return Fail(
          absl::StrCat(Where(), ": more than ", kMaxStDims, " dimensions"));
    }
    out_->tensors.back().shape.push_back(v);
    return true;
  }
  if (state_ == State::kOffsets) {
    if (offsets_.size() >= 2) {
      return Fail(absl::StrCat(Where(),
                               ": more than two offsets; expected "
                               "[begin, end]"));
    }
    offsets_.push_back(v);
    return true;
  }
  return Unexpected(absl::StrCat("the number ", v));
}

bool HeaderSax::string(string_t& v) {
  if (state_ == State::kDtype) {
    std::optional<StDtype> d = StDtypeFromName(v);
    if (!d) {
      return Fail(absl::StrCat(Where(), ": unknown dtype '", StShown(v),
                               "'; expected one of ", StDtypeNames()));
    }
    out_->tensors.back().dtype = *d;
    dtype_set_ = true;
    state_ = State::kTensor;
    return true;
  }
  if (state_ == State::kMetadataValue) {
    out_->metadata.back().second = std::move(v);
    state_ = State::kMetadata;
    return true;
  }
  return Unexpected(absl::StrCat("the string '", StShown(v), "'"));
}

bool HeaderSax::key(string_t& k) {
  if (state_ == State::kTensors) {
    if (k == kMetadataKey) {
      if (seen_metadata_) return Fail("__metadata__ appears twice");
      seen_metadata_ = true;
      state_ = State::kMetadataOpen;
      return true;
    }
    if (k.empty()) return Fail("a tensor has an empty name");
    if (k.size() > kMaxStName) {
      return Fail(absl::StrCat("tensor '", StShown(k), "': its name is ",
                               k.size(), " bytes, more than ", kMaxStName));
    }
    if (HasControlCharacter(k)) {
      return Fail(absl::StrCat("tensor '", StShown(k),
                               "': its name has a control character"));
    }
    out_->tensors.push_back(StTensor{});
    out_->tensors.back().name = std::move(k);
    state_ = State::kEntry;
    return true;
  }
  if (state_ == State::kTensor) {
    key_ = k;
    bool* set = k == "dtype"          ? &dtype_set_
                : k == "shape"        ? &shape_set_
                : k == "data_offsets" ? &offsets_set_
                                      : nullptr;
    if (set == nullptr) {
      return Fail(absl::StrCat(Where(), ": unknown member '", StShown(k),
                               "'; expected dtype, shape and data_offsets"));
    }
    if (*set) return Fail(absl::StrCat(Where(), ": ", k, " appears twice"));
    state_ = k == "dtype"   ? State::kDtype
             : k == "shape" ? State::kShapeOpen
                            : State::kOffsetsOpen;
    return true;
  }
  if (state_ == State::kMetadata) {
    if (k.size() > kMaxStName) {
      return Fail(absl::StrCat("__metadata__: a key of ", k.size(),
                               " bytes, more than ", kMaxStName));
    }
    out_->metadata.emplace_back(std::move(k), std::string());
    state_ = State::kMetadataValue;
    return true;
  }
  return Unexpected("a member name");
}

bool HeaderSax::start_object(std::size_t) {
  switch (state_) {
    case State::kTop:
      state_ = State::kTensors;
      return true;
    case State::kEntry:
      dtype_set_ = shape_set_ = offsets_set_ = false;
      state_ = State::kTensor;
      return true;
    case State::kMetadataOpen:
      state_ = State::kMetadata;
      return true;
    default:
      return Unexpected("an object");
  }
}

bool HeaderSax::end_object() {
  switch (state_) {
    case State::kTensors:
      state_ = State::kDone;
      return true;
    case State::kTensor: {
      const char* missing = !dtype_set_     ? "dtype"
                            : !shape_set_   ? "shape"
                            : !offsets_set_ ? "data_offsets"
                                            : nullptr;
      if (missing != nullptr) {
        return Fail(absl::StrCat(Where(), ": no ", missing));
      }
      state_ = State::kTensors;
      return true;
    }
    case State::kMetadata:
      state_ = State::kTensors;
      return true;
    default:
      return Unexpected("the end of an object");
  }
}

bool HeaderSax::start_array(std::size_t) {
  if (state_ == State::kShapeOpen) {
    shape_set_ = true;
    state_ = State::kShape;
    return true;
  }
  if (state_ == State::kOffsetsOpen) {
    offsets_.clear();
    state_ = State::kOffsets;
    return true;
  }
  return Unexpected("an array");
}

bool HeaderSax::end_array() {
  if (state_ == State::kShape) {
    state_ = State::kTensor;
    return true;
  }
  if (state_ == State::kOffsets) {
    if (offsets_.size() != 2) {
      return Fail(absl::StrCat(Where(), ": ", offsets_.size(),
                               " offsets; expected [begin, end]"));
    }
    StTensor& t = out_->tensors.back();
    t.begin = offsets_[0];
    t.end = offsets_[1];
    if (t.end < t.begin) {
      return Fail(absl::StrCat(Where(), ": [", t.begin, ", ", t.end,
                               "] ends before it begins"));
    }
    offsets_set_ = true;
    state_ = State::kTensor;
    return true;
  }
  return Unexpected("the end of an array");
}

}  // namespace

std::string StShown(std::string_view s) {
  std::string out = EscapeForTerminal(s.substr(0, 80));
  if (s.size() > 80) out += "...";
  return out;
}

std::string ReadStHeaderJson(std::string_view text, StHeader* out) {
  HeaderSax sax(out);
  const bool ok = json::sax_parse(text.begin(), text.end(), &sax,
                                  json::input_format_t::json, true);
  if (!ok || !sax.error().empty()) {
    return sax.error().empty() ? "not a safetensors header" : sax.error();
  }
  return "";
}

}  // namespace ckpt
