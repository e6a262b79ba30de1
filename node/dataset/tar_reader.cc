#include "node/dataset/tar_reader.h"

#include <algorithm>
#include <cstring>
#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "common/names.h"
#include "common/status_macros.h"
#include "common/text.h"

namespace ckpt {
namespace {

uint64_t PadOf(uint64_t n) { return (kTarBlock - n % kTarBlock) % kTarBlock; }

std::string TypeText(char type) {
  unsigned char c = static_cast<unsigned char>(type);
  if (c >= 0x21 && c < 0x7f)
    return absl::StrCat("'", std::string(1, type), "'");
  char buf[8];
  std::snprintf(buf, sizeof(buf), "\\x%02x", c);
  return buf;
}

absl::string_view StripDotSlash(absl::string_view name) {
  while (name.size() > 2 && absl::ConsumePrefix(&name, "./")) {
  }
  return name;
}

}  // namespace

absl::Status TarStreamReader::Fault(const std::string& why) const {
  return absl::DataLossError(absl::StrCat(what_, ": ", why));
}

absl::Status TarStreamReader::Feed(const unsigned char* data, size_t n,
                                   TarSink& sink) {
  if (pos_ + n < pos_ || pos_ + n > archive_size_) {
    return Fault(absl::StrCat("more bytes than its size (", archive_size_,
                              ") were read"));
  }
  while (n > 0 && state_ != State::kEnd) {
    size_t take = 0;
    switch (state_) {
      case State::kHeader:
        take = std::min(n, block_.size() - block_fill_);
        std::memcpy(block_.data() + block_fill_, data, take);
        block_fill_ += take;
        break;
      case State::kData:
        take = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
        RETURN_IF_ERROR(
            sink.OnData(member_, member_.size - remaining_, data, take));
        remaining_ -= take;
        break;
      case State::kExtension:
        take = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
        extension_.append(reinterpret_cast<const char*>(data), take);
        remaining_ -= take;
        break;
      case State::kSkip:
        take = static_cast<size_t>(std::min<uint64_t>(n, remaining_));
        remaining_ -= take;
        break;
      case State::kEnd:
        break;
    }
    data += take;
    n -= take;
    pos_ += take;
    if (state_ == State::kHeader && block_fill_ == block_.size()) {
      block_fill_ = 0;
      RETURN_IF_ERROR(OnHeader(sink));
    } else if (state_ != State::kHeader && remaining_ == 0) {
      if (state_ == State::kData) {
        RETURN_IF_ERROR(sink.OnMemberEnd(member_));
      } else if (state_ == State::kExtension) {
        RETURN_IF_ERROR(ApplyPax());
      }
      remaining_ = state_ == State::kSkip ? 0 : pad_;
      pad_ = 0;
      state_ = remaining_ > 0 ? State::kSkip : State::kHeader;
    }
  }
  return absl::OkStatus();
}

absl::Status TarStreamReader::OnHeader(TarSink& sink) {
  const uint64_t at = pos_ - kTarBlock;
  ASSIGN_OR_RETURN(std::optional<TarHeaderInfo> info,
                   ParseTarHeader(block_, what_, at));
  if (!info) {
    state_ = State::kEnd;
    return absl::OkStatus();
  }
  const bool regular =
      info->type == '0' || info->type == '\0' || info->type == '7';
  uint64_t size = info->size;
  std::string name = info->name;
  if (regular || info->type == '5') {
    if (next_size_) size = *next_size_;
    if (next_name_) name = *next_name_;
    next_size_.reset();
    next_name_.reset();
  }
  const std::string shown = EscapeForTerminal(name);
  if (size > archive_size_ - pos_) {
    return Fault(absl::StrCat(
        "member ", shown, " (header at byte ", at, ") claims ", size,
        " bytes, past the archive's end (", archive_size_, " bytes)"));
  }
  pad_ = PadOf(size);
  remaining_ = size;
  switch (info->type) {
    case '0':
    case '\0':
    case '7':
      return StartMember(std::move(name), size, sink);
    case '5':  // a directory: nothing to read
    case 'g':  // pax global header: nothing this reader uses
    case 'K':  // GNU long link name: links are refused anyway
      if (info->type != '5' && size > kMaxTarExtension) break;
      state_ = State::kSkip;
      remaining_ += pad_;
      pad_ = 0;
      if (remaining_ == 0) state_ = State::kHeader;
      return absl::OkStatus();
    case 'x':
    case 'L':
      if (size > kMaxTarExtension) break;
      extension_type_ = info->type;
      extension_.clear();
      state_ = State::kExtension;
      if (size == 0) {
        RETURN_IF_ERROR(ApplyPax());
        state_ = State::kHeader;
      }
      return absl::OkStatus();
    case '1':
    case '2':
      return Fault(absl::StrCat("member ", shown, " (header at byte ", at,
                                ") is a link: only regular files are read"));
    case '3':
    case '4':
    case '6':
      return Fault(absl::StrCat("member ", shown, " (header at byte ", at,
                                ") is a device or FIFO: only regular files "
                                "are read"));
    default:
      return Fault(absl::StrCat(
          "member ", shown, " (header at byte ", at, ") has type ",
          TypeText(info->type),
          ", which is not read (regular files, directories and pax or GNU "
          "long-name headers are)"));
  }
  return Fault(absl::StrCat("an extended header at byte ", at, " of ", size,
                            " bytes is over the ", kMaxTarExtension,
                            "-byte limit"));
}

absl::Status TarStreamReader::StartMember(std::string name, uint64_t size,
                                          TarSink& sink) {
  absl::string_view stripped = StripDotSlash(name);
  absl::Status ok =
      CheckRelativeName(std::string_view(stripped.data(), stripped.size()),
                        absl::StrCat("member of ", what_));
  if (!ok.ok()) return absl::DataLossError(ok.message());
  member_ = TarMember{std::string(stripped), pos_, size};
  ++members_;
  RETURN_IF_ERROR(sink.OnMember(member_));
  if (size > 0) {
    state_ = State::kData;
    return absl::OkStatus();
  }
  RETURN_IF_ERROR(sink.OnMemberEnd(member_));
  state_ = State::kHeader;
  return absl::OkStatus();
}

absl::Status TarStreamReader::ApplyPax() {
  if (extension_type_ == 'L') {
    next_name_ = std::string(extension_.c_str());  // up to its NUL
    return absl::OkStatus();
  }
  // Records "LEN key=value\n", LEN counting the whole record.
  std::string_view ext = extension_;
  size_t i = 0;
  while (i < ext.size()) {
    size_t j = i;
    uint64_t len = 0;
    while (j < ext.size() && ext[j] >= '0' && ext[j] <= '9' &&
           len <= ext.size()) {
      len = len * 10 + static_cast<uint64_t>(ext[j] - '0');
      ++j;
    }
    if (j == i || j >= ext.size() || ext[j] != ' ' || len < j - i + 3 ||
        len > ext.size() - i || ext[i + len - 1] != '\n') {
      return Fault(absl::StrCat("a malformed pax record at byte ", i,
                                " of an extended header"));
    }
    std::string_view rec = ext.substr(j + 1, i + len - 1 - (j + 1));
    size_t eq = rec.find('=');
    if (eq == std::string_view::npos) {
      return Fault("a pax record without '=' in an extended header");
    }
    std::string_view key = rec.substr(0, eq), value = rec.substr(eq + 1);
    if (key == "path") {
      next_name_ = std::string(value);
    } else if (key == "size") {
      uint64_t v = 0;
      if (!absl::SimpleAtoi(std::string(value), &v)) {
        return Fault(absl::StrCat("a pax size that is no number: ",
                                  EscapeForTerminal(value)));
      }
      next_size_ = v;
    }
    i += len;
  }
  return absl::OkStatus();
}

absl::Status TarStreamReader::Finish() const {
  if (state_ == State::kEnd) return absl::OkStatus();
  if (state_ == State::kHeader && block_fill_ == 0 && !next_name_ &&
      !next_size_) {
    return absl::OkStatus();  // no end blocks, but whole members
  }
  if (state_ == State::kData) {
    return Fault(absl::StrCat("ends inside member ",
                              EscapeForTerminal(member_.name), " (", remaining_,
                              " of its ", member_.size, " bytes missing)"));
  }
  return Fault(
      absl::StrCat("ends inside a header or its padding at byte ", pos_));
}

}  // namespace ckpt
