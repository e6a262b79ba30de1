#include "node/serving/model_headers.h"

#include <algorithm>
#include <map>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/serving/model_files.h"
#include "common/status_macros.h"
#include "common/step_layout.h"
#include "common/text.h"

namespace ckpt {
namespace {

// `len` bytes at `offset` of `path` (`size` bytes, from the listing), in
// one reader that reads only them.
absl::StatusOr<std::string> ReadSpan(Storage& storage, const std::string& path,
                                     uint64_t size, uint64_t offset,
                                     uint64_t len, HeaderReads reads) {
  ReadOptions options;
  options.no_readahead = reads == HeaderReads::kNoReadahead;
  options.size = size;
  options.size_from = "the model's listing";
  options.extents = {{offset, offset + len}};
  ASSIGN_OR_RETURN(std::unique_ptr<ReadableFile> f,
                   storage.OpenRead(path, options));
  std::string out(len, '\0');
  RETURN_IF_ERROR(
      ReadFully(*f, offset, out.data(), out.size(), EscapeForTerminal(path)));
  RETURN_IF_ERROR(f->Close());
  return out;
}

absl::StatusOr<StHeader> ReadHeader(Storage& storage, const std::string& path,
                                    uint64_t size, HeaderReads reads) {
  if (size < 8) return StHeaderLength("", size, path).status();
  ASSIGN_OR_RETURN(std::string head,
                   ReadSpan(storage, path, size, 0, 8, reads));
  ASSIGN_OR_RETURN(uint64_t n, StHeaderLength(head, size, path));
  ASSIGN_OR_RETURN(std::string json,
                   ReadSpan(storage, path, size, 8, n, reads));
  return ParseStHeader(json, size, path);
}

// The files to read and their sizes: the index's, or the directory's
// *.safetensors.
absl::StatusOr<std::map<std::string, uint64_t>> ModelFiles(
    Storage& storage, const std::string& dir, const ListingBounds& bounds,
    ModelHeaders* out, ModelIndex* index) {
  ASSIGN_OR_RETURN(std::vector<ListedObject> listed,
                   storage.ListTree(dir, bounds));
  std::map<std::string, uint64_t> files;
  bool has_index = false;
  for (const ListedObject& o : listed) {
    if (o.name.find('/') != std::string::npos) continue;  // not directly in it
    if (o.name == kModelIndexName) has_index = true;
    if (absl::EndsWith(o.name, ".safetensors")) files[o.name] = o.size;
  }
  const std::string shown = EscapeForTerminal(dir);
  if (!has_index) {
    if (files.empty()) {
      return absl::NotFoundError(
          absl::StrCat(shown, ": no .safetensors file directly in it"));
    }
    return files;
  }
  const std::string path = JoinPath(dir, kModelIndexName);
  ASSIGN_OR_RETURN(std::string text,
                   ReadAtMost(storage, path, kMaxModelIndexBytes));
  ASSIGN_OR_RETURN(*index, ParseModelIndex(text, path));
  out->indexed = true;
  std::map<std::string, uint64_t> named;
  for (const std::string& f : index->files) {
    auto it = files.find(f);
    if (it == files.end()) {
      return absl::NotFoundError(absl::StrCat(EscapeForTerminal(path),
                                              " names '", EscapeForTerminal(f),
                                              "', which is not in ", shown));
    }
    named.insert(*it);
  }
  return named;
}

// The index against the headers: each tensor in the file it names, and
// the bytes it says.
absl::Status CheckIndex(const ModelIndex& index, ModelHeaders* model,
                        const std::string& dir) {
  const std::string where = EscapeForTerminal(JoinPath(dir, kModelIndexName));
  std::map<std::string, const std::string*> in_file;
  for (const ModelFileHeader& f : model->files) {
    for (const StTensor& t : f.header.tensors) in_file[t.name] = &f.name;
  }
  for (const auto& [tensor, file] : index.weight_map) {
    auto it = in_file.find(tensor);
    if (it == in_file.end() || *it->second != file) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": tensor '", EscapeForTerminal(tensor), "' is not in '",
          EscapeForTerminal(file), "' as it says"));
    }
  }
  if (index.weight_map.size() != model->tensors) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": names ", index.weight_map.size(),
                     " tensors, its files hold ", model->tensors));
  }
  if (index.total_size != 0 && index.total_size != model->tensor_bytes) {
    model->notes.push_back(absl::StrCat(
        where, ": total_size ", index.total_size, ", its files' tensors hold ",
        model->tensor_bytes, " bytes (loaders do not read it)"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ModelHeaders> ReadModelHeaders(Storage& storage,
                                              const std::string& dir,
                                              const ListingBounds& bounds,
                                              HeaderReads reads) {
  ModelHeaders model;
  ModelIndex index;
  ASSIGN_OR_RETURN(auto files,
                   ModelFiles(storage, dir, bounds, &model, &index));
  std::map<std::string, const std::string*> seen;  // tensor -> its file
  for (const auto& [name, size] : files) {
    ModelFileHeader f;
    f.name = name;
    f.size = size;
    ASSIGN_OR_RETURN(f.header,
                     ReadHeader(storage, JoinPath(dir, name), size, reads));
    model.tensors += f.header.tensors.size();
    if (model.tensors > kMaxModelTensors) {
      return absl::ResourceExhaustedError(
          absl::StrCat(EscapeForTerminal(dir), ": more than ", kMaxModelTensors,
                       " tensors in its files"));
    }
    for (const StTensor& t : f.header.tensors) {
      auto [it, added] = seen.emplace(t.name, &name);
      if (!added) {
        return absl::InvalidArgumentError(absl::StrCat(
            EscapeForTerminal(dir), ": tensor '", EscapeForTerminal(t.name),
            "' is in both '", EscapeForTerminal(*it->second), "' and '",
            EscapeForTerminal(name), "'"));
      }
    }
    model.tensor_bytes += size - f.header.DataStart();
    model.header_bytes += f.header.DataStart();
    model.files.push_back(std::move(f));
  }
  if (model.indexed) RETURN_IF_ERROR(CheckIndex(index, &model, dir));
  return model;
}

}  // namespace ckpt
