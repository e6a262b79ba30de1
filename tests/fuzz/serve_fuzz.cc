// libFuzzer target: what the serve workload reads from outside. The first
// byte picks the reader: a generated model's manifest (ckptbench-model.json,
// from storage anyone may write to), a node's serve job, prepare outcome or
// report (wire bytes), or the serve sections of a result.json. What a
// reader accepts must write back to something that reads the same.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "common/serving/model_manifest.h"
#include "coordinator/results.h"
#include "coordinator/serving/serve_results.h"
#include "wire/serve_codec.h"

namespace {

void Manifest(const std::string& text) {
  auto m = ckpt::ModelManifestFromJson(text, "fuzz/ckptbench-model.json");
  if (!m.ok()) return;
  auto again = ckpt::ModelManifestFromJson(ckpt::ModelManifestToJson(*m),
                                           "fuzz/again.json");
  if (!again.ok() || !(again->model == m->model) || again->files != m->files ||
      again->bytes != m->bytes) {
    std::abort();
  }
}

void Wire(uint8_t which, const std::string& bytes) {
  if (which == 1) {
    auto j = ckpt::DecodeServeJob(bytes);
    if (!j.ok()) return;
    auto again = ckpt::DecodeServeJob(ckpt::EncodeServeJob(*j));
    if (!again.ok() || !(again->model == j->model) ||
        again->ranks != j->ranks || again->model_uri != j->model_uri ||
        again->hold != j->hold || again->on_gpu != j->on_gpu) {
      std::abort();
    }
  } else if (which == 2) {
    auto p = ckpt::DecodeServePrepared(bytes);
    if (p.ok() &&
        !ckpt::DecodeServePrepared(ckpt::EncodeServePrepared(*p)).ok()) {
      std::abort();
    }
  } else {
    auto r = ckpt::DecodeServeReport(bytes);
    if (!r.ok()) return;
    auto again = ckpt::DecodeServeReport(ckpt::EncodeServeReport(*r));
    if (!again.ok() || again->ranks.size() != r->ranks.size() ||
        again->download_retries != r->download_retries ||
        again->download_throttles != r->download_throttles ||
        again->download_cached_bytes != r->download_cached_bytes ||
        again->cached_at_start_bytes != r->cached_at_start_bytes ||
        again->objects.size() != r->objects.size() ||
        r->download_cached_bytes > r->download_bytes) {
      std::abort();
    }
    for (size_t k = 0; k < r->ranks.size(); ++k) {
      // What a node says it found cached is at most what it read.
      if (again->ranks[k].retries != r->ranks[k].retries ||
          again->ranks[k].throttles != r->ranks[k].throttles ||
          again->ranks[k].cached_bytes != r->ranks[k].cached_bytes ||
          r->ranks[k].cached_bytes > r->ranks[k].bytes) {
        std::abort();
      }
    }
  }
}

void Section(const ckpt::ResultSectionCodec& codec, const std::string& text) {
  auto s = codec.read(text, codec.member);
  if (!s.ok()) return;
  const ckpt::RunResult run;
  const std::string written = (*s)->ToJson(run);
  auto again = codec.read(written, codec.member);
  if (!again.ok() || (*again)->ToJson(run) != written) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      Manifest(rest);
      break;
    case 1:
    case 2:
    case 3:
      Wire(data[0] % 6, rest);
      break;
    case 4:
      Section(ckpt::ServingModelSectionCodec(), rest);
      break;
    default:
      Section(ckpt::ReplicaLoadSectionCodec(), rest);
      break;
  }
  return 0;
}
