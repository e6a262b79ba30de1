#include "node/dataset/dataset_listing.h"

#include <algorithm>
#include <chrono>
#include <mutex>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/dataset/dataset_layout.h"
#include "common/dataset/dataset_manifest.h"
#include "common/hash_mix.h"
#include "common/log.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/dataset/tar_reader.h"

namespace ckpt {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

uint64_t Chain(uint64_t h, uint64_t v) { return Mix64(h ^ Mix64(v + kGolden)); }

uint64_t HashText(uint64_t h, const std::string& s) {
  h = Chain(h, s.size());
  for (unsigned char c : s) h = Chain(h, c);
  return h;
}

// Groups one shard's members into samples by WebDataset's key.
class MemberIndexer : public TarSink {
 public:
  // `memory_bytes`: what the index may hold (0: unchecked).
  MemberIndexer(ListedDataset::Members* m, std::string shard,
                uint64_t memory_bytes)
      : m_(m), shard_(std::move(shard)), memory_bytes_(memory_bytes) {}

  absl::Status OnMember(const TarMember& member) override {
    const std::string key = WebDatasetKey(member.name);
    if (member.offset % kTarBlock != 0 ||
        member.offset / kTarBlock > UINT32_MAX) {
      return absl::DataLossError(absl::StrCat(
          shard_, ": member ", EscapeForTerminal(member.name), " at byte ",
          member.offset, ": expected a 512-byte block under 2 TiB"));
    }
    if (open_ && key == key_) {
      m_->size.back() = member.offset + member.size - start_;
      return absl::OkStatus();
    }
    if (m_->size.size() >= kMaxDatasetSamples) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the shards hold more than ", kMaxDatasetSamples, " samples"));
    }
    // 20 bytes a sample (its block and size, vectors that may double).
    if (memory_bytes_ != 0 && m_->size.size() % 65536 == 65535 &&
        m_->size.size() * 2 * 20 > memory_bytes_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "the shards' index reached ", m_->size.size(), " samples at ", shard_,
          ": more than the ", FormatBytes(memory_bytes_),
          " (80% of the memory available) this node may hold for it"));
    }
    open_ = true;
    key_ = key;
    start_ = member.offset;
    m_->block.push_back(static_cast<uint32_t>(member.offset / kTarBlock));
    m_->size.push_back(member.size);
    return absl::OkStatus();
  }
  absl::Status OnData(const TarMember&, uint64_t, const unsigned char*,
                      size_t) override {
    return absl::OkStatus();
  }

 private:
  ListedDataset::Members* m_;
  const std::string shard_;
  const uint64_t memory_bytes_;
  bool open_ = false;
  std::string key_;
  uint64_t start_ = 0;
};

// What indexing the shards found beyond their members.
struct IndexNotes {
  uint64_t bytes = 0;  // read
  uint64_t overlong = 0, overlong_bytes = 0;
  std::string overlong_first;
};

// Reads every shard up to its end-of-archive blocks, indexing its members;
// stops at `abort`.
absl::StatusOr<std::shared_ptr<const ListedDataset::Members>> IndexShards(
    Storage& storage, const std::string& root,
    const std::vector<ListedObject>& shards, const ListingBounds& bounds,
    IndexNotes* notes) {
  const std::atomic<bool>* abort = bounds.abort;
  auto m = std::make_shared<ListedDataset::Members>();
  std::vector<unsigned char> buf(4 << 20);
  for (const ListedObject& shard : shards) {
    m->first_sample.push_back(m->size.size());
    const std::string shown = EscapeForTerminal(shard.name);
    if (shard.size == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat(shown,
                       " is 0 bytes: not a TAR archive (expected a shard of at "
                       "least one member)"));
    }
    ReadOptions options;
    options.size = shard.size;
    options.size_from = "the dataset's listing";
    options.extents = {{0, shard.size}};
    ASSIGN_OR_RETURN(std::unique_ptr<ReadableFile> f,
                     storage.OpenRead(JoinPath(root, shard.name), options));
    TarStreamReader tar(shown, shard.size);
    MemberIndexer sink(m.get(), shown, bounds.memory_bytes);
    for (uint64_t at = 0; at < shard.size && !tar.ended();) {
      if (abort != nullptr && abort->load(std::memory_order_relaxed)) {
        return absl::AbortedError(absl::StrCat("indexing ", shown,
                                               ": stopped at byte ", at,
                                               ": the run was aborted"));
      }
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>(buf.size(), shard.size - at));
      ASSIGN_OR_RETURN(size_t n, f->Read(at, buf.data(), want));
      if (n == 0) {
        return absl::DataLossError(absl::StrCat(shown, " ends after ", at,
                                                " of its ", shard.size,
                                                " listed bytes"));
      }
      RETURN_IF_ERROR(tar.Feed(buf.data(), n, sink));
      at += n;
      notes->bytes += n;
    }
    (void)f->Close();
    RETURN_IF_ERROR(tar.Finish());
    const uint64_t past = shard.size - tar.consumed();
    if (tar.ended() && past > kTarRecordBytes) {
      if (notes->overlong++ == 0) notes->overlong_first = shard.name;
      notes->overlong_bytes += past;
    }
  }
  m->first_sample.push_back(m->size.size());
  return std::shared_ptr<const ListedDataset::Members>(std::move(m));
}

