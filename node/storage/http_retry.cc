#include "node/storage/http_retry.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "common/files.h"
#include "node/storage/io_tally.h"

namespace ckpt {

bool PermanentTransportError(int curl_code) {
  return curl_code == CURLE_PEER_FAILED_VERIFICATION ||
         curl_code == CURLE_SSL_CACERT_BADFILE ||
         curl_code == CURLE_SSL_CERTPROBLEM ||
         curl_code == CURLE_URL_MALFORMAT ||
         curl_code == CURLE_UNSUPPORTED_PROTOCOL ||
         curl_code == CURLE_FILESIZE_EXCEEDED;  // a body past its ceiling
}

std::string FailureDetail(const HttpResponse& rep, const std::string& where,
                          const std::string& server_detail) {
  if (rep.status == 0 && rep.local_errno != 0) {
    std::string cause = LocalResourceCause(rep.local_call, rep.local_errno);
    if (cause.empty()) {
      cause = absl::StrCat(
          "this process could not open a connection: ", rep.local_call, ": ",
          std::strerror(rep.local_errno));
    }
    return absl::StrCat(cause, "; no request reached ", where);
  }
  if (rep.status == 0 && rep.curl_code == CURLE_FILESIZE_EXCEEDED) {
    return absl::StrCat(rep.curl_error, " (", where, ")");
  }
  if (rep.status == 0) {
    return absl::StrCat(
        rep.stalled ? "transfer stalled: " : "connection error: ",
        rep.curl_error, " (", where, ")");
  }
  return absl::StrCat("HTTP ", rep.status, server_detail.empty() ? "" : " ",
                      server_detail);
}

RetriedResponse SendWithRetries(
    HttpClientPool& pool, int max_attempts,
    const std::function<HttpRequest()>& make,
    const std::function<Verdict(const HttpResponse&)>& judge) {
  ObjectStoreCounters& counters = pool.counters();
  IoTally* tally = CurrentIoTally();
  auto client = pool.Acquire();
  RetriedResponse out;
  for (out.attempts = 1;; ++out.attempts) {
    // A shortage of this process's own (descriptors, memory) is no answer
    // of the server's: a short wait and two more tries, then it fails as
    // what it is, without the server's retries.
    for (int local = 1;; ++local) {
      out.rep = client->Do(make());
      if (out.rep.local_errno == 0) break;
      counters.local_errors++;
      if (local == 3) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100 * local));
    }
    if (out.rep.local_errno != 0) {
      pool.DropIdle();  // give back what idle connections hold
      return out;       // `client` closes with its descriptors
    }
    counters.requests++;
    TallyRequest(tally);
    const Verdict v = judge(out.rep);
    if (v == Verdict::kThrottled) {
      counters.throttles++;
      TallyThrottle(tally);
    }
    out.ok = v == Verdict::kDone;
    if (out.ok || v == Verdict::kFail || out.attempts >= max_attempts) break;
    CountRetry(counters);
    SleepBeforeRetry(out.attempts, &counters);
  }
  pool.Release(std::move(client));
  return out;
}

std::string AfterAttempts(int attempts) {
  return attempts > 1 ? absl::StrCat(" (after ", attempts, " attempts)") : "";
}

void CountRetry(ObjectStoreCounters& counters) {
  counters.retries++;
  TallyRetry(CurrentIoTally());
}

void SleepBeforeRetry(int attempt, ObjectStoreCounters* counters) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  double cap =
      std::min(20.0, 0.2 * static_cast<double>(1u << std::min(attempt, 10)));
  std::uniform_real_distribution<double> jitter(0, cap);
  const double seconds = jitter(rng);
  if (counters != nullptr) {
    counters->backoff_ns += static_cast<uint64_t>(seconds * 1e9);
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

}  // namespace ckpt
