// Latency histograms on the wire (ckptbench.v1.Histogram): the node writes
// its phase's, the coordinator merges them by adding counts.
#ifndef CKPTBENCH_WIRE_HISTOGRAM_CODEC_H_
#define CKPTBENCH_WIRE_HISTOGRAM_CODEC_H_

#include <string>

#include "absl/status/status.h"
#include "common/histogram.h"
#include "proto/ckptbench/v1/node.pb.h"

namespace ckpt {

void HistogramToProto(const Histogram& h, ::ckptbench::v1::Histogram* out);
Histogram HistogramFromProto(const ::ckptbench::v1::Histogram& h);
// Whether `h` as sent is one this build can hold: at most kNumBuckets
// buckets whose counts add up to its count, min not above max. `op` names
// it in the error ("read" -> "read latency ...").
absl::Status CheckHistogram(const std::string& op,
                            const ::ckptbench::v1::Histogram& h);

}  // namespace ckpt

#endif  // CKPTBENCH_WIRE_HISTOGRAM_CODEC_H_
