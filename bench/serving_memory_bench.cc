// What a serving replica's stream mode holds in memory while it reads a
// model, against the model's size: a generated model of --mib MiB (bf16
// tensors of 64 MiB in files of at most 1 GiB) written to --dir once, the
// page cache dropped (root), then read back whole by one rank with
// StreamRanges (node/serving/range_stream.h) at each --concurrency x
// --chunk-mib, every byte verified. Prints, per setting: the model's
// bytes, the time and rate, and how far the process's resident set grew
// during the read (its peak, VmHWM reset before it through
// /proc/self/clear_refs, less VmRSS then: memory freed by an earlier
// setting and kept by the allocator does not count twice) against the
// buffers' concurrency x chunk. Not a test: run by hand, e.g.
//   build/bench/serving_memory_bench --dir /var/tmp/model --mib 4096
// --dir must not exist; its model files are removed when done (only those
// it wrote, then the directory if that left it empty).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "common/serving/model_files.h"
#include "common/step_layout.h"
#include "node/serving/model_bytes.h"
#include "node/serving/model_headers.h"
#include "node/serving/range_stream.h"
#include "node/storage/posix_storage.h"

namespace ckpt {
namespace {

// A /proc/self/status figure in KiB ("VmHWM:", "VmRSS:").
uint64_t StatusKib(const std::string& field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind(field, 0) == 0) {
      return std::stoull(line.substr(field.size()));
    }
  }
  return 0;
}

void ResetHwm() { std::ofstream("/proc/self/clear_refs") << "5"; }

void DropCaches() {
  ::sync();
  std::ofstream drop("/proc/sys/vm/drop_caches");
  drop << "3";
  if (!drop) std::fprintf(stderr, "cannot drop the page cache (not root)\n");
}

int Run(const std::string& dir, uint64_t mib,
        const std::vector<std::pair<int, uint64_t>>& settings) {
  std::vector<StTensor> tensors;
  for (uint64_t i = 0; i < (mib + 63) / 64; ++i) {  // 64 MiB each
    StTensor t;
    t.name = "model.layers." + std::to_string(i) + ".mlp.up_proj.weight";
    t.dtype = StDtype::kBf16;
    t.shape = {8192, 4096};
    tensors.push_back(std::move(t));
  }
  const std::vector<ModelFile> files = ShardModel(tensors, 1ull << 30);
  std::shared_ptr<Storage> storage = PosixStorage::Make().value();
  // Its files would overwrite another model's of the same names.
  if (auto there = storage->Exists(dir); !there.ok() || *there) {
    std::fprintf(stderr, "--dir %s: exists; give a directory to create\n",
                 dir.c_str());
    return 2;
  }
  const auto t0 = std::chrono::steady_clock::now();
  if (absl::Status st = WriteGeneratedModel(*storage, dir, files, 1, 8 << 20);
      !st.ok()) {
    std::fprintf(stderr, "write: %s\n", std::string(st.message()).c_str());
    return 1;
  }
  std::printf(
      "wrote %zu files in %.1f s\n", files.size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
          .count());
  std::printf(
      "| concurrency x chunk | buffers MiB | model GiB | seconds | "
      "GiB/s | resident set grown during the read MiB | resident before MiB |\n"
      "|---|---|---|---|---|---|---|\n");
  int rc = 0;
  for (const auto& [concurrency, chunk_mib] : settings) {
    DropCaches();
    auto headers = ReadModelHeaders(*storage, dir, AtMost(10000));
    if (!headers.ok()) {
      std::fprintf(stderr, "headers: %s\n",
                   std::string(headers.status().message()).c_str());
      return 1;
    }
    std::vector<StreamedFile> streamed;
    for (const ModelFileHeader& f : headers->files) {
      streamed.push_back({JoinPath(dir, f.name), f.size, {{0, f.size}}});
    }
    StreamOptions options;
    options.concurrency = concurrency;
    options.chunk_bytes = chunk_mib << 20;
    const uint64_t before = StatusKib("VmRSS:");
    ResetHwm();
    const auto s0 = std::chrono::steady_clock::now();
    auto tally = StreamRanges(
        *storage, streamed, options,
        [&](size_t f, uint64_t off, const unsigned char* data, size_t len) {
          return CheckModelChunk(files[f], static_cast<uint32_t>(f), 1,
                                 streamed[f].path, off, data, len);
        },
        nullptr);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - s0)
            .count();
    if (!tally.ok()) {
      std::fprintf(stderr, "read: %s\n",
                   std::string(tally.status().message()).c_str());
      rc = 1;
      break;
    }
    std::printf("| %d x %llu MiB | %llu | %.2f | %.2f | %.2f | %.1f | %.1f |\n",
                concurrency, static_cast<unsigned long long>(chunk_mib),
                static_cast<unsigned long long>(tally->buffer_bytes >> 20),
                tally->bytes / 1073741824.0, secs,
                tally->bytes / 1073741824.0 / secs,
                (StatusKib("VmHWM:") - before) / 1024.0, before / 1024.0);
  }
  std::vector<std::string> names;
  for (const ModelFile& f : files) names.push_back(f.name);
  names.push_back(kModelIndexName);
  (void)storage->RemoveFiles(dir, names);
  return rc;
}

}  // namespace
}  // namespace ckpt

int main(int argc, char** argv) {
  std::string dir = "/var/tmp/ckptbench-serving-memory";
  uint64_t mib = 4096;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--dir") {
      dir = argv[i + 1];
    } else if (k == "--mib") {
      mib = std::strtoull(argv[i + 1], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: %s [--dir DIR] [--mib N]\n", argv[0]);
      return 2;
    }
  }
  if (mib == 0) {
    std::fprintf(stderr, "--mib: expected at least 1\n");
    return 2;
  }
  return ckpt::Run(dir, mib, {{1, 8}, {8, 8}, {16, 16}, {4, 64}});
}
