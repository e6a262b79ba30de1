#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/clock.h"
#include "common/error_kind.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/serving/mapped_ranges.h"
#include "node/serving/model_bytes.h"
#include "node/serving/serve_workload_impl.h"
#include "node/storage/io_tally.h"
#include "node/storage/listing_pager.h"

// A serve round's load on a node (serve_workload_impl.h): the replica's
// plan at prepare, and on the clock the download (serve.read_mode =
// download), the headers read again and every rank's reads.
namespace ckpt::serve_node {
namespace {

// The start of a download's directory name, inside serve.download_path:
// the run's id (what is safe of it in a file name); mkdtemp adds the rest.
std::string DownloadDirPrefix(const std::string& run_id) {
  std::string safe;
  for (char c : run_id.substr(0, 64)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-' || c == '_';
    safe.push_back(ok ? c : '_');
  }
  return absl::StrCat(".ckptbench-download-", safe, "-");
}

}  // namespace

absl::Status ServeWorkload::CheckGenerated(const ModelHeaders& headers) const {
  const std::vector<ModelFile>& want = gen_.files;
  auto differs = [&](const std::string& what) {
    return absl::DataLossError(absl::StrCat(
        "serve: ", shown_, " is not the model its ", kModelManifestName,
        " says (", Describe(job_.model), "): ", what));
  };
  if (headers.files.size() != want.size()) {
    return differs(
        absl::StrCat(headers.files.size(), " file(s), expected ", want.size()));
  }
  for (size_t i = 0; i < want.size(); ++i) {
    const ModelFileHeader& got = headers.files[i];
    const ModelFile& w = want[i];
    if (got.name != w.name || got.size != w.Size() ||
        got.header.DataStart() != w.header.size() ||
        got.header.tensors.size() != w.tensors.size()) {
      return differs(absl::StrCat("file ", EscapeForTerminal(got.name), " of ",
                                  got.size, " bytes, expected ", w.name, " of ",
                                  w.Size()));
    }
    for (size_t t = 0; t < w.tensors.size(); ++t) {
      const StTensor& a = got.header.tensors[t];
      const StTensor& b = w.tensors[t];
      if (a.name != b.name || a.dtype != b.dtype || a.shape != b.shape ||
          a.begin != b.begin || a.end != b.end) {
        return differs(absl::StrCat("tensor ", EscapeForTerminal(a.name),
                                    " of ", w.name, " is not as generated"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ServeWorkload::PrepareLoad(ServePrepared* prepared) {
  // mmap and O_DIRECT read a file system: a path (mmap: a FUSE mount's
  // too; O_DIRECT: a local one, FUSE mounts have none).
  const StorageKind kind = St().Kind();
  if ((job_.read_mode == ServeReadMode::kMmap && kind != StorageKind::kPosix &&
       kind != StorageKind::kFuse) ||
      (job_.read_mode == ServeReadMode::kDirect &&
       kind != StorageKind::kPosix)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve.read_mode = ", std::string(Name(job_.read_mode)), " at ", shown_,
        " (", std::string(Name(kind)),
        "): expected stream or download there (mmap: a local or FUSE path; "
        "direct: a local path)"));
  }
  if (job_.generated) {
    ASSIGN_OR_RETURN(std::optional<ModelManifest> m, FindManifest());
    if (!m) {
      return absl::FailedPreconditionError(
          absl::StrCat("serve: no model ckptbench generated at ", shown_,
                       " (no ", kModelManifestName, ")"));
    }
    prepared->manifest_found = true;
    if (!(m->model == job_.model)) {
      return absl::FailedPreconditionError(
          absl::StrCat("serve: ", shown_, " holds ", Describe(m->model),
                       "; expected ", Describe(job_.model)));
    }
  }
  // Reading no more than the headers: another replica on the host may
  // have evicted the files already.
  ASSIGN_OR_RETURN(headers_, ReadModelHeaders(St(), location_.path,
                                              AtMost(kMaxModelDirEntries),
                                              HeaderReads::kNoReadahead));
  if (job_.generated) RETURN_IF_ERROR(CheckGenerated(headers_));
  std::vector<PlannedFile> planned;
  for (const ModelFileHeader& f : headers_.files) {
    planned.push_back({f.name, f.size, f.header});
  }
  ASSIGN_OR_RETURN(plan_, PlanReplica(planned,
                                      job_.split == ServeSplit::kTp
                                          ? ReplicaSplit::kTensorParallel
                                          : ReplicaSplit::kWholeFiles,
                                      static_cast<int>(job_.ranks),
                                      job_.generated ? gen_.head_dim : 0));
  prepared->files = headers_.files.size();
  prepared->tensors = headers_.tensors;
  prepared->model_bytes = plan_.model_bytes;
  prepared->header_bytes = headers_.header_bytes;
  prepared->read_bytes = plan_.read_bytes;
  for (const RankReads& r : plan_.ranks) prepared->ranges += r.ranges;
  if (job_.read_mode == ServeReadMode::kDownload) {
    download_ = std::make_unique<ModelDownload>(job_.download_path,
                                                DownloadDirPrefix(run_id_));
    RETURN_IF_ERROR(download_->Check(plan_.model_bytes + kMaxModelSideBytes));
  }
  // The ranks' shares: in GPU memory (ACCELERATOR=gpu), or in host
  // memory (serve.hold), made before the clock.
  if (job_.on_gpu) {
    ASSIGN_OR_RETURN(held_, HeldWeights::MakeOnGpus(plan_));
  } else if (job_.hold) {
    ASSIGN_OR_RETURN(held_, HeldWeights::Make(plan_));
  }
  rank_bytes_ = std::make_unique<std::atomic<uint64_t>[]>(plan_.ranks.size());
  return absl::OkStatus();
}

absl::Status ServeWorkload::Download(const StreamOptions& options,
                                     const NodePhaseContext& ctx,
                                     SteadyClock::time_point t0) {
  IoTally io;  // the listing's requests and the copy's
  ScopedIoTally scope(&io);
  ASSIGN_OR_RETURN(std::vector<ListedObject> listed,
                   St().ListTree(location_.path, AtMost(kMaxModelDirEntries)));
  // The listing by name, looked up once per file (a directory may list
  // tens of thousands of objects).
  std::map<std::string, uint64_t> sizes;
  for (const ListedObject& o : listed) sizes.emplace(o.name, o.size);
  std::vector<DownloadedFile> files;
  for (const ModelFileHeader& f : headers_.files) {
    files.push_back({f.name, f.size});
    const auto it = sizes.find(f.name);
    if (it == sizes.end() || it->second != f.size) {
      return absl::DataLossError(absl::StrCat(
          "serve: the model at ", shown_,
          " changed between the round's prepare and its download: ",
          EscapeForTerminal(f.name), " of ", f.size, " bytes is not listed"));
    }
  }
  if (headers_.indexed != (sizes.count(kModelIndexName) > 0)) {
    return absl::DataLossError(absl::StrCat(
        "serve: the model at ", shown_,
        " changed between the round's prepare and its download: its ",
        kModelIndexName, headers_.indexed ? " is gone" : " appeared"));
  }
  // The index and config.json too, where the model has them, as a
  // downloader copies them (a server reads the config before the weights).
  for (const auto& [name, most] :
       {std::pair<const char*, uint64_t>{kModelIndexName, kMaxModelIndexBytes},
        {kModelConfigName, kMaxModelConfigBytes}}) {
    const auto it = sizes.find(name);
    if (it == sizes.end()) continue;
    if (it->second > most) {
      return absl::ResourceExhaustedError(
          absl::StrCat("serve: ", shown_, "/", name, " is ", it->second,
                       " bytes; expected at most ", most));
    }
    files.push_back({it->first, it->second});
  }
  StreamOptions copy = options;
  copy.direct = false;
  ASSIGN_OR_RETURN(StreamTally t, download_->Copy(St(), location_.path, files,
                                                  copy, ctx.abort));
  report_.download_retries = io.retries.load();
  report_.download_throttles = io.throttles.load();
  report_.download_cached_bytes = t.cached_bytes;
  for (size_t i = 0; i < files.size() && i < t.files_io.size(); ++i) {
    AddObjectIo(files[i].name, t.files_io[i]);
  }
  report_.download_seconds = SecondsSince(t0);
  report_.download_bytes = t.bytes;
  report_.download_requests = t.chunks;
  return absl::OkStatus();
}

absl::StatusOr<uint64_t> ServeWorkload::ReadHeadersAgain() {
  ASSIGN_OR_RETURN(
      ModelHeaders headers,
      ReadModelHeaders(ReadSt(), ReadDir(), AtMost(kMaxModelDirEntries)));
  bool same = headers.files.size() == headers_.files.size();
  for (size_t i = 0; same && i < headers.files.size(); ++i) {
    same = headers.files[i].name == headers_.files[i].name &&
           headers.files[i].size == headers_.files[i].size &&
           headers.files[i].header.length == headers_.files[i].header.length;
  }
  if (!same) {
    return absl::DataLossError(
        absl::StrCat("serve: the model at ", shown_,
                     " changed between the round's prepare and its load"));
  }
  return headers.header_bytes;
}

absl::StatusOr<StreamTally> ServeWorkload::LoadRank(
    size_t r, const StreamOptions& options, const NodePhaseContext& ctx) {
  std::vector<StreamedFile> files;
  std::vector<size_t> index;
  for (const FileReads& f : plan_.ranks[r].files) {
    files.push_back({JoinPath(ReadDir(), headers_.files[f.file].name),
                     headers_.files[f.file].size, f.ranges});
    index.push_back(f.file);
  }
  ChunkSink sink = [&](size_t f, uint64_t off, const unsigned char* data,
                       size_t len) -> absl::Status {
    // serve.hold: the chunk copied to its place in the rank's share, and
    // checked there; on a GPU, copied there and checked as it was sent.
    if (held_) {
      ASSIGN_OR_RETURN(data, held_->Put(r, f, off, data, len));
    }
    if (job_.generated) {
      RETURN_IF_ERROR(
          CheckModelChunk(gen_.files[index[f]], static_cast<uint32_t>(index[f]),
                          job_.model.seed, files[f].path, off, data, len));
    }
    rank_bytes_[r].fetch_add(len, std::memory_order_relaxed);
    return absl::OkStatus();
  };
  if (job_.read_mode == ServeReadMode::kMmap || download_) {
    StreamOptions mapped = options;
    mapped.count_cached = !download_;  // a copy just written is all cached
    return MapRanges(ReadDir(), files, mapped, sink, ctx.abort);
  }
  return StreamRanges(St(), files, options, sink, ctx.abort);
}

void ServeWorkload::AddObjectIo(const std::string& name,
                                const StreamTally::FileIo& io) {
  if (io.requests == 0) return;  // a file system's: no requests
  const auto [at, added] = object_at_.emplace(name, report_.objects.size());
  if (added) report_.objects.push_back({name, 0, 0, 0});
  ServeObjectReport& o = report_.objects[at->second];
  o.requests += io.requests;
  o.retries += io.retries;
  o.throttles += io.throttles;
}

void ServeWorkload::AddRanksObjectIo(const std::vector<StreamTally>& tallies) {
  for (size_t r = 0; r < tallies.size(); ++r) {
    const std::vector<FileReads>& files = plan_.ranks[r].files;
    for (size_t i = 0; i < files.size() && i < tallies[r].files_io.size();
         ++i) {
      AddObjectIo(headers_.files[files[i].file].name, tallies[r].files_io[i]);
    }
  }
}

StreamOptions ServeWorkload::LoadOptions() const {
  StreamOptions options;
  options.concurrency = static_cast<int>(job_.concurrency);
  options.chunk_bytes = job_.chunk_bytes;
  options.direct = job_.read_mode == ServeReadMode::kDirect;
  options.count_cached = true;  // what the host's page cache served
  return options;
}

uint64_t ServeWorkload::CachedAtStart() {
  uint64_t cached = 0;
  // A local file system's only: a FUSE mount's open may drop the file's
  // pages (no keep_cache), those another replica on the host is reading.
  if (St().Kind() != StorageKind::kPosix) return 0;
  for (const ModelFileHeader& f : headers_.files) {
    ReadOptions options;
    options.size = f.size;
    options.size_from = "the model's listing";
    absl::StatusOr<std::unique_ptr<ReadableFile>> file =
        St().OpenRead(JoinPath(location_.path, f.name), options);
    if (!file.ok()) return cached;  // the load's own reads will say why
    cached += (*file)->CachedBytes(0, f.size).value_or(0);
    (void)(*file)->Close();
  }
  return cached;
}

absl::Status ServeWorkload::RunLoad(const NodePhaseContext& ctx,
                                    PhaseOutcome* out) {
  // On the clock, its cost not hidden: the page cache before any read.
  const auto t0 = SteadyClock::now();
  report_.cached_at_start_bytes = CachedAtStart();
  const StreamOptions options = LoadOptions();
  // download: the model copied to the node first, as an init container
  // copies it before the server starts.
  // (On a thread of its own, so the phase's progress goes on meanwhile.)
  if (download_) {
    RETURN_IF_ERROR(RunEach(
        1, ctx, [&](size_t) { return Download(options, ctx, t0); },
        "serve: download"));
  }
  // Every rank as a replica's worker: the files found and every header
  // read (each rank opens every file, as vLLM's workers do), then its
  // reads.
  const size_t ranks = plan_.ranks.size();
  std::vector<StreamTally> tallies(ranks);
  std::vector<double> done(ranks, 0), planned(ranks, 0);
  std::vector<uint64_t> header_bytes(ranks, 0);
  // Each rank's object-store requests, counted where they are sent.
  const auto io = std::make_unique<IoTally[]>(ranks);
  RETURN_IF_ERROR(RunEach(
      ranks, ctx,
      [&](size_t r) -> absl::Status {
        ScopedIoTally scope(&io[r]);
        absl::StatusOr<uint64_t> headers = ReadHeadersAgain();
        planned[r] = SecondsSince(t0);
        if (!headers.ok()) {
          done[r] = planned[r];
          return WithPrefix(headers.status(),
                            absl::StrCat("serve: rank ", r, ": "));
        }
        header_bytes[r] = *headers;
        absl::StatusOr<StreamTally> tally = LoadRank(r, options, ctx);
        done[r] = SecondsSince(t0);
        if (!tally.ok()) {
          return WithPrefix(tally.status(),
                            absl::StrCat("serve: rank ", r, ": "));
        }
        tallies[r] = *tally;
        return absl::OkStatus();
      },
      "serve: load"));
  for (size_t r = 0; r < ranks; ++r) {
    report_.headers_seconds = std::max(report_.headers_seconds, planned[r]);
    report_.header_reads += 2 * headers_.files.size();
    report_.header_bytes += header_bytes[r];
  }
  for (size_t r = 0; r < ranks; ++r) {
    const StreamTally& t = tallies[r];
    const double planned_at = planned[r];
    ServeRankReport k;
    k.bytes = t.bytes;
    // mmap (and download's load from the copy): no request is made; the
    // reads are the page faults.
    k.requests = job_.read_mode == ServeReadMode::kMmap || download_
                     ? t.major_faults
                     : t.chunks;
    k.first_byte_seconds =
        t.first_byte_seconds < 0 ? 0 : planned_at + t.first_byte_seconds;
    k.last_byte_seconds = planned_at + t.last_byte_seconds;
    k.retries = io[r].retries.load();
    k.throttles = io[r].throttles.load();
    k.cached_bytes = t.cached_bytes;
    report_.ranks.push_back(k);
    RankOutcome rank;
    rank.rank = static_cast<uint32_t>(r);
    rank.bytes = t.bytes;
    rank.first_byte_seconds = k.first_byte_seconds;
    rank.done_seconds = done[r];
    rank.verified = job_.generated;
    rank.checked_bytes = job_.generated ? t.bytes : 0;
    out->ranks.push_back(rank);
  }
  AddRanksObjectIo(tallies);
  report_.verified = job_.generated;
  return absl::OkStatus();
}

}  // namespace ckpt::serve_node
