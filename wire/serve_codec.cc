#include "wire/serve_codec.h"

#include <optional>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/key_recheck.h"
#include "common/serving/serve_options.h"
#include "common/status_macros.h"
#include "proto/ckptbench/v1/serving.pb.h"
#include "wire/backend_codec.h"
#include "wire/kinds_codec.h"

namespace ckpt {
namespace {

// A kind sent as its enum's value + 1 (0 is UNSPECIFIED on the wire).
template <typename E>
int WireOf(E v) {
  return static_cast<int>(v) + 1;
}

template <typename E>
absl::StatusOr<E> KindFrom(int wire, int count, const char* field) {
  if (wire < 1 || wire > count) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve: ", field, " is ", wire, ", expected one of ", KindNames<E>()));
  }
  return static_cast<E>(wire - 1);
}

}  // namespace

std::string EncodeServeJob(const ServeJob& job) {
  v1::ServeJob w;
  w.set_action(static_cast<v1::ServeAction>(WireOf(job.action)));
  w.set_model_uri(job.model_uri);
  w.set_generated(job.generated);
  v1::GeneratedModel* m = w.mutable_model();
  m->set_preset(job.model.preset);
  m->set_num_layers(static_cast<uint32_t>(job.model.num_layers));
  m->set_dtype(static_cast<v1::ModelDtype>(WireOf(job.model.dtype)));
  m->set_file_bytes(job.model.file_bytes);
  m->set_seed(job.model.seed);
  w.set_share_index(job.share_index);
  w.set_share_count(job.share_count);
  w.set_manifest_owner(job.manifest_owner);
  w.set_write_threads(job.write_threads);
  w.set_block_size(job.block_size);
  w.set_fsync(job.fsync);
  w.set_ranks(job.ranks);
  w.set_read_mode(static_cast<v1::ServeReadMode>(WireOf(job.read_mode)));
  w.set_split(static_cast<v1::ServeSplit>(WireOf(job.split)));
  w.set_concurrency(job.concurrency);
  w.set_chunk_bytes(job.chunk_bytes);
  w.set_download_path(job.download_path);
  w.set_hold(job.hold);
  w.set_on_gpu(job.on_gpu);
  w.set_cache_mode(ToWire(job.cache_mode));
  *w.mutable_backend() = ToWire(job.backend);
  return w.SerializeAsString();
}

absl::StatusOr<ServeJob> DecodeServeJob(const std::string& bytes) {
  v1::ServeJob w;
  if (!w.ParseFromString(bytes)) {
    return absl::InvalidArgumentError("serve: a job that does not parse");
  }
  ServeJob job;
  if (w.action() < 1 || w.action() > 3) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve: action ", w.action(), ", expected make, load or remove"));
  }
  job.action = static_cast<ServeAction>(w.action() - 1);
  job.model_uri = w.model_uri();
  job.generated = w.generated();
  const v1::GeneratedModel& m = w.model();
  job.model.preset = m.preset();
  RETURN_IF_ERROR(RecheckKey("model.name", job.model.preset));
  job.model.num_layers = static_cast<int>(m.num_layers());
  RETURN_IF_ERROR(
      RecheckKey("model.num_layers", absl::StrCat(job.model.num_layers)));
  ASSIGN_OR_RETURN(job.model.dtype,
                   KindFrom<ModelDtype>(m.dtype(), 3, "serve.dtype"));
  job.model.file_bytes = m.file_bytes();
  RETURN_IF_ERROR(
      RecheckKey("serve.file_bytes", absl::StrCat(job.model.file_bytes)));
  job.model.seed = m.seed();
  job.share_index = w.share_index();
  job.share_count = w.share_count();
  if (job.share_count == 0 || job.share_index >= job.share_count) {
    return absl::InvalidArgumentError(
        absl::StrCat("serve: share ", job.share_index, " of ", job.share_count,
                     " is not a share"));
  }
  job.manifest_owner = w.manifest_owner();
  job.write_threads = w.write_threads();
  RETURN_IF_ERROR(
      RecheckKey("serve.write_threads", absl::StrCat(job.write_threads)));
  job.block_size = w.block_size();
  RETURN_IF_ERROR(RecheckKey("io.block_size", absl::StrCat(job.block_size)));
  job.fsync = w.fsync();
  job.ranks = w.ranks();
  if (job.ranks < 1 || job.ranks > kMaxServeRanks) {
    return absl::InvalidArgumentError(absl::StrCat(
        "serve: ranks ", job.ranks, ", expected 1 to ", kMaxServeRanks));
  }
  ASSIGN_OR_RETURN(job.read_mode, KindFrom<ServeReadMode>(w.read_mode(), 4,
                                                          "serve.read_mode"));
  ASSIGN_OR_RETURN(job.split,
                   KindFrom<ServeSplit>(w.split(), 2, "serve.split"));
  job.concurrency = w.concurrency();
  RETURN_IF_ERROR(
      RecheckKey("serve.concurrency", absl::StrCat(job.concurrency)));
  job.chunk_bytes = w.chunk_bytes();
  RETURN_IF_ERROR(
      RecheckKey("serve.chunk_size", absl::StrCat(job.chunk_bytes)));
  job.download_path = w.download_path();
  job.hold = w.hold();
  job.on_gpu = w.on_gpu();
  if (job.read_mode == ServeReadMode::kDownload) {
    RETURN_IF_ERROR(RecheckKey("serve.download_path", job.download_path));
  }
  ASSIGN_OR_RETURN(job.cache_mode, FromWire(w.cache_mode(), "io.cache_mode"));
  ASSIGN_OR_RETURN(job.backend, FromWire(w.backend()));  // checked there
  return job;
}

