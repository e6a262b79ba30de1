// S3 requests: URL building (path-style or virtual-hosted), SigV4 signing,
// retries with full-jitter exponential backoff on 500/502/503/504, SlowDown,
// RequestTimeout, resets and stalls; other 4xx fail at once with S3's error
// code and message. Counts requests, retries and throttles process-wide.
// Thread-safe: one pooled libcurl handle per concurrent call.
#ifndef CKPTBENCH_NODE_STORAGE_S3_CLIENT_H_
#define CKPTBENCH_NODE_STORAGE_S3_CLIENT_H_

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/config.h"
#include "node/storage/buffer_pool.h"
#include "node/storage/http_client.h"
#include "node/storage/s3_credentials.h"
#include "node/storage/s3_sigv4.h"

namespace ckpt {

struct S3Location {
  std::string bucket;
  std::string key;  // no leading '/'
};
absl::StatusOr<S3Location> ParseS3Uri(const std::string& uri);

struct S3Call {
  HttpMethod method = HttpMethod::kGet;
  std::string bucket;
  std::string key;
  HeaderList query;
  HeaderList headers;
  const void* body = nullptr;
  size_t body_len = 0;
  void* sink = nullptr;  // response body into this buffer
  size_t sink_capacity = 0;
  uint64_t max_body = kMaxResponseBody;  // without a sink (HttpRequest)
  bool error_in_200 =
      false;  // CompleteMultipartUpload may answer 200 + <Error>
};

// A call without body or sink; set those fields afterwards as needed.
inline S3Call MakeS3Call(HttpMethod method, std::string bucket, std::string key,
                         HeaderList query = {}, HeaderList headers = {}) {
  S3Call c;
  c.method = method;
  c.bucket = std::move(bucket);
  c.key = std::move(key);
  c.query = std::move(query);
  c.headers = std::move(headers);
  return c;
}

class S3Client {
 public:
  // Requests count into `counters` (a set of the client's own when null).
  S3Client(S3Config config, std::shared_ptr<AwsCredentialChain> credentials,
           std::shared_ptr<ObjectStoreCounters> counters = nullptr);

  // The 2xx response, or the error after retries. NotFound for 404.
  absl::StatusOr<HttpResponse> Do(const S3Call& call);

  const S3Config& config() const { return config_; }
  ObjectStoreCounters& counters() const { return pool_.counters(); }
  // Transfer buffers reused across this client's objects.
  BufferPool& buffers() { return buffers_; }
  std::string Endpoint() const;

 private:
  S3Config config_;
  std::shared_ptr<AwsCredentialChain> credentials_;
  std::string scheme_, host_;  // from the endpoint
  bool path_style_ = true;
  HttpClientPool pool_;
  BufferPool buffers_;
};

// Text of the first <tag>...</tag> in an XML body ("" if none), its
// character references decoded (XmlText): a leaf's value.
std::string XmlValue(const std::string& xml, const std::string& tag,
                     size_t from = 0);
// The raw contents of every <tag>...</tag> (elements to look into).
std::vector<std::string> XmlValues(const std::string& xml,
                                   const std::string& tag);
// The same, decoded: every leaf value (keys, prefixes).
std::vector<std::string> XmlTexts(const std::string& xml,
                                  const std::string& tag);
// XML text with its entity and character references decoded (&amp;, &lt;,
// &gt;, &quot;, &apos;, &#N;, &#xH;): S3 sends a key holding '&' as
// "&amp;" and a carriage return as "&#13;", and the key is what is
// decoded. A reference that is not one of these stays as it is.
std::string XmlText(const std::string& raw);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_CLIENT_H_
