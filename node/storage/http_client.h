// A libcurl easy handle kept for reuse (connection keep-alive, HTTP/1.1,
// TCP keep-alive), with a transfer-stall timeout instead of one total
// timeout, TLS verification on by default. One request at a time: not
// thread-safe; use one HttpClient per worker thread.
#ifndef CKPTBENCH_NODE_STORAGE_HTTP_CLIENT_H_
#define CKPTBENCH_NODE_STORAGE_HTTP_CLIENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ckpt {

struct HttpOptions {
  bool verify_tls = true;
  std::string ca_bundle;      // "" = system default
  double stall_seconds = 30;  // abort when < 1 byte/s for this long
  double connect_seconds = 10;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  const void* body = nullptr;
  size_t body_len = 0;
  // Where the response body goes: a caller buffer (ranged reads straight
  // into the block) or, when null, HttpResponse::body.
  void* sink = nullptr;
  size_t sink_capacity = 0;
};

struct HttpResponse {
  long status = 0;                             // 0: no HTTP response
  std::map<std::string, std::string> headers;  // lowercase names
  std::string body;                            // when no sink was given
  size_t received = 0;                         // body bytes received
  int curl_code = 0;                           // CURLE_OK = 0
  std::string curl_error;                      // transport failure, if any
  bool stalled = false;                        // the stall timeout fired
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  HttpResponse Do(const HttpRequest& req);

 private:
  HttpOptions options_;
  void* curl_;  // CURL*
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_HTTP_CLIENT_H_
