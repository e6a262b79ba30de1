// GCS JSON API requests: URL building against the endpoint (or a resumable
// session URI), the bearer token, retries with full-jitter backoff on 408,
// 429, 5xx, resets and stalls (counted); other errors fail at once with
// GCS's status, reason and message. Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_GCS_CLIENT_H_
#define CKPTBENCH_NODE_STORAGE_GCS_CLIENT_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "nlohmann/json.hpp"
#include "node/storage/buffer_pool.h"
#include "node/storage/gcs_credentials.h"
#include "node/storage/http_client.h"
#include "node/storage/http_text.h"

namespace ckpt {

struct GcsObject {
  std::string bucket;
  std::string name;  // no leading '/'
};
absl::StatusOr<GcsObject> ParseGsUri(const std::string& uri);
std::string GsUri(const GcsObject& o);

struct GcsCall {
  HttpMethod method = HttpMethod::kGet;
  // Path under the endpoint, already encoded ("/storage/v1/b/B/o/N"), or
  // an absolute URL (a resumable session).
  std::string path;
  HeaderList query;  // values are encoded here
  HeaderList headers;
  const void* body = nullptr;
  size_t body_len = 0;
  std::string_view body_head, body_tail;  // around body (HttpRequest)
  void* sink = nullptr;                   // response body into this buffer
  size_t sink_capacity = 0;
  uint64_t max_body = kMaxResponseBody;  // without a sink (HttpRequest)
  bool retry = true;          // false: one attempt, the caller recovers
  std::vector<long> also_ok;  // statuses besides 2xx that are answers (308)
};

class GcsClient {
 public:
  // Requests count into `counters` (a set of the client's own when null).
  GcsClient(GcsConfig config, std::shared_ptr<GcsCredentials> credentials,
            std::shared_ptr<ObjectStoreCounters> counters = nullptr);

  // The answer, or the error after retries. NotFound for 404 and 410.
  absl::StatusOr<HttpResponse> Do(const GcsCall& call);
  // Checks credentials (fetching a token): the error before any round.
  absl::StatusOr<GcsToken> Token() { return credentials_->Get(); }

  const GcsConfig& config() const { return config_; }
  ObjectStoreCounters& counters() const { return pool_.counters(); }
  // Transfer buffers reused across this client's objects.
  BufferPool& buffers() { return buffers_; }
  std::string Endpoint() const { return endpoint_; }
  // "/storage/v1/b/<bucket>/o/<name>" with the name encoded, '/' too.
  static std::string ObjectPath(const GcsObject& o);
  static std::string UploadPath(const std::string& bucket);

 private:
  GcsConfig config_;
  std::shared_ptr<GcsCredentials> credentials_;
  std::string endpoint_;
  HttpClientPool pool_;
  BufferPool buffers_;
};

// DELETE of one object; one already gone is fine.
absl::Status DeleteObject(GcsClient& client, const GcsObject& obj);

// "<status> <reason>: <message>" from a JSON API error body ("" if none).
std::string GcsErrorDetail(const std::string& body);

// A string field of a JSON object, or "" when `j` is not an object or the
// field is absent or not a string: a server's JSON is input, and
// json::value throws on a type mismatch.
std::string JsonString(const nlohmann::json& j, const char* key);
// Whether a response is worth another attempt: transport failures (not
// certificate or URL ones), 408, 429 and 5xx.
bool GcsRetryable(const HttpResponse& rep);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_GCS_CLIENT_H_
