#include "wire/histogram_codec.h"

#include <utility>
#include <vector>

namespace ckpt {

void HistogramToProto(const Histogram& h, ::ckptbench::v1::Histogram* out) {
  out->set_sub_buckets(Histogram::kSubBuckets);
  for (uint64_t c : h.TrimmedCounts()) out->add_counts(c);
  out->set_count(h.count());
  out->set_sum_ns(h.sum());
  out->set_min_ns(h.min());
  out->set_max_ns(h.max());
}

Histogram HistogramFromProto(const ::ckptbench::v1::Histogram& h) {
  std::vector<uint64_t> counts(h.counts().begin(), h.counts().end());
  return Histogram::FromParts(std::move(counts), h.count(), h.sum_ns(),
                              h.min_ns(), h.max_ns());
}

}  // namespace ckpt
