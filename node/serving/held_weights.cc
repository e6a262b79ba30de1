#include "node/serving/held_weights.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/bytes.h"
#include "common/memory.h"
#include "common/status_macros.h"

namespace ckpt {

absl::StatusOr<std::unique_ptr<HeldWeights>> HeldWeights::Make(
    const ReplicaPlan& plan) {
  std::unique_ptr<HeldWeights> h(new HeldWeights(plan));
  for (const RankReads& r : plan.ranks) h->bytes_ += r.bytes;
  const MemoryBudget budget = AvailableMemory();
  const uint64_t usable = UsableBytes(budget);
  if (usable == 0) {
    return absl::ResourceExhaustedError(
        "serve.hold (CKPT_SERVE_HOLD) = true: this node's available memory "
        "is unknown (no MemAvailable, no cgroup limit read), so the "
        "replica's shares cannot be checked against it. Expected "
        "serve.hold=false");
  }
  if (h->bytes_ > usable) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "serve.hold (CKPT_SERVE_HOLD) = true: the replica's ranks would hold ",
        FormatBytes(h->bytes_), " in host memory, but this node may use ",
        FormatBytes(usable), " (80% of ", FormatBytes(budget.available_bytes),
        ", ", budget.source,
        "). Expected serve.hold=false or a smaller model (the shares add up "
        "to about the model whatever the ranks)"));
  }
  for (const RankReads& r : plan.ranks) {
    std::unique_ptr<unsigned char[]> share(
        new (std::nothrow) unsigned char[r.bytes + 1]);
    if (!share) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "serve.hold (CKPT_SERVE_HOLD) = true: allocating a rank's ",
          FormatBytes(r.bytes), " failed"));
    }
    std::memset(share.get(), 0, r.bytes + 1);  // every page touched
    h->shares_.push_back(std::move(share));
  }
  h->Lay();
  return h;
}

absl::StatusOr<std::unique_ptr<HeldWeights>> HeldWeights::MakeOnGpus(
    const ReplicaPlan& plan, DeviceOps ops) {
  std::unique_ptr<HeldWeights> h(new HeldWeights(plan));
  h->ops_ = std::move(ops);
  absl::StatusOr<int> gpus = h->ops_.count();
  if (!gpus.ok() || *gpus < 1) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cluster.accelerator (ACCELERATOR) = gpu: the replica's ranks load "
        "into GPU memory, but ",
        gpus.ok() ? "this node sees no GPU" : gpus.status().message(),
        ". Expected a node with GPUs, or ACCELERATOR=cpu"));
  }
  for (size_t k = 0; k < plan.ranks.size(); ++k) {
    const uint64_t bytes = plan.ranks[k].bytes;
    h->bytes_ += bytes;
    const int device = static_cast<int>(k % static_cast<size_t>(*gpus));
    absl::StatusOr<void*> p = h->ops_.alloc(device, bytes + 1);
    if (!p.ok()) {
      return absl::Status(
          p.status().code(),
          absl::StrCat("cluster.accelerator (ACCELERATOR) = gpu: rank ", k,
                       "'s share of ", FormatBytes(bytes), " on GPU ", device,
                       ": ", p.status().message()));
    }
    h->on_device_.emplace_back(device, *p);
  }
  h->Lay();
  return h;
}

HeldWeights::~HeldWeights() {
  for (const auto& [device, p] : on_device_) ops_.release(device, p);
}

void HeldWeights::Lay() {
  for (const RankReads& r : plan_.ranks) {
    std::vector<std::vector<uint64_t>> files;
    uint64_t at = 0;
    for (const FileReads& f : r.files) {
      std::vector<uint64_t> before;
      before.reserve(f.ranges.size());
      for (const ByteRange& range : f.ranges) {
        before.push_back(at);
        at += range.length;
      }
      files.push_back(std::move(before));
    }
    before_.push_back(std::move(files));
  }
}

absl::StatusOr<uint64_t> HeldWeights::Place(size_t rank, size_t file,
                                            uint64_t offset, size_t len) const {
  if (rank >= plan_.ranks.size() || file >= plan_.ranks[rank].files.size()) {
    return absl::InternalError(
        absl::StrCat("held weights: rank ", rank, " has no file ", file));
  }
  const std::vector<ByteRange>& ranges = plan_.ranks[rank].files[file].ranges;
  // The range holding `offset`: the last one starting at or before it.
  auto it = std::upper_bound(
      ranges.begin(), ranges.end(), offset,
      [](uint64_t o, const ByteRange& r) { return o < r.offset; });
  if (it == ranges.begin() ||
      offset - std::prev(it)->offset > std::prev(it)->length ||
      len > std::prev(it)->length - (offset - std::prev(it)->offset)) {
    return absl::InternalError(
        absl::StrCat("held weights: ", len, " bytes at ", offset, " of rank ",
                     rank, "'s file ", file, " are outside its ranges"));
  }
  const size_t k = static_cast<size_t>(std::prev(it) - ranges.begin());
  const uint64_t at = before_[rank][file][k] + (offset - std::prev(it)->offset);
  const uint64_t size = plan_.ranks[rank].bytes;
  if (at > size || len > size - at) {
    return absl::InternalError(absl::StrCat("held weights: ", len, " bytes at ",
                                            at, " of rank ", rank,
                                            "'s share of ", size));
  }
  return at;
}

absl::StatusOr<const unsigned char*> HeldWeights::Put(size_t rank, size_t file,
                                                      uint64_t offset,
                                                      const unsigned char* data,
                                                      size_t len) {
  ASSIGN_OR_RETURN(const uint64_t at, Place(rank, file, offset, len));
  if (!on_device_.empty()) {
    const auto& [device, base] = on_device_[rank];
    RETURN_IF_ERROR(ops_.to_device(
        device, static_cast<unsigned char*>(base) + at, data, len));
    return data;
  }
  unsigned char* to = shares_[rank].get() + at;
  std::memcpy(to, data, len);
  return to;
}

int HeldWeights::device(size_t rank) const {
  return rank < on_device_.size() ? on_device_[rank].first : -1;
}

absl::Status HeldWeights::CopyShare(size_t rank, unsigned char* out) const {
  if (rank >= plan_.ranks.size()) {
    return absl::InternalError(absl::StrCat("held weights: no rank ", rank));
  }
  const size_t n = static_cast<size_t>(plan_.ranks[rank].bytes);
  if (!on_device_.empty()) {
    return ops_.to_host(on_device_[rank].first, out, on_device_[rank].second,
                        n);
  }
  std::memcpy(out, shares_[rank].get(), n);
  return absl::OkStatus();
}

}  // namespace ckpt
