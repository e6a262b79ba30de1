#include "node/dataset/stream_source.h"

#include <chrono>
#include <deque>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/dataset/epoch_order.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/dataset_bytes.h"
#include "node/dataset/tar_reader.h"
#include "node/pattern.h"
#include "node/storage/timed_storage.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

// The sample a member's name stands for: "s<10 digits>.<ext>", or none.
std::optional<uint64_t> SampleOfMember(const std::string& name,
                                       const char* ext) {
  const std::string suffix = absl::StrCat(".", ext);
  if (name.size() != 11 + suffix.size() || name[0] != 's' ||
      !absl::EndsWith(name, suffix)) {
    return std::nullopt;
  }
  uint64_t v = 0;
  for (size_t i = 1; i < 11; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(name[i] - '0');
  }
  return v;
}

class StreamSource : public BatchSource, private TarSink {
 public:
  StreamSource(const SourceContext& ctx, std::vector<uint32_t> objects,
               uint64_t seed)
      : c_(ctx),
        objects_(std::move(objects)),
        shuffle_(ctx.params->shuffle_buffer, seed),
        buffer_(ctx.Buffer()) {}

  absl::StatusOr<bool> Next(std::vector<uint32_t>* batch) override;

 private:
  // The object in hand: open, read so far, its checks.
  struct Open {
    uint64_t object = 0;
    std::string name;
    uint64_t size = 0, pos = 0;
    uint64_t first = 0, end = 0;  // its samples
    uint64_t next = 0;            // the sample expected next (tar)
    std::unique_ptr<ReadableFile> file;
    std::optional<ShardImage> image;  // tar
    std::optional<TarStreamReader> tar;
    Clock::time_point t0;
    // A listed shard: the WebDataset key of the sample being read.
    bool in_sample = false;
    std::string key;
  };
  absl::Status OpenNext();
  absl::Status ReadSome();
  absl::Status Check(const unsigned char* data, size_t n);
  void Completed(uint32_t sample);
  // A listed shard's sample ended (its key's last member went by).
  absl::Status CompleteListed();
  // TarSink: a shard's members, its bytes already checked.
  absl::Status OnMember(const TarMember& m) override;
  absl::Status OnData(const TarMember&, uint64_t, const unsigned char*,
                      size_t) override {
    return absl::OkStatus();
  }
  absl::Status OnMemberEnd(const TarMember& m) override;

  const SourceContext c_;
  const std::vector<uint32_t> objects_;
  size_t next_object_ = 0;
  std::unique_ptr<Open> open_;
  ShuffleBuffer shuffle_;
  std::deque<uint32_t> out_;  // come out of the shuffle buffer, unbatched
  std::vector<unsigned char> buffer_;
};

absl::StatusOr<bool> StreamSource::Next(std::vector<uint32_t>* batch) {
  batch->clear();
  while (batch->size() < c_.params->batch_size) {
    uint32_t sample = 0;
    if (c_.aborted()) {
      return absl::AbortedError("dataload: aborted");
    } else if (!out_.empty()) {
      batch->push_back(out_.front());
      out_.pop_front();
      c_.Preprocess();  // decoding, after the shuffle as in WebDataset
    } else if (open_) {
      RETURN_IF_ERROR(ReadSome());
    } else if (next_object_ < objects_.size()) {
      RETURN_IF_ERROR(OpenNext());
    } else if (shuffle_.Drain(&sample)) {
      out_.push_back(sample);
    } else {
      break;  // the stream ended: a partial batch, or none
    }
  }
  return !batch->empty();
}

absl::Status StreamSource::OpenNext() {
  const uint64_t object = objects_[next_object_++];
  ++c_.worker->objects;
  const SampleIndex& index = *c_.index;
  auto o = std::make_unique<Open>();
  o->object = object;
  o->name = index.ObjectName(object);
  o->size = index.ObjectSize(object);
  std::tie(o->first, o->end) = index.SamplesOf(object);
  o->next = o->first;
  if (index.spec().format == DatasetFormat::kTar) {
    if (index.verified()) o->image.emplace(index.spec(), o->first, o->end);
    o->tar.emplace(EscapeForTerminal(o->name), o->size);
  }
  ReadOptions options;
  options.size = o->size;
  options.size_from =
      c_.index->verified() ? "the dataset's manifest" : "the dataset's listing";
  options.extents = {{0, o->size}};
  TimedStorage timed(*c_.worker->storage, &c_.worker->ops);
  o->t0 = Clock::now();
  ASSIGN_OR_RETURN(o->file,
                   timed.OpenRead(JoinPath(c_.params->root, o->name), options));
  open_ = std::move(o);
  return absl::OkStatus();
}

