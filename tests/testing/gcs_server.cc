// The GCS test server's transport: connections, request parsing (bodies by
// Content-Length or chunked), faults and replies. The API is in
// gcs_server_routes.cc.
#include "tests/testing/gcs_server.h"

#include <netinet/in.h>
#include <openssl/evp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/text.h"
#include "tests/testing/http_wire.h"

namespace ckpt {
namespace {

int FromHex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool ReadLine(int fd, std::string& buf, std::string* line) {
  char tmp[4096];
  while (true) {
    size_t end = buf.find("\r\n");
    if (end != std::string::npos) {
      *line = buf.substr(0, end);
      buf.erase(0, end + 2);
      return true;
    }
    ssize_t r = recv(fd, tmp, sizeof(tmp), 0);
    if (r <= 0) return false;
    buf.append(tmp, static_cast<size_t>(r));
  }
}

// A chunked body, at most `limit` bytes of it (then false: cut short).
bool ReadChunked(int fd, std::string& buf, std::string* body, size_t limit) {
  while (true) {
    std::string line;
    if (!ReadLine(fd, buf, &line)) return false;
    size_t n = std::stoul(line.substr(0, line.find(';')), nullptr, 16);
    if (n == 0) {
      while (ReadLine(fd, buf, &line) && !line.empty()) {
      }
      return true;
    }
    std::string piece;
    if (body->size() + n > limit) {
      size_t take = limit - body->size();
      if (ReadExact(fd, buf, take, &piece)) body->append(piece);
      return false;
    }
    if (!ReadExact(fd, buf, n, &piece)) return false;
    body->append(piece);
    if (!ReadLine(fd, buf, &line)) return false;
  }
}

const char* ReasonPhrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 204:
      return "No Content";
    case 206:
      return "Partial Content";
    case 308:
      return "Resume Incomplete";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 408:
      return "Request Timeout";
    case 410:
      return "Gone";
    case 412:
      return "Precondition Failed";
    case 416:
      return "Requested Range Not Satisfiable";
    case 429:
      return "Too Many Requests";
    case 499:
      return "Client Closed Request";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

void ResetConnection(int fd) {
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
  close(fd);
}

}  // namespace

std::string PercentDecode(const std::string& s, bool plus_is_space) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && FromHex(s[i + 1]) >= 0 &&
        FromHex(s[i + 2]) >= 0) {
      out += static_cast<char>(FromHex(s[i + 1]) * 16 + FromHex(s[i + 2]));
      i += 2;
    } else if (plus_is_space && s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

GcsTestServer::Reply GcsError(int status, const std::string& reason,
                              const std::string& message) {
  std::string esc;
  for (char c : message) {
    if (c == '"' || c == '\\') esc += '\\';
    esc += c;
  }
  GcsTestServer::Reply r;
  r.status = status;
  r.body = "{\"error\":{\"code\":" + std::to_string(status) +
           ",\"message\":\"" + esc + "\",\"errors\":[{\"message\":\"" + esc +
           "\",\"domain\":\"global\",\"reason\":\"" + reason + "\"}]}}";
  r.headers.push_back({"Content-Type", "application/json; charset=UTF-8"});
  return r;
}

std::string Md5Base64(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int n = 0;
  EVP_Digest(data.data(), data.size(), md, &n, EVP_md5(), nullptr);
  return Base64Encode(std::string_view(reinterpret_cast<char*>(md), n));
}

GcsTestServer::GcsTestServer(std::vector<std::string> buckets)
    : bucket_names_(std::move(buckets)) {
  for (const auto& b : bucket_names_) buckets_[b];
  listen_fd_ = ListenLoopback(&port_);
  accept_thread_ = std::thread([this] { AcceptLoop(); });
}

GcsTestServer::~GcsTestServer() {
  stop_ = true;
  accept_thread_.join();
  close(listen_fd_);
  {
    std::lock_guard<std::mutex> lock(conns_mu_);
    for (int fd : conn_fds_) shutdown(fd, SHUT_RDWR);
  }
  for (auto& t : conn_threads_) t.join();
}

void GcsTestServer::AddFault(GcsServerFault fault) {
  std::lock_guard<std::mutex> lock(mu_);
  faults_.push_back(std::move(fault));
}

std::optional<GcsServerFault> GcsTestServer::TakeFault(
    const std::string& line) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (it->count <= 0 || line.find(it->match) == std::string::npos) continue;
    GcsServerFault f = *it;
    if (--it->count == 0) faults_.erase(it);
    ++faults_injected_;
    return f;
  }
  return std::nullopt;
}

bool GcsTestServer::CorruptObject(const std::string& bucket,
                                  const std::string& name, size_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& objects = buckets_[bucket];
  auto it = objects.find(name);
  if (it == objects.end() || offset >= it->second.data.size()) return false;
  it->second.data[offset] ^= 0x01;
  return true;
}

