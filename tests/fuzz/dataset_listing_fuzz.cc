// libFuzzer target: a dataset ckptbench did not make (ListDataset), as an
// object store holds it: any keys under the prefix, any bytes in them. The
// input is the store: a first byte (the format, and whether the index of an
// earlier call may be kept), then objects separated by "\n--\n", each its
// key (relative to the dataset's prefix), "\n", its bytes. The keys go
// through the object stores' own listing (TreeUnder), the shards through
// the hostile tar reader. Whatever the store holds, a listing that
// succeeds must hold only names inside the prefix and printable, each once
// and sorted, and (TAR) every sample's span inside its shard.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>

#include "common/names.h"
#include "common/text.h"
#include "node/dataset/dataset_listing.h"
#include "node/storage/memory_storage.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const auto format = (data[0] & 1) != 0 ? ckpt::DatasetFormat::kTar
                                         : ckpt::DatasetFormat::kFiles;
  auto store = std::make_shared<ckpt::MemoryStore>();
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  for (size_t at = 0; at <= text.size();) {
    size_t sep = text.find("\n--\n", at);
    if (sep == std::string::npos) sep = text.size();
    const std::string object = text.substr(at, sep - at);
    const size_t nl = object.find('\n');
    store->Put("b/ds/" + object.substr(0, nl),
               nl == std::string::npos ? "" : object.substr(nl + 1));
    at = sep + 4;
  }
  auto storage = ckpt::MemoryStorage::Make(store);
  ckpt::ObjectStoreCounters counters;
  ckpt::ListingBounds bounds = ckpt::AtMost(64);
  bounds.memory_bytes = 1 << 20;
  // One root for every input: with the first byte's second bit, an index
  // kept from an earlier input is reused when the names and sizes are the
  // same (as in a node's later epochs), and must hold for these bytes too.
  static ckpt::KeptIndex kept;
  auto listed = ckpt::ListDataset(*storage, counters, "b/ds", format, "fuzz",
                                  bounds, (data[0] & 2) != 0 ? &kept : nullptr);
  if (!listed.ok()) return 0;
  const ckpt::ListedDataset& d = *listed;
  Check(!d.objects.empty() && d.objects.size() <= 64 && d.samples > 0);
  for (size_t i = 0; i < d.objects.size(); ++i) {
    const std::string& name = d.objects[i].name;
    Check(ckpt::CheckRelativeName(name, "fuzz").ok());
    Check(ckpt::EscapeForTerminal(name) == name);
    Check(i == 0 || d.objects[i - 1].name < name);
  }
  if (format == ckpt::DatasetFormat::kFiles) {
    Check(d.samples == d.objects.size());
    return 0;
  }
  const auto& m = *d.members;
  Check(m.first_sample.size() == d.objects.size() + 1);
  Check(m.first_sample.front() == 0 && m.first_sample.back() == d.samples);
  Check(m.block.size() == d.samples && m.size.size() == d.samples);
  for (size_t k = 0; k < d.objects.size(); ++k) {
    Check(m.first_sample[k] <= m.first_sample[k + 1]);
    for (uint64_t s = m.first_sample[k]; s < m.first_sample[k + 1]; ++s) {
      const uint64_t begin = static_cast<uint64_t>(m.block[s]) * 512;
      Check(begin <= d.objects[k].size &&
            m.size[s] <= d.objects[k].size - begin);
    }
  }
  return 0;
}
