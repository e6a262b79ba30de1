#include "node/dataset/map_source.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/dataset_bytes.h"
#include "node/pattern.h"
#include "node/storage/timed_storage.h"

namespace ckpt {

using Clock = std::chrono::steady_clock;

void SourceContext::Preprocess() const {
  if (params->preprocess_seconds > 0) {
    std::this_thread::sleep_for(
        std::chrono::duration<double>(params->preprocess_seconds));
  }
}

std::vector<unsigned char> SourceContext::Buffer() const {
  return std::vector<unsigned char>(static_cast<size_t>(std::min<uint64_t>(
      params->block_size,
      std::max<uint64_t>(index->spec().sample_bytes * 2, 64 * 1024))));
}

namespace {

class MapSource : public BatchSource {
 public:
  MapSource(const SourceContext& ctx, const RankOrder& samples, uint32_t worker)
      : c_(ctx), samples_(samples), next_(worker), buffer_(ctx.Buffer()) {}

  absl::StatusOr<bool> Next(std::vector<uint32_t>* batch) override {
    const uint64_t size = c_.params->batch_size;
    const uint64_t first = next_ * size;
    if (first >= samples_.size()) return false;
    const uint64_t end = std::min<uint64_t>(first + size, samples_.size());
    batch->clear();
    for (uint64_t k = first; k < end; ++k) {
      if (c_.aborted()) return absl::AbortedError("dataload: aborted");
      RETURN_IF_ERROR(ReadSample(samples_[k]));
      batch->push_back(samples_[k]);
    }
    next_ += c_.params->num_workers;
    return true;
  }

 private:
  absl::Status ReadSample(uint64_t sample);

  const SourceContext c_;
  const RankOrder& samples_;
  uint64_t next_;  // the worker's next batch of the rank
  std::vector<unsigned char> buffer_;
};

absl::Status MapSource::ReadSample(uint64_t sample) {
  LoaderWorker& worker = *c_.worker;
  const SampleLocation loc = c_.index->Locate(sample);
  const std::string path = JoinPath(c_.params->root, loc.object);
  ReadOptions options;
  options.size = loc.object_size;
  options.size_from =
      c_.index->verified() ? "the dataset's manifest" : "the dataset's listing";
  options.extents = {{loc.offset, loc.offset + loc.size}};
  const uint64_t key = SampleStreamKey(c_.index->spec().seed, sample);
  TimedStorage timed(*worker.storage, &worker.ops);
  const auto t0 = Clock::now();
  ASSIGN_OR_RETURN(std::unique_ptr<ReadableFile> f,
                   timed.OpenRead(path, options));
  for (uint64_t done = 0; done < loc.size;) {
    const size_t want = static_cast<size_t>(
        std::min<uint64_t>(buffer_.size(), loc.size - done));
    size_t got = 0;
    while (got < want) {
      ASSIGN_OR_RETURN(size_t n, f->Read(loc.offset + done + got,
                                         buffer_.data() + got, want - got));
      if (n == 0) {
        return absl::DataLossError(absl::StrCat(
            "sample ", SampleKey(sample), " in ", EscapeForTerminal(loc.object),
            " ends after ", done + got, " of its ", loc.size, " bytes"));
      }
      got += n;
    }
    if (done == 0) worker.first_byte.Record(ElapsedNs(t0, Clock::now()));
    const size_t bad =
        c_.index->verified()
            ? FirstPatternMismatch(key, done, buffer_.data(), got)
            : got;
    if (bad < got) {
      return absl::DataLossError(
          absl::StrCat("sample ", SampleKey(sample), " in ",
                       EscapeForTerminal(loc.object), ": byte ", done + bad,
                       " of its data differs from what datagen wrote"));
    }
    done += got;
    c_.Counted(got);
  }
  worker.last_byte.Record(ElapsedNs(t0, Clock::now()));
  (void)f->Close();
  ++worker.samples;
  c_.Preprocess();
  return absl::OkStatus();
}

}  // namespace

std::unique_ptr<BatchSource> NewMapSource(const SourceContext& ctx,
                                          const RankOrder& samples,
                                          uint32_t worker) {
  return std::make_unique<MapSource>(ctx, samples, worker);
}

}  // namespace ckpt