std::string EncodeServePrepared(const ServePrepared& p) {
  v1::ServePrepared w;
  w.set_manifest_found(p.manifest_found);
  w.set_reuse(p.reuse);
  w.set_files(p.files);
  w.set_tensors(p.tensors);
  w.set_model_bytes(p.model_bytes);
  w.set_header_bytes(p.header_bytes);
  w.set_read_bytes(p.read_bytes);
  w.set_ranges(p.ranges);
  return w.SerializeAsString();
}

absl::StatusOr<ServePrepared> DecodeServePrepared(const std::string& bytes) {
  v1::ServePrepared w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError("a serve prepare outcome that does not parse");
  }
  ServePrepared p;
  p.manifest_found = w.manifest_found();
  p.reuse = w.reuse();
  p.files = w.files();
  p.tensors = w.tensors();
  p.model_bytes = w.model_bytes();
  p.header_bytes = w.header_bytes();
  p.read_bytes = w.read_bytes();
  p.ranges = w.ranges();
  return p;
}

std::string EncodeServeReport(const ServeReport& r) {
  v1::ServeReport w;
  w.set_header_reads(r.header_reads);
  w.set_header_bytes(r.header_bytes);
  w.set_headers_seconds(r.headers_seconds);
  for (const ServeRankReport& k : r.ranks) {
    v1::ServeRankReport* o = w.add_ranks();
    o->set_bytes(k.bytes);
    o->set_requests(k.requests);
    o->set_first_byte_seconds(k.first_byte_seconds);
    o->set_last_byte_seconds(k.last_byte_seconds);
    o->set_retries(k.retries);
    o->set_throttles(k.throttles);
    o->set_cached_bytes(k.cached_bytes);
  }
  w.set_verified(r.verified);
  w.set_files(r.files);
  w.set_bytes(r.bytes);
  w.set_download_seconds(r.download_seconds);
  w.set_download_bytes(r.download_bytes);
  w.set_download_requests(r.download_requests);
  w.set_download_retries(r.download_retries);
  w.set_download_throttles(r.download_throttles);
  w.set_download_cached_bytes(r.download_cached_bytes);
  w.set_cached_at_start_bytes(r.cached_at_start_bytes);
  for (const ServeObjectReport& o : r.objects) {
    v1::ServeObjectReport* out = w.add_objects();
    out->set_name(o.name);
    out->set_requests(o.requests);
    out->set_retries(o.retries);
    out->set_throttles(o.throttles);
  }
  return w.SerializeAsString();
}

absl::StatusOr<ServeReport> DecodeServeReport(const std::string& bytes) {
  v1::ServeReport w;
  if (!w.ParseFromString(bytes)) {
    return absl::DataLossError("a serve report that does not parse");
  }
  if (w.ranks_size() > kMaxServeRanks) {
    return absl::DataLossError(
        absl::StrCat("a serve report of ", w.ranks_size(),
                     " ranks; a replica has at most ", kMaxServeRanks));
  }
  ServeReport r;
  r.header_reads = w.header_reads();
  r.header_bytes = w.header_bytes();
  r.headers_seconds = w.headers_seconds();
  for (const v1::ServeRankReport& k : w.ranks()) {
    if (k.cached_bytes() > k.bytes()) {
      return absl::DataLossError(absl::StrCat(
          "a serve report whose rank ", r.ranks.size(), " found ",
          k.cached_bytes(), " bytes cached of the ", k.bytes(), " it read"));
    }
    r.ranks.push_back({k.bytes(), k.requests(), k.first_byte_seconds(),
                       k.last_byte_seconds(), k.retries(), k.throttles(),
                       k.cached_bytes()});
  }
  r.verified = w.verified();
  r.files = w.files();
  r.bytes = w.bytes();
  r.download_seconds = w.download_seconds();
  r.download_bytes = w.download_bytes();
  r.download_requests = w.download_requests();
  r.download_retries = w.download_retries();
  r.download_throttles = w.download_throttles();
  r.download_cached_bytes = w.download_cached_bytes();
  r.cached_at_start_bytes = w.cached_at_start_bytes();
  if (w.objects_size() > kMaxModelReportObjects) {
    return absl::DataLossError(
        absl::StrCat("a serve report of ", w.objects_size(),
                     " objects; a model has at most ", kMaxModelReportObjects));
  }
  std::set<std::string> named;
  for (const v1::ServeObjectReport& o : w.objects()) {
    if (o.name().empty() || o.name().size() > kMaxModelObjectName) {
      return absl::DataLossError(
          absl::StrCat("a serve report naming an object of ", o.name().size(),
                       " bytes; expected 1 to ", kMaxModelObjectName));
    }
    // Each object once, its retries and throttles among its requests (a
    // retry is a request sent again; a throttle is a response to one).
    if (!named.insert(o.name()).second || o.retries() > o.requests() ||
        o.throttles() > o.requests()) {
      return absl::DataLossError(absl::StrCat(
          "a serve report naming its object ", r.objects.size(),
          " twice, or with more retries or throttles than requests"));
    }
    r.objects.push_back({o.name(), o.requests(), o.retries(), o.throttles()});
  }
  if (r.download_cached_bytes > r.download_bytes) {
    return absl::DataLossError(absl::StrCat(
        "a serve report whose download found ", r.download_cached_bytes,
        " bytes cached of the ", r.download_bytes, " it copied"));
  }
  return r;
}

}  // namespace ckpt
