#include "common/serving/safetensors.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/serving/safetensors_sax.h"
#include "common/text.h"

namespace ckpt {
namespace {

using nlohmann::json;

struct DtypeRow {
  StDtype dtype;
  std::string_view name;
  int bits;
};

constexpr std::array<DtypeRow, 22> kDtypes = {{
    {StDtype::kBool, "BOOL", 8},
    {StDtype::kF4, "F4", 4},
    {StDtype::kF6E2M3, "F6_E2M3", 6},
    {StDtype::kF6E3M2, "F6_E3M2", 6},
    {StDtype::kU8, "U8", 8},
    {StDtype::kI8, "I8", 8},
    {StDtype::kF8E5M2, "F8_E5M2", 8},
    {StDtype::kF8E4M3, "F8_E4M3", 8},
    {StDtype::kF8E8M0, "F8_E8M0", 8},
    {StDtype::kF8E4M3Fnuz, "F8_E4M3FNUZ", 8},
    {StDtype::kF8E5M2Fnuz, "F8_E5M2FNUZ", 8},
    {StDtype::kI16, "I16", 16},
    {StDtype::kU16, "U16", 16},
    {StDtype::kF16, "F16", 16},
    {StDtype::kBf16, "BF16", 16},
    {StDtype::kI32, "I32", 32},
    {StDtype::kU32, "U32", 32},
    {StDtype::kF32, "F32", 32},
    {StDtype::kC64, "C64", 64},
    {StDtype::kF64, "F64", 64},
    {StDtype::kI64, "I64", 64},
    {StDtype::kU64, "U64", 64},
}};

// Names unique, bytes contiguous from 0 to the file's end, each tensor's
// length its shape's.
absl::Status CheckLayout(StHeader* h, uint64_t file_size,
                         const std::string& where) {
  std::vector<const std::string*> names;
  names.reserve(h->tensors.size());
  for (const StTensor& t : h->tensors) names.push_back(&t.name);
  std::sort(names.begin(), names.end(),
            [](const std::string* a, const std::string* b) { return *a < *b; });
  for (size_t i = 1; i < names.size(); ++i) {
    if (*names[i] == *names[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": tensor '", StShown(*names[i]), "' appears twice"));
    }
  }
  std::stable_sort(h->tensors.begin(), h->tensors.end(),
                   [](const StTensor& a, const StTensor& b) {
                     return a.begin != b.begin ? a.begin < b.begin
                                               : a.end < b.end;
                   });
  uint64_t at = 0;
  for (const StTensor& t : h->tensors) {
    const std::string name = StShown(t.name);
    if (t.begin != at) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": tensor '", name, "' begins at byte ", t.begin,
          " of the data, expected ", at, " (",
          t.begin > at ? "a gap" : "an overlap",
          "); tensors must cover the data without gaps or overlaps"));
    }
    const absl::StatusOr<uint64_t> bytes = StShapeBytes(t.dtype, t.shape);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": tensor '", name, "': ", bytes.status().message()));
    }
    if (*bytes != t.Bytes()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": tensor '", name, "' holds ", t.Bytes(), " bytes, its ",
          std::string(StDtypeName(t.dtype)), " shape needs ", *bytes));
    }
    at = t.end;
  }
  const uint64_t data = file_size - h->DataStart();
  if (at != data) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": the tensors' data ends at byte ", at, " but the file has ",
        data, " bytes after its header; expected them to end together"));
  }
  return absl::OkStatus();
}

void AppendQuoted(std::string* out, const std::string& s) {
  *out += json(s).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string_view StDtypeName(StDtype d) {
  return kDtypes[static_cast<size_t>(d)].name;
}

int StDtypeBits(StDtype d) { return kDtypes[static_cast<size_t>(d)].bits; }

std::string StDtypeNames() {
  std::string out;
  for (const DtypeRow& r : kDtypes) {
    absl::StrAppend(&out, out.empty() ? "" : ", ", std::string(r.name));
  }
  return out;
}

absl::StatusOr<uint64_t> StShapeBytes(StDtype dtype,
                                      const std::vector<uint64_t>& shape) {
  // As the reference: elements first (checked), then bits (checked).
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d != 0 && n > UINT64_MAX / d) {
      return absl::InvalidArgumentError("its shape's size overflows 64 bits");
    }
    n *= d;
  }
  const uint64_t bits = static_cast<uint64_t>(StDtypeBits(dtype));
  if (n > UINT64_MAX / bits) {
    return absl::InvalidArgumentError("its shape's size overflows 64 bits");
  }
  if (n * bits % 8 != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(n, " elements of ", std::string(StDtypeName(dtype)),
                     " are not a whole number of bytes"));
  }
  return n * bits / 8;
}

