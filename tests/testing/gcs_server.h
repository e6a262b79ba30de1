// A GCS JSON API server on loopback, in memory, for tests (GCS has no
// emulator that installs here). It speaks what ckptbench's gs backend and
// Google's own Node client use: media, multipart and resumable uploads
// (308 with Range, status queries, cancel), object metadata, alt=media
// downloads with Range and x-goog-hash, listing with prefix / delimiter /
// pages, delete, compose, bucket get/create; JSON API errors. CRC32C and
// MD5 sent with an upload are checked as GCS checks them. Faults: answer
// a status (429, 503, 408), reset the connection after part of a body
// (a resumable chunk keeps its whole 256 KiB units, as GCS does), forget
// a resumable session, cut a reply halfway. HTTP/1.1 with keep-alive, a thread
// per connection. Thread-safe.
#ifndef CKPTBENCH_TESTS_TESTING_GCS_SERVER_H_
#define CKPTBENCH_TESTS_TESTING_GCS_SERVER_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace ckpt {

struct GcsServerFault {
  // Applies to requests whose "METHOD target" contains this ("" = any).
  std::string match;
  int status = 0;  // answer this status with a JSON API error
  // Read at most this many body bytes, then reset the connection.
  size_t reset_after = SIZE_MAX;
  bool drop_session = false;  // forget the session named; answer 410
  int count = 1;              // requests it hits
  // Answer, but reset the connection halfway through the reply's body.
  bool cut_reply = false;
  // Answer without these headers (names as the routes spell them), as a
  // hostile or broken server might.
  std::vector<std::string> drop_headers = {};
};

struct GcsServerRequest {
  std::string method, target, content_range, range;
  size_t body_size = 0;
};

class GcsTestServer {
 public:
  explicit GcsTestServer(std::vector<std::string> buckets = {"bucket"});
  ~GcsTestServer();
  GcsTestServer(const GcsTestServer&) = delete;
  GcsTestServer& operator=(const GcsTestServer&) = delete;

  int port() const { return port_; }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(port_);
  }

  void AddFault(GcsServerFault fault);
  int faults_injected() const { return faults_injected_; }
  // Flips one stored byte, leaving the object's crc32c and md5 as they
  // were: what bit rot or a bad read path looks like to a client.
  bool CorruptObject(const std::string& bucket, const std::string& name,
                     size_t offset);
  std::optional<std::string> ObjectBytes(const std::string& bucket,
                                         const std::string& name);
  std::vector<std::string> ObjectNames(const std::string& bucket);
  size_t open_sessions();
  std::vector<GcsServerRequest> requests();

  // One parsed request (internal, shared with the routes).
  struct Request {
    std::string method, path, head, body, host;
    std::map<std::string, std::string> query;  // decoded
  };
  struct Reply {
    int status = 200;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
  };

 private:
  struct Object {
    std::string data;
    int64_t generation = 0;
    std::string content_type = "application/octet-stream";
    std::string crc32c, md5;  // base64; md5 empty for composites
    int component_count = 0;  // 0: not composed
    std::map<std::string, std::string> metadata;
  };
  struct Session {
    std::string bucket, name, content_type, want_crc32c, want_md5;
    std::map<std::string, std::string> metadata;
    std::string data;  // committed bytes
  };

  void AcceptLoop();
  void Serve(int fd);
  std::optional<GcsServerFault> TakeFault(const std::string& line);

  // Routes (gcs_server_routes.cc); called with mu_ held.
  Reply Route(const Request& r);
  Reply Upload(const Request& r, const std::string& bucket);
  Reply ResumableChunk(const Request& r, const std::string& id);
  Reply GetObject(const Request& r, const std::string& bucket,
                  const std::string& name, bool media);
  Reply List(const Request& r, const std::string& bucket);
  Reply Compose(const Request& r, const std::string& bucket,
                const std::string& name);
  Reply Store(const std::string& bucket, const std::string& name,
              std::string data, const std::string& content_type,
              const std::string& want_crc32c, const std::string& want_md5,
              const std::map<std::string, std::string>& metadata,
              const Request& r);
  std::string ObjectJson(const std::string& bucket, const std::string& name,
                         const Object& o, const std::string& host) const;
  // Keeps the whole 256 KiB units of a chunk cut short by a reset.
  void CommitPartial(const Request& r, size_t received);

  std::vector<std::string> bucket_names_;
  std::map<std::string, std::map<std::string, Object>> buckets_;
  std::map<std::string, Session> sessions_;
  // A finished session's answer, given again to a later PUT to it: GCS
  // answers a completed upload's status query with 200 or 201 and the
  // object's metadata, so a client whose last chunk's reply was lost
  // learns that its object is whole.
  std::map<std::string, Reply> finished_;
  int64_t next_generation_ = 1700000000000000;
  std::vector<GcsServerFault> faults_;
  std::atomic<int> faults_injected_{0};
  std::vector<GcsServerRequest> requests_;
  std::mutex mu_;

  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread accept_thread_;
  std::mutex conns_mu_;
  std::vector<int> conn_fds_;
  std::vector<std::thread> conn_threads_;
};

// Helpers shared by the server's files.
GcsTestServer::Reply GcsError(int status, const std::string& reason,
                              const std::string& message);
std::string Md5Base64(const std::string& data);
// %XX decoded; with plus_is_space, '+' too (query strings).
std::string PercentDecode(const std::string& s, bool plus_is_space);

}  // namespace ckpt

#endif  // CKPTBENCH_TESTS_TESTING_GCS_SERVER_H_