// The listing's objects that are samples (or shards) of `format`, into
// d->objects sorted by name, with their bytes; refused: unprintable names,
// sizes that wrap, none at all (naming the format that would read them),
// a name listed twice.
absl::Status TakeSampleObjects(std::vector<ListedObject> all,
                               DatasetFormat format, const std::string& shown,
                               ListedDataset* d) {
  for (ListedObject& o : all) {
    // Every name is printed as it is from here on (errors, logs).
    if (EscapeForTerminal(o.name) != o.name) {
      return absl::FailedPreconditionError(absl::StrCat(
          shown, ": an object's name, ", EscapeForTerminal(o.name),
          ", holds control characters, bidirectional overrides or invalid "
          "UTF-8; expected printable names"));
    }
    // A dataset ckptbench made, read as listed: its manifest and its
    // datagen claim are not samples.
    const bool ckptbench_own =
        o.name == kDatasetManifestName ||
        absl::StartsWith(o.name, absl::StrCat(kMakeClaimDir, "/"));
    const bool ours = format == DatasetFormat::kTar
                          ? absl::EndsWith(o.name, ".tar")
                          : !ckptbench_own;
    if (!ours) {
      ++d->ignored;
      continue;
    }
    if (o.size > UINT64_MAX - d->bytes) {
      // Sizes a server made up: their sum would wrap (two objects were
      // printed as 99 B).
      return absl::DataLossError(absl::StrCat(
          shown, ": the listed sizes add up past 2^64 bytes (", o.name,
          " is listed as ", o.size, "); expected real object sizes"));
    }
    d->bytes += o.size;
    d->objects.push_back(std::move(o));
  }
  std::sort(d->objects.begin(), d->objects.end(),
            [](const ListedObject& a, const ListedObject& b) {
              return a.name < b.name;
            });
  if (d->objects.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "no dataset at ", shown, ": its ", all.size(), " objects hold no ",
        format == DatasetFormat::kTar ? "TAR shard (*.tar)" : "file",
        format == DatasetFormat::kTar && d->ignored > 0
            ? absl::StrCat("; dataset.format=files reads each of its ",
                           d->ignored, " files as one sample")
            : std::string()));
  }
  if (format == DatasetFormat::kFiles &&
      std::all_of(d->objects.begin(), d->objects.end(), [](const auto& o) {
        return absl::EndsWith(o.name, ".tar");
      })) {
    LOG_WARN(
        "%s: all %d objects are TAR shards (*.tar), each read as one sample; "
        "dataset.format=tar reads their members as the samples",
        shown, d->objects.size());
  }
  // A name listed twice (a server's repeat) would be read twice and the
  // epoch called "each once".
  for (size_t i = 1; i < d->objects.size(); ++i) {
    if (d->objects[i].name == d->objects[i - 1].name) {
      return absl::DataLossError(
          absl::StrCat(shown, ": the listing names ", d->objects[i].name,
                       " twice; expected each object once"));
    }
  }
  return absl::OkStatus();
}

