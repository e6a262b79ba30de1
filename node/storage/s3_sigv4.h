// AWS Signature Version 4 for S3 requests (header-based), written here
// because libcurl's built-in signer mishandles query strings. Pure
// functions; thread-safe. Verified against AWS's published S3 examples.
#ifndef CKPTBENCH_NODE_STORAGE_S3_SIGV4_H_
#define CKPTBENCH_NODE_STORAGE_S3_SIGV4_H_

#include <string>
#include <utility>
#include <vector>

#include "node/storage/http_text.h"  // HeaderList, UriEncode

namespace ckpt {

struct AwsCredentials {
  std::string access_key;
  std::string secret_key;     // secret: never log
  std::string session_token;  // secret: never log
  int64_t expires_unix = 0;   // 0 = does not expire
  std::string source;         // "environment", "profile default", ...
};

struct SigV4Request {
  std::string method;        // "GET", "PUT", ...
  std::string host;          // "bucket.s3.amazonaws.com" or "127.0.0.1:8080"
  std::string path;          // raw (unencoded) path, "/bucket/key"
  HeaderList query;          // raw names and values; value "" for ?uploads
  HeaderList headers;        // extra headers to sign and send (range, ...)
  std::string payload_hash;  // hex SHA-256 of the body or UNSIGNED-PAYLOAD
};

struct SigV4Signed {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;
  HeaderList headers;  // every header to send, Authorization included
  std::string query;   // encoded, sorted query string (without '?')
  std::string path;    // encoded path
};

inline constexpr char kUnsignedPayload[] = "UNSIGNED-PAYLOAD";
inline constexpr char kEmptySha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// amz_date: "YYYYMMDDTHHMMSSZ".
SigV4Signed SignV4(const SigV4Request& req, const AwsCredentials& creds,
                   const std::string& region, const std::string& amz_date,
                   const std::string& service = "s3");

std::string Sha256Hex(const void* data, size_t len);
std::string AmzDateNow();

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_SIGV4_H_
