// A per-prefix request-rate limiter, as a FaultProxy rule: S3 throttles
// each partitioned key prefix of a bucket on its own, with one rate for
// reads (GET/HEAD) and one for writes (PUT/COPY/POST/DELETE), answering
// 503 SlowDown past them, so keys spread over prefixes get more requests
// through. This models that mechanism with token buckets, scaled down to
// rates a loopback test can exceed; it is no model of S3's numbers or of
// how S3 splits prefixes. Thread-safe.
#ifndef CKPTBENCH_TESTS_TESTING_PREFIX_THROTTLE_H_
#define CKPTBENCH_TESTS_TESTING_PREFIX_THROTTLE_H_

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "tests/testing/fault_proxy.h"

namespace ckpt {

// One token bucket: `rate_per_second` tokens (requests) added per second,
// at most `burst` held; it starts full.
struct TokenRate {
  double rate_per_second = 20;
  double burst = 20;
};

struct PrefixThrottleOptions {
  // Per prefix: GET and HEAD requests.
  TokenRate reads;
  // Per prefix: every other method (PUT, POST, DELETE).
  TokenRate writes;
  // Which requests are limited (and counted); empty: all of them.
  std::function<bool(const ProxyRequest&)> applies;
  // The clock, in seconds; empty: std::chrono::steady_clock. For tests.
  std::function<double()> now;
};

class PrefixThrottle {
 public:
  explicit PrefixThrottle(PrefixThrottleOptions options);
  PrefixThrottle(const PrefixThrottle&) = delete;
  PrefixThrottle& operator=(const PrefixThrottle&) = delete;

  // The prefix of a path-style request target ("/bucket/<prefix>/rest?q"):
  // the first path component after the bucket; "" for requests on the
  // bucket itself (listings) or on a key with no '/' in it.
  static std::string PrefixOf(const std::string& target);

  // Takes a token from the request's prefix (its reads' or writes' bucket):
  // kNone (forward it), or, with none left, a 503 SlowDown, counted.
  Fault Check(const ProxyRequest& request);
  // Check as a FaultProxy rule; this object must outlive the proxy.
  std::function<Fault(const ProxyRequest&)> Rule() {
    return [this](const ProxyRequest& r) { return Check(r); };
  }

  // 503s sent so far: in all, and by prefix.
  int Throttled() const;
  std::map<std::string, int> ThrottledByPrefix() const;
  // Limited requests let through so far, by prefix.
  std::map<std::string, int> PassedByPrefix() const;

 private:
  struct Bucket {
    double tokens = 0;
    double at = 0;  // when `tokens` was last brought up to date
    int passed = 0, throttled = 0;
  };
  // By prefix, then reads (false) or writes (true).
  double Now() const;

  const PrefixThrottleOptions options_;
  const std::chrono::steady_clock::time_point start_ =
      std::chrono::steady_clock::now();
  mutable std::mutex mu_;
  std::map<std::pair<std::string, bool>, Bucket> buckets_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_PREFIX_THROTTLE_H_
