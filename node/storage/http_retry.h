// How the object-store clients send a request: on a pooled client, again
// after a throttle or a failure worth another attempt (full-jitter
// back-off), counted inside that loop (requests, retries, throttles, local
// shortages, time slept) in the pool's counters and the thread's IoTally;
// and how a failed answer is described in an error.
#ifndef CKPTBENCH_NODE_STORAGE_HTTP_RETRY_H_
#define CKPTBENCH_NODE_STORAGE_HTTP_RETRY_H_

#include <functional>
#include <string>

#include "node/storage/http_client.h"

namespace ckpt {

// Transport failures another attempt cannot mend: the certificate does not
// verify, the CA bundle cannot be read, the URL is wrong.
bool PermanentTransportError(int curl_code);
// Why a response failed, for errors: "connection error: <curl> (<where>)",
// "transfer stalled: ...", a local shortage ("this process is out of file
// descriptors: socket(): ... (EMFILE; ...); no request reached <where>")
// or "HTTP <status>" followed by `server_detail`.
std::string FailureDetail(const HttpResponse& rep, const std::string& where,
                          const std::string& server_detail);
// How an object-store client judges one answer.
enum class Verdict {
  kDone,       // the answer it wanted
  kRetry,      // worth another attempt
  kThrottled,  // worth another attempt, and counted as a throttle
  kFail,       // final
};
struct RetriedResponse {
  HttpResponse rep;  // the last answer
  bool ok = false;   // judged kDone
  int attempts = 0;
};
// Sends make()'s request (built again for every attempt, e.g. re-signed)
// on a pooled client until `judge` says done or fail or `max_attempts`
// are made, counting requests, retries and throttles (in the pool's
// counters and the thread's IoTally), sleeping
// SleepBeforeRetry between attempts. A request kept from going out by a
// local shortage (local_errno) is tried again twice within ~0.3 s (other
// threads may give descriptors back), counted in local_errors and not
// judged: the last answer has local_errno set, and the pool's idle
// clients are closed.
RetriedResponse SendWithRetries(
    HttpClientPool& pool, int max_attempts,
    const std::function<HttpRequest()>& make,
    const std::function<Verdict(const HttpResponse&)>& judge);
// " (after N attempts)" when N > 1, for error messages.
std::string AfterAttempts(int attempts);

// Counts one retry in `counters` and in the thread's current tally.
void CountRetry(ObjectStoreCounters& counters);

// Sleeps before attempt `attempt` + 1: full jitter over an exponential cap
// (0.2 s x 2^attempt, at most 20 s), so N nodes hitting one bucket do not
// retry in lockstep. The time slept goes into `counters` (may be null).
void SleepBeforeRetry(int attempt, ObjectStoreCounters* counters);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_HTTP_RETRY_H_