std::optional<StDtype> StDtypeFromName(std::string_view name) {
  for (const DtypeRow& r : kDtypes) {
    if (r.name == name) return r.dtype;
  }
  return std::nullopt;
}

absl::StatusOr<uint64_t> StHeaderLength(std::string_view first,
                                        uint64_t file_size,
                                        std::string_view file) {
  const std::string where = EscapeForTerminal(file);
  if (first.size() < 8 || file_size < 8) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": ", file_size,
                     " bytes; a safetensors file begins with 8 bytes of its "
                     "header's length"));
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) {
    n = (n << 8) | static_cast<unsigned char>(first[static_cast<size_t>(i)]);
  }
  if (n > kMaxStHeaderBytes) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": a header of ", n, " bytes; expected at most ",
        kMaxStHeaderBytes, " (the safetensors reference reader's limit)"));
  }
  if (n < 2 || n > file_size - 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": a header of ", n, " bytes in a file of ", file_size,
        "; expected at least 2 and at most ", file_size - 8));
  }
  return n;
}

absl::StatusOr<StHeader> ParseStHeader(std::string_view text,
                                       uint64_t file_size,
                                       std::string_view file) {
  const std::string where = EscapeForTerminal(file);
  if (text.size() > kMaxStHeaderBytes || file_size < 8 ||
      text.size() > file_size - 8) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": a header of ", text.size(),
                     " bytes in a file of ", file_size, "; expected at most ",
                     std::min<uint64_t>(kMaxStHeaderBytes,
                                        file_size < 8 ? 0 : file_size - 8)));
  }
  // nlohmann's parser skips a UTF-8 byte-order mark; the reference's
  // (serde_json) refuses it.
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": the header begins with a byte-order mark; expected '{'"));
  }
  StHeader h;
  h.length = text.size();
  if (std::string why = ReadStHeaderJson(text, &h); !why.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", why));
  }
  if (absl::Status st = CheckLayout(&h, file_size, where); !st.ok()) {
    return st;
  }
  return h;
}

std::string StHeaderBytes(
    std::vector<StTensor>* tensors,
    const std::vector<std::pair<std::string, std::string>>& metadata) {
  std::string j = "{";
  if (!metadata.empty()) {
    j += "\"__metadata__\":{";
    for (size_t i = 0; i < metadata.size(); ++i) {
      if (i) j += ',';
      AppendQuoted(&j, metadata[i].first);
      j += ':';
      AppendQuoted(&j, metadata[i].second);
    }
    j += '}';
  }
  uint64_t at = 0;
  for (StTensor& t : *tensors) {
    t.begin = at;
    t.end = at + StShapeBytes(t.dtype, t.shape).value();  // see the .h
    at = t.end;
    if (j.size() > 1) j += ',';
    AppendQuoted(&j, t.name);
    absl::StrAppend(&j, ":{\"dtype\":\"", std::string(StDtypeName(t.dtype)),
                    "\",\"shape\":[");
    for (size_t d = 0; d < t.shape.size(); ++d) {
      absl::StrAppend(&j, d ? "," : "", t.shape[d]);
    }
    absl::StrAppend(&j, "],\"data_offsets\":[", t.begin, ",", t.end, "]}");
  }
  j += '}';
  j.append((8 - j.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  uint64_t n = j.size();
  for (int i = 0; i < 8; ++i, n >>= 8) {
    out[static_cast<size_t>(i)] = static_cast<char>(n & 0xff);
  }
  return out + j;
}

}  // namespace ckpt