// d->members: the TAR shards' members, from the index `kept` holds for
// this root while its listing (`kept_digest`, versions included) is
// unchanged, else indexed now and kept there.
absl::Status IndexMembers(Storage& storage, const ObjectStoreCounters& counters,
                          const std::string& root, uint64_t kept_digest,
                          const ListingBounds& bounds, KeptIndex* kept,
                          ListedDataset* d) {
  if (kept != nullptr && kept->Take(root, kept_digest, d)) {
    return absl::OkStatus();
  }
  const uint64_t r0 = counters.requests.load();
  const auto t0 = Clock::now();
  IndexNotes notes;
  ASSIGN_OR_RETURN(d->members,
                   IndexShards(storage, root, d->objects, bounds, &notes));
  d->index_bytes = notes.bytes;
  d->overlong = notes.overlong;
  d->overlong_bytes = notes.overlong_bytes;
  d->overlong_first = std::move(notes.overlong_first);
  d->index_seconds = Since(t0);
  d->index_requests = counters.requests.load() - r0;
  if (kept != nullptr) kept->Keep(root, kept_digest, *d);
  return absl::OkStatus();
}

}  // namespace

bool KeptIndex::Take(const std::string& root, uint64_t digest,
                     ListedDataset* d) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!members_ || root_ != root || digest_ != digest) return false;
  d->members = members_;
  d->overlong = overlong_;
  d->overlong_bytes = overlong_bytes_;
  d->overlong_first = overlong_first_;
  d->index_reused = true;
  return true;
}

void KeptIndex::Keep(const std::string& root, uint64_t digest,
                     const ListedDataset& d) {
  std::lock_guard<std::mutex> lock(mu_);
  root_ = root;
  digest_ = digest;
  members_ = d.members;
  overlong_ = d.overlong;
  overlong_bytes_ = d.overlong_bytes;
  overlong_first_ = d.overlong_first;
}

std::string WebDatasetKey(const std::string& member) {
  const size_t slash = member.rfind('/');
  const size_t base = slash == std::string::npos ? 0 : slash + 1;
  const size_t dot = member.find('.', base);
  return dot == std::string::npos ? member : member.substr(0, dot);
}

absl::StatusOr<ListedDataset> ListDataset(
    Storage& storage, const ObjectStoreCounters& counters,
    const std::string& root, DatasetFormat format, const std::string& shown,
    const ListingBounds& bounds, KeptIndex* kept_index) {
  ListedDataset d;
  d.format = format;
  const uint64_t requests0 = counters.requests.load();
  auto t0 = Clock::now();
  ASSIGN_OR_RETURN(std::vector<ListedObject> all,
                   storage.ListTree(root, bounds));
  d.list_seconds = Since(t0);
  d.list_requests = counters.requests.load() - requests0;
  RETURN_IF_ERROR(TakeSampleObjects(std::move(all), format, shown, &d));
  uint64_t h = Chain(0, static_cast<uint64_t>(format));
  // `h`: names and sizes, what nodes sharing the dataset must agree on;
  // `kept`: with the versions too (a shared mount's inode numbers may
  // differ between nodes), what a kept index must match.
  uint64_t kept = 0;
  for (const ListedObject& o : d.objects) {
    h = Chain(HashText(h, o.name), o.size);
    kept = HashText(Chain(kept, h), o.version);
  }
  if (format == DatasetFormat::kFiles) {
    if (d.objects.size() > kMaxDatasetSamples) {
      return absl::ResourceExhaustedError(absl::StrCat(
          shown, " holds more than ", kMaxDatasetSamples, " files"));
    }
    d.samples = d.objects.size();
    d.sample_bytes = d.bytes;
    d.digest = h;
    return d;
  }
  RETURN_IF_ERROR(
      IndexMembers(storage, counters, root, kept, bounds, kept_index, &d));
  d.samples = d.members->size.size();
  if (d.samples == 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        shown, ": its ", d.objects.size(),
        " TAR shard(s) hold no regular member: an epoch would read no "
        "sample"));
  }
  for (size_t s = 0; s < d.samples; ++s) {
    d.sample_bytes += d.members->size[s];
    h = Chain(Chain(h, d.members->block[s]), d.members->size[s]);
  }
  d.digest = h;
  return d;
}

}  // namespace ckpt