std::optional<std::string> GcsTestServer::ObjectBytes(const std::string& bucket,
                                                      const std::string& name) {
  std::lock_guard<std::mutex> lock(mu_);
  auto& objects = buckets_[bucket];
  auto it = objects.find(name);
  if (it == objects.end()) return std::nullopt;
  return it->second.data;
}

std::vector<std::string> GcsTestServer::ObjectNames(const std::string& bucket) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [n, o] : buckets_[bucket]) names.push_back(n);
  return names;
}

size_t GcsTestServer::open_sessions() {
  std::lock_guard<std::mutex> lock(mu_);
  return sessions_.size();
}

std::vector<GcsServerRequest> GcsTestServer::requests() {
  std::lock_guard<std::mutex> lock(mu_);
  return requests_;
}

void GcsTestServer::AcceptLoop() {
  while (!stop_) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (poll(&p, 1, 100) <= 0) continue;
    int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) continue;
    std::lock_guard<std::mutex> lock(conns_mu_);
    conn_fds_.push_back(fd);
    conn_threads_.emplace_back([this, fd] { Serve(fd); });
  }
}

void GcsTestServer::Serve(int fd) {
  std::string buf;
  while (!stop_) {
    std::string head;
    if (!ReadHead(fd, buf, &head)) break;
    Request r;
    std::string line = head.substr(0, head.find("\r\n"));
    size_t sp1 = line.find(' '), sp2 = line.rfind(' ');
    r.method = line.substr(0, sp1);
    std::string target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    r.path = target.substr(0, target.find('?'));
    if (target.find('?') != std::string::npos) {
      std::string qs = target.substr(target.find('?') + 1);
      size_t at = 0;
      while (at <= qs.size()) {
        size_t amp = qs.find('&', at);
        if (amp == std::string::npos) amp = qs.size();
        std::string kv = qs.substr(at, amp - at);
        size_t eq = kv.find('=');
        if (!kv.empty()) {
          r.query[PercentDecode(kv.substr(0, eq), true)] =
              eq == std::string::npos ? ""
                                      : PercentDecode(kv.substr(eq + 1), true);
        }
        at = amp + 1;
      }
    }
    r.head = head;
    r.host = HeaderValue(head, "host");
    const std::string request_line = r.method + " " + target;
    std::optional<GcsServerFault> fault = TakeFault(request_line);
    const size_t limit = fault ? fault->reset_after : SIZE_MAX;
    bool whole = true;
    if (HeaderValue(head, "transfer-encoding").find("chunked") !=
        std::string::npos) {
      whole = ReadChunked(fd, buf, &r.body, limit);
    } else if (std::string cl = HeaderValue(head, "content-length");
               !cl.empty()) {
      size_t n = std::stoul(cl);
      if (!ReadExact(fd, buf, std::min(n, limit), &r.body)) break;
    }
    // A reset fault never answers, whatever part of the body came.
    if (limit != SIZE_MAX) whole = false;
    GcsServerRequest rec{r.method, target, HeaderValue(head, "content-range"),
                         HeaderValue(head, "range"), r.body.size()};
    if (!whole) {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(rec);
      CommitPartial(r, r.body.size());
      buf.clear();
      {
        std::lock_guard<std::mutex> conns(conns_mu_);
        for (auto& c : conn_fds_)
          if (c == fd) c = -1;
      }
      ResetConnection(fd);
      return;
    }
    Reply rep;
    {
      std::lock_guard<std::mutex> lock(mu_);
      requests_.push_back(rec);
      if (fault && fault->status != 0) {
        rep = GcsError(
            fault->status,
            fault->status == 429 ? "rateLimitExceeded" : "backendError",
            "injected by the test server");
      } else if (fault && fault->drop_session) {
        sessions_.erase(r.query["upload_id"]);
        rep = GcsError(410, "gone", "the upload session is gone");
      } else {
        rep = Route(r);
      }
      if (fault) {
        for (const auto& name : fault->drop_headers) {
          std::erase_if(rep.headers,
                        [&](const auto& h) { return h.first == name; });
        }
      }
    }
    std::string out = "HTTP/1.1 " + std::to_string(rep.status) + " " +
                      ReasonPhrase(rep.status) + "\r\n";
    for (const auto& [k, v] : rep.headers) out += k + ": " + v + "\r\n";
    out += "Content-Length: " + std::to_string(rep.body.size()) + "\r\n\r\n";
    if (r.method != "HEAD") out += rep.body;
    if (fault && fault->cut_reply) {
      SendAll(fd, out.data(), out.size() - rep.body.size() / 2);
      std::lock_guard<std::mutex> conns(conns_mu_);
      for (auto& c : conn_fds_)
        if (c == fd) c = -1;
      ResetConnection(fd);
      return;
    }
    if (!SendAll(fd, out.data(), out.size())) break;
    if (HeaderValue(head, "connection") == "close") break;
  }
  {
    std::lock_guard<std::mutex> conns(conns_mu_);
    for (auto& c : conn_fds_)
      if (c == fd) c = -1;
  }
  close(fd);
}

}  // namespace ckpt
