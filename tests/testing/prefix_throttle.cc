#include "tests/testing/prefix_throttle.h"

#include <algorithm>
#include <utility>

namespace ckpt {

PrefixThrottle::PrefixThrottle(PrefixThrottleOptions options)
    : options_(std::move(options)) {}

std::string PrefixThrottle::PrefixOf(const std::string& target) {
  std::string path = target.substr(0, target.find('?'));
  size_t bucket_end = path.find('/', 1);  // after "/bucket"
  if (bucket_end == std::string::npos) return "";
  size_t prefix_end = path.find('/', bucket_end + 1);
  if (prefix_end == std::string::npos) return "";
  return path.substr(bucket_end + 1, prefix_end - bucket_end - 1);
}

double PrefixThrottle::Now() const {
  if (options_.now) return options_.now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start_)
      .count();
}

Fault PrefixThrottle::Check(const ProxyRequest& request) {
  Fault f;
  if (options_.applies && !options_.applies(request)) return f;
  const bool write = request.method != "GET" && request.method != "HEAD";
  const TokenRate& limit = write ? options_.writes : options_.reads;
  const double now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, fresh] = buckets_.try_emplace({PrefixOf(request.target), write});
  Bucket& b = it->second;
  if (fresh) {
    b.tokens = limit.burst;
  } else {
    b.tokens =
        std::min(limit.burst, b.tokens + (now - b.at) * limit.rate_per_second);
  }
  b.at = now;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    ++b.passed;
    return f;
  }
  ++b.throttled;
  f.kind = FaultKind::kError;
  f.status = 503;
  f.code = "SlowDown";
  return f;
}

int PrefixThrottle::Throttled() const {
  std::lock_guard<std::mutex> lock(mu_);
  int n = 0;
  for (const auto& [key, b] : buckets_) n += b.throttled;
  return n;
}

std::map<std::string, int> PrefixThrottle::ThrottledByPrefix() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, int> out;
  for (const auto& [key, b] : buckets_) {
    if (b.throttled > 0) out[key.first] += b.throttled;
  }
  return out;
}

std::map<std::string, int> PrefixThrottle::PassedByPrefix() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::map<std::string, int> out;
  for (const auto& [key, b] : buckets_) out[key.first] += b.passed;
  return out;
}

}  // namespace ckpt
