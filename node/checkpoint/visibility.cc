#include "node/checkpoint/visibility.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/checksum.h"
#include "common/clock.h"
#include "node/node_agent.h"
#include "node/storage/storage.h"

namespace ckpt {
namespace {

// What one poll finds missing, or "" when the step is visible.
std::string Lacks(const StorageLocation& loc, const VisibleWant& want) {
  const std::string step = StepDirName(want.step);
  auto names = ListEntries(*loc.storage, loc.path);
  if (!names.ok() ||
      std::find(names->begin(), names->end(), step) == names->end()) {
    return "listing";
  }
  const std::string dir = JoinPath(loc.path, step);
  // Read only at the size the commit wrote: whatever is there instead (a
  // huge object, a FIFO) is never read whole.
  auto meta =
      loc.storage->OpenRead(JoinPath(dir, kMetadataFile), ReadOptions{});
  if (!meta.ok() || (*meta)->Size() != want.metadata_size) return ".metadata";
  auto text = ReadWhole(**meta, kMetadataFile);
  (void)(*meta)->Close();
  if (!text.ok() || Xxh3(text->data(), text->size()) != want.metadata_xxh3) {
    return ".metadata";
  }
  if (!want.shard.empty()) {
    auto f = loc.storage->OpenRead(JoinPath(dir, want.shard), ReadOptions{});
    if (!f.ok() || (*f)->Size() != want.shard_size) return "shard";
    char first[4096];
    const size_t n =
        static_cast<size_t>(std::min<uint64_t>(sizeof(first), want.shard_size));
    auto got = (*f)->Read(0, first, n);
    (void)(*f)->Close();
    if (!got.ok() || *got != n) return "shard";
  }
  return "";
}

}  // namespace

VisibleOutcome PollVisible(const StorageLocation& checkpoints,
                           const VisibleWant& want) {
  VisibleOutcome out;
  const auto t0 = std::chrono::steady_clock::now();
  auto wait = std::chrono::milliseconds(1);
  for (;;) {
    ++out.polls;
    const auto p0 = std::chrono::steady_clock::now();
    const std::string lacks = Lacks(checkpoints, want);
    out.last_poll_seconds = SecondsSince(p0);
    out.poll_seconds = SecondsSince(t0);
    if (lacks.empty()) {
      out.visible = true;
      out.at_unix_ns = NowUnixNs();
      return out;
    }
    out.lacked = lacks;
    if (out.poll_seconds >= want.timeout_seconds) return out;
    std::this_thread::sleep_for(wait);
    wait = std::min(wait * 2, std::chrono::milliseconds(50));
  }
}

}  // namespace ckpt
