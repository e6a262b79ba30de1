#include "wire/histogram_codec.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ckpt {

void HistogramToProto(const Histogram& h, ::ckptbench::v1::Histogram* out) {
  out->set_sub_buckets(Histogram::kSubBuckets);
  for (uint64_t c : h.TrimmedCounts()) out->add_counts(c);
  out->set_count(h.count());
  out->set_sum_ns(h.sum());
  out->set_min_ns(h.min());
  out->set_max_ns(h.max());
}

// A histogram this build can hold, exactly as sent.
absl::Status CheckHistogram(const std::string& op,
                            const ::ckptbench::v1::Histogram& h) {
  if (h.counts_size() > Histogram::kNumBuckets) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " latency has ", h.counts_size(), " buckets; at most ",
                     Histogram::kNumBuckets));
  }
  uint64_t total = 0;
  for (uint64_t c : h.counts()) {
    if (c > UINT64_MAX - total)
      return absl::InvalidArgumentError(op + " latency overflows");
    total += c;
  }
  if (total != h.count()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " latency counts add up to ", total,
                     ", not its count ", h.count()));
  }
  if (h.count() > 0 && h.min_ns() > h.max_ns()) {
    return absl::InvalidArgumentError(absl::StrCat(op, " latency has min ",
                                                   h.min_ns(), " ns above max ",
                                                   h.max_ns(), " ns"));
  }
  return absl::OkStatus();
}

Histogram HistogramFromProto(const ::ckptbench::v1::Histogram& h) {
  std::vector<uint64_t> counts(h.counts().begin(), h.counts().end());
  return Histogram::FromParts(std::move(counts), h.count(), h.sum_ns(),
                              h.min_ns(), h.max_ns());
}

}  // namespace ckpt
