// A libcurl easy handle kept for reuse (connection keep-alive, HTTP/1.1,
// TCP keep-alive), with a transfer-stall timeout instead of one total
// timeout, TLS verification on by default. One request at a time: not
// thread-safe; use one HttpClient per worker thread.
#ifndef CKPTBENCH_NODE_STORAGE_HTTP_CLIENT_H_
#define CKPTBENCH_NODE_STORAGE_HTTP_CLIENT_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "node/storage/io_tally.h"

namespace ckpt {

struct HttpOptions {
  bool verify_tls = true;
  std::string ca_bundle;  // "" = system default
  // Abort when no byte has gone either way for this long once connected
  // (a transfer that stops mid-body ends this long after its last byte).
  double stall_seconds = 30;
  double connect_seconds = 10;
};

// The methods the object-store clients send.
enum class HttpMethod { kGet, kHead, kPut, kPost, kDelete };
// "GET", "HEAD", ...: the request line's and SigV4's spelling.
std::string_view MethodName(HttpMethod m);

// The most bytes of a response body read into memory (HttpResponse::body)
// unless the request sets its own ceiling: a listing page is ~1 MiB, an
// error or a token a few KiB. A body past its ceiling ends the transfer
// (CURLE_FILESIZE_EXCEEDED, not retried) instead of growing without end.
inline constexpr uint64_t kMaxResponseBody = 16ull << 20;
// The most bytes of an error body kept when the body was to go to a sink.
inline constexpr uint64_t kMaxErrorBody = 64ull << 10;

struct HttpRequest {
  HttpMethod method = HttpMethod::kGet;
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  const void* body = nullptr;
  size_t body_len = 0;
  // Sent before and after `body` (a multipart envelope), so the body
  // itself is never copied.
  std::string_view body_head, body_tail;
  // Where the response body goes: a caller buffer (ranged reads straight
  // into the block) or, when null, HttpResponse::body.
  void* sink = nullptr;
  size_t sink_capacity = 0;
  // Without a sink: the most bytes of body read into HttpResponse::body.
  uint64_t max_body = kMaxResponseBody;
};

struct HttpResponse {
  long status = 0;                             // 0: no HTTP response
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;                            // when no sink was given
  size_t received = 0;                         // body bytes received
  int curl_code = 0;                           // CURLE_OK = 0
  std::string curl_error;                      // transport failure, if any
  bool stalled = false;                        // the stall timeout fired
  // A local failure that kept the request from going out (socket():
  // EMFILE, ENFILE, ENOMEM, ENOBUFS, EACCES...): its errno, and the call
  // ("socket()"). Not the server's doing; 0 when none.
  int local_errno = 0;
  std::string local_call;
};

// Object-store requests made, retried and throttled (429, S3 SlowDown) by
// the backends of one StorageSet (storage_factory.h: a node's run), counted
// inside the retry loop; phase results carry the deltas. The thread's
// current IoTally (io_tally.h) counts the same per file.
struct ObjectStoreCounters {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> retries{0};
  std::atomic<uint64_t> throttles{0};
  // TCP (and TLS) connections libcurl had to open (CURLINFO_NUM_CONNECTS):
  // 0 for a request on a kept-alive one.
  std::atomic<uint64_t> new_connections{0};
  // Nanoseconds those took to open: name lookup, TCP and TLS, to the
  // connection ready (CURLINFO_APPCONNECT_TIME_T, or CONNECT_TIME_T
  // without TLS).
  std::atomic<uint64_t> connect_ns{0};
  // Nanoseconds slept before retries (SleepBeforeRetry), all threads.
  std::atomic<uint64_t> backoff_ns{0};
  // Requests that never went out for a local shortage (local_errno): not
  // requests, retries or throttles of the server.
  std::atomic<uint64_t> local_errors{0};
};

class HttpClient {
 public:
  // `counters` (may be null) counts the connections the client opens.
  explicit HttpClient(HttpOptions options,
                      ObjectStoreCounters* counters = nullptr);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse Do(const HttpRequest& req);

 private:
  HttpOptions options_;
  ObjectStoreCounters* counters_;
  void* curl_;  // CURL*
};

// One request on a fresh client with short timeouts (2 s to connect, 5 s
// of stall): credential endpoints, metadata servers. Not an object-store
// request: no counters count it.
HttpResponse FetchOnce(
    HttpMethod method, const std::string& url,
    const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body = "");

// Idle clients kept for reuse, so connections stay open between calls,
// and the counters their requests go into (a new set when none is given).
// Thread-safe.
class HttpClientPool {
 public:
  explicit HttpClientPool(
      HttpOptions options,
      std::shared_ptr<ObjectStoreCounters> counters = nullptr);
  ObjectStoreCounters& counters() const { return *counters_; }
  std::unique_ptr<HttpClient> Acquire();
  void Release(std::unique_ptr<HttpClient> c);
  // Closes the idle clients (their connections and descriptors): after a
  // local shortage, so the process holds no more than it uses.
  void DropIdle();

 private:
  HttpOptions options_;
  std::shared_ptr<ObjectStoreCounters> counters_;
  std::mutex mu_;
  std::vector<std::unique_ptr<HttpClient>> idle_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_HTTP_CLIENT_H_
