#include "node/serving/model_bytes.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"
#include "node/pattern.h"

namespace ckpt {
namespace {

// The pattern keys of a model's files: a rank no checkpoint has, so that
// no shard file's bytes are a model's.
constexpr uint32_t kModelRank = 0xffffffffu;

}  // namespace

uint64_t ModelStreamKey(uint64_t seed, uint32_t file) {
  PatternKey key;
  key.seed = seed;
  key.rank = kModelRank;
  key.file = file;
  return PatternStreamKey(key);
}

absl::Status WriteModelFile(Storage& storage, const std::string& dir,
                            const ModelFile& f, uint32_t index, uint64_t seed,
                            size_t block_bytes, bool sync,
                            std::atomic<uint64_t>* written) {
  std::vector<unsigned char> block(std::max<size_t>(block_bytes, 1));
  ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> out,
                   storage.OpenWrite(JoinPath(dir, f.name), WriteOptions{}));
  RETURN_IF_ERROR(out->Append(f.header.data(), f.header.size()));
  if (written != nullptr) written->fetch_add(f.header.size());
  const uint64_t key = ModelStreamKey(seed, index);
  const uint64_t data = f.Size() - f.header.size();
  for (uint64_t at = 0; at < data; at += block.size()) {
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(block.size(), data - at));
    FillPattern(key, at, block.data(), n);
    RETURN_IF_ERROR(out->Append(block.data(), n));
    if (written != nullptr) written->fetch_add(n, std::memory_order_relaxed);
  }
  if (sync) RETURN_IF_ERROR(out->Sync());
  return out->Close();
}

absl::Status WriteGeneratedModel(Storage& storage, const std::string& dir,
                                 const std::vector<ModelFile>& files,
                                 uint64_t seed, size_t block_bytes) {
  RETURN_IF_ERROR(storage.CreateDirs(dir));
  for (size_t i = 0; i < files.size(); ++i) {
    RETURN_IF_ERROR(WriteModelFile(storage, dir, files[i],
                                   static_cast<uint32_t>(i), seed, block_bytes,
                                   /*sync=*/true, nullptr));
  }
  if (files.size() > 1) {
    RETURN_IF_ERROR(storage.WriteAtomic(JoinPath(dir, kModelIndexName),
                                        ModelIndexJson(files)));
  }
  return storage.SyncDir(dir);
}

absl::Status CheckModelChunk(const ModelFile& f, uint32_t index, uint64_t seed,
                             const std::string& path, uint64_t offset,
                             const unsigned char* data, size_t len) {
  const uint64_t head = f.header.size();
  if (offset > f.Size() || len > f.Size() - offset) {
    return absl::DataLossError(absl::StrCat(
        EscapeForTerminal(path), ": ", len, " bytes read at byte ", offset,
        ", past the ", f.Size(), " the model was generated with"));
  }
  size_t bad = len;
  if (offset < head) {
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(len, head - offset));
    const auto it = std::mismatch(
        data, data + n,
        reinterpret_cast<const unsigned char*>(f.header.data() + offset));
    if (it.first != data + n) bad = static_cast<size_t>(it.first - data);
  }
  if (bad == len && offset + len > head) {
    const uint64_t from = std::max(offset, head);
    const size_t skip = static_cast<size_t>(from - offset);
    const size_t m = FirstPatternMismatch(ModelStreamKey(seed, index),
                                          from - head, data + skip, len - skip);
    if (m < len - skip) bad = skip + m;
  }
  if (bad == len) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      EscapeForTerminal(path), ": byte ", offset + bad, " differs from the ",
      offset + bad < head ? "header" : "tensor data",
      " the model was generated with"));
}

}  // namespace ckpt