absl::Status StreamSource::ReadSome() {
  Open& o = *open_;
  const size_t want =
      static_cast<size_t>(std::min<uint64_t>(buffer_.size(), o.size - o.pos));
  size_t got = 0;
  while (got < want) {
    ASSIGN_OR_RETURN(
        size_t n, o.file->Read(o.pos + got, buffer_.data() + got, want - got));
    if (n == 0) {
      return absl::DataLossError(absl::StrCat(EscapeForTerminal(o.name),
                                              " ends after ", o.pos + got,
                                              " of its ", o.size, " bytes"));
    }
    got += n;
  }
  if (o.pos == 0) c_.worker->first_byte.Record(ElapsedNs(o.t0, Clock::now()));
  RETURN_IF_ERROR(Check(buffer_.data(), got));
  c_.Counted(got);
  if (o.tar) RETURN_IF_ERROR(o.tar->Feed(buffer_.data(), got, *this));
  if (o.tar && o.tar->ended() && !c_.index->verified()) {
    // A listed shard is read as a tar stream reads it: to its end blocks
    // (an object longer than its archive, a sparse 8 TiB one, is not read
    // to its end). A shard ckptbench made is checked to its last byte.
    o.size = o.pos + got;
  }
  o.pos += got;
  if (o.pos < o.size) return absl::OkStatus();
  c_.worker->last_byte.Record(ElapsedNs(o.t0, Clock::now()));
  (void)o.file->Close();
  if (o.tar) {
    RETURN_IF_ERROR(o.tar->Finish());
    if (o.in_sample) RETURN_IF_ERROR(CompleteListed());
    if (o.next != o.end) {
      return absl::DataLossError(absl::StrCat(
          EscapeForTerminal(o.name), " holds ", o.next - o.first, " of its ",
          o.end - o.first, " samples",
          c_.index->verified() ? "" : " indexed at prepare: it changed since"));
    }
  } else {
    Completed(static_cast<uint32_t>(o.first));
  }
  open_.reset();
  return absl::OkStatus();
}

absl::Status StreamSource::Check(const unsigned char* data, size_t n) {
  const Open& o = *open_;
  if (!c_.index->verified()) return absl::OkStatus();  // the user's bytes
  if (o.image) {
    const size_t bad = o.image->FirstMismatch(o.pos, data, n);
    if (bad == n) return absl::OkStatus();
    const uint64_t at = o.pos + bad;
    const uint64_t sample = o.image->SampleAtByte(at);
    const std::string whose =
        sample < o.end ? absl::StrCat("sample ", SampleKey(sample), " in ")
                       : std::string("the end of ");
    return absl::DataLossError(absl::StrCat(whose, o.name, ": byte ", at,
                                            " of the shard differs from what "
                                            "datagen wrote"));
  }
  const uint64_t key = SampleStreamKey(c_.index->spec().seed, o.first);
  const size_t bad = FirstPatternMismatch(key, o.pos, data, n);
  if (bad == n) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      "sample ", SampleKey(o.first), " in ", o.name, ": byte ", o.pos + bad,
      " of its data differs from what datagen wrote"));
}

absl::Status StreamSource::OnMember(const TarMember& m) {
  Open& o = *open_;
  if (!c_.index->verified()) {
    // A listed shard: a sample is one WebDataset key's members.
    std::string key = WebDatasetKey(m.name);
    if (o.in_sample && key == o.key) return absl::OkStatus();
    if (o.in_sample) RETURN_IF_ERROR(CompleteListed());
    o.in_sample = true;
    o.key = std::move(key);
    return absl::OkStatus();
  }
  const bool label = absl::EndsWith(m.name, ".cls");
  const std::optional<uint64_t> s =
      SampleOfMember(m.name, label ? "cls" : "jpg");
  if (!s || *s != o.next) {
    return absl::DataLossError(absl::StrCat(o.name, ": member ", m.name,
                                            " where sample ", SampleKey(o.next),
                                            " was expected"));
  }
  return absl::OkStatus();
}

absl::Status StreamSource::CompleteListed() {
  Open& o = *open_;
  o.in_sample = false;
  if (o.next >= o.end) {
    return absl::DataLossError(absl::StrCat(
        EscapeForTerminal(o.name), " holds more than the ", o.end - o.first,
        " samples indexed at prepare: it changed since"));
  }
  Completed(static_cast<uint32_t>(o.next++));
  return absl::OkStatus();
}

absl::Status StreamSource::OnMemberEnd(const TarMember& m) {
  if (!c_.index->verified() || !absl::EndsWith(m.name, ".cls")) {
    return absl::OkStatus();
  }
  Completed(static_cast<uint32_t>(open_->next++));
  return absl::OkStatus();
}

void StreamSource::Completed(uint32_t sample) {
  ++c_.worker->samples;
  uint32_t out = 0;
  if (shuffle_.Add(sample, &out)) out_.push_back(out);
}

}  // namespace

std::unique_ptr<BatchSource> NewStreamSource(const SourceContext& ctx,
                                             std::vector<uint32_t> objects,
                                             uint64_t seed) {
  return std::make_unique<StreamSource>(ctx, std::move(objects), seed);
}

}  // namespace ckpt
