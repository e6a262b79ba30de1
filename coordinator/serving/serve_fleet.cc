#include "coordinator/serving/serve_fleet.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace ckpt {
namespace {

using Replica = ReplicaLoadResult::Replica;

// The nearest-rank percentile `q` (0 < q <= 1) of `v`, sorted.
double NearestRank(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const size_t rank = static_cast<size_t>(std::ceil(q * v.size()));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

// The median of `v` without its element `skip`: the rest of the fleet.
double OthersMedian(std::vector<double> v, size_t skip) {
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(skip));
  std::sort(v.begin(), v.end());
  return NearestRank(v, 0.5);
}

// The first tensor byte and the download, from the replica's own start.
double FirstByte(const Replica& p) {
  return std::max(0.0, p.first_byte_seconds - p.start_seconds);
}
double Download(const Replica& p) {
  return std::max(0.0, p.download_seconds - p.start_seconds);
}

// Why `p` was slow, against the medians of the other replicas.
std::string Why(const Replica& p, double first_byte, double download,
                double rate) {
  std::vector<std::string> why;
  if (p.throttles > 0) {
    why.push_back(absl::StrCat(p.throttles, " throttles"));
  }
  if (p.retries > 0) why.push_back(absl::StrCat(p.retries, " retries"));
  if (p.download_bytes > 0 && Download(p) > 1.5 * download + 0.05) {
    why.push_back(absl::StrFormat("its download took %.3f s (median %.3f s)",
                                  Download(p), download));
  } else if (FirstByte(p) > 2 * first_byte + 0.05) {
    why.push_back(absl::StrFormat("first byte after %.3f s (median %.3f s)",
                                  FirstByte(p), first_byte));
  }
  if (why.empty()) {
    why.push_back(absl::StrFormat("read at %.1f MiB/s (median %.1f MiB/s)",
                                  p.mib_per_second, rate));
  }
  return absl::StrJoin(why, "; ");
}

}  // namespace

ReplicaLoadResult::Fleet FleetOf(const std::vector<Replica>& replicas) {
  ReplicaLoadResult::Fleet f;
  if (replicas.empty()) return f;
  std::vector<double> loaded, first_bytes, downloads, rates;
  double first_start = replicas[0].start_seconds, last_loaded = 0;
  for (const Replica& p : replicas) {
    loaded.push_back(p.loaded_seconds);
    first_bytes.push_back(FirstByte(p));
    downloads.push_back(Download(p));
    rates.push_back(p.mib_per_second);
    first_start = std::min(first_start, p.start_seconds);
    last_loaded = std::max(last_loaded, p.load_seconds);
  }
  std::vector<double> sorted = loaded;
  std::sort(sorted.begin(), sorted.end());
  f.loaded_p50_seconds = NearestRank(sorted, 0.5);
  f.loaded_p90_seconds = NearestRank(sorted, 0.9);
  f.loaded_max_seconds = sorted.back();
  f.first_start_seconds = first_start;
  f.all_loaded_seconds = std::max(0.0, last_loaded - first_start);
  if (replicas.size() < 2) return f;
  std::vector<size_t> order(replicas.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return loaded[a] > loaded[b]; });
  for (size_t k = 0; k < std::min(kFleetSlowest, order.size()); ++k) {
    const Replica& p = replicas[order[k]];
    if (!(p.loaded_seconds > f.loaded_p50_seconds)) break;
    const size_t i = order[k];
    f.slowest.push_back(
        {p.node, p.loaded_seconds,
         Why(p, OthersMedian(first_bytes, i), OthersMedian(downloads, i),
             OthersMedian(rates, i))});
  }
  return f;
}

std::vector<ReplicaLoadResult::HotObject> HotObjectsOf(
    const std::vector<Replica>& replicas) {
  std::map<std::string, ReplicaLoadResult::HotObject> by_name;
  for (const Replica& p : replicas) {
    for (const Replica::Object& o : p.objects) {
      ReplicaLoadResult::HotObject& h = by_name[o.name];
      h.name = o.name;
      ++h.replicas;
      if (o.throttles > 0) ++h.throttled_replicas;
      // Saturating: the figures are the nodes' word.
      const auto add = [](uint64_t* sum, uint64_t v) {
        *sum = v > UINT64_MAX - *sum ? UINT64_MAX : *sum + v;
      };
      add(&h.requests, o.requests);
      add(&h.retries, o.retries);
      add(&h.throttles, o.throttles);
    }
  }
  std::vector<ReplicaLoadResult::HotObject> out;
  for (auto& [name, h] : by_name) out.push_back(std::move(h));
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.throttles != b.throttles ? a.throttles > b.throttles
                                      : a.requests > b.requests;
  });
  return out;
}

}  // namespace ckpt
