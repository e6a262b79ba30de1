#include "node/storage/http_client.h"

#include <curl/curl.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/files.h"

namespace ckpt {
namespace {

using SteadyClock = std::chrono::steady_clock;

// Each HttpClient holds one reference of libcurl's global state
// (curl_global_init / curl_global_cleanup count their calls), so nothing
// of it is this file's. Both are thread-safe from libcurl 7.84.0 on where
// curl_version_info has CURL_VERSION_THREADSAFE (Debian 12: 7.88.1).
static_assert(LIBCURL_VERSION_NUM >= 0x075400,
              "libcurl 7.84.0 or later: thread-safe curl_global_init");

struct Transfer {
  const HttpRequest* req;
  HttpResponse* rep;
  CURL* curl;
  size_t sent = 0;
  long status = 0;       // of the response being received
  int socket_errno = 0;  // socket() failed with this
  // Stall detection: bytes moved either way, and when they last changed.
  double stall_seconds = 0;
  curl_off_t moved = -1;
  SteadyClock::time_point last_move = SteadyClock::now();
  bool stalled = false;
  bool too_large = false;  // the body passed the request's ceiling
};

// libcurl's socket(), so that its errno is kept: libcurl itself reports a
// socket() that fails with EMFILE as "Couldn't connect to server".
curl_socket_t OpenSocket(void* user, curlsocktype, curl_sockaddr* a) {
  auto* t = static_cast<Transfer*>(user);
  const int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
  if (fd < 0) {
    t->socket_errno = errno;
    return CURL_SOCKET_BAD;
  }
  return fd;
}

// Ends a transfer when no byte has moved either way for stall_seconds
// since its connection was ready (or since its last byte). libcurl's own
// low-speed check averages over its last 5 seconds, so a transfer that stopped
// after moving bytes ran on for stall_seconds plus up to ~6 s.
int Progress(void* user, curl_off_t, curl_off_t dlnow, curl_off_t,
             curl_off_t ulnow) {
  auto* t = static_cast<Transfer*>(user);
  const auto now = SteadyClock::now();
  // Set once the connection (new, or kept alive: then CONNECT_TIME is 0)
  // is ready for the request.
  curl_off_t ready_us = 0;
  curl_easy_getinfo(t->curl, CURLINFO_PRETRANSFER_TIME_T, &ready_us);
  if (ready_us == 0 || dlnow + ulnow != t->moved) {
    // While connecting, connect_seconds is the limit, not this one.
    t->moved = dlnow + ulnow;
    t->last_move = now;
    return 0;
  }
  if (std::chrono::duration<double>(now - t->last_move).count() >=
      t->stall_seconds) {
    t->stalled = true;
    return 1;  // abort: CURLE_ABORTED_BY_CALLBACK
  }
  return 0;
}

size_t WriteBody(char* ptr, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  if (t->req->sink != nullptr && (t->status < 200 || t->status >= 300)) {
    // An error body: not the caller's bytes; its start is what says why.
    const size_t room = t->rep->body.size() < kMaxErrorBody
                            ? kMaxErrorBody - t->rep->body.size()
                            : 0;
    t->rep->body.append(ptr, std::min(len, room));
    return len;
  }
  if (t->req->sink != nullptr) {
    if (t->rep->received + len > t->req->sink_capacity)
      return 0;  // overflow: fail
    std::memcpy(static_cast<char*>(t->req->sink) + t->rep->received, ptr, len);
  } else {
    if (t->rep->body.size() + len > t->req->max_body) {
      t->too_large = true;
      return 0;  // CURLE_WRITE_ERROR, said as what it is below
    }
    t->rep->body.append(ptr, len);
  }
  t->rep->received += len;
  return len;
}

// Copies the next bytes of head, body, tail (in that order) into buf.
size_t ReadBody(char* buf, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const HttpRequest& r = *t->req;
  const std::string_view pieces[] = {
      r.body_head,
      std::string_view(static_cast<const char*>(r.body), r.body_len),
      r.body_tail};
  size_t room = size * n, out = 0, skip = t->sent;
  for (std::string_view p : pieces) {
    if (skip >= p.size()) {
      skip -= p.size();
      continue;
    }
    size_t len = std::min(room - out, p.size() - skip);
    std::memcpy(buf + out, p.data() + skip, len);
    out += len;
    skip = 0;
    if (out == room) break;
  }
  t->sent += out;
  return out;
}

size_t Header(char* ptr, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t len = size * n;
  std::string line(ptr, len);
  size_t colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = absl::AsciiStrToLower(line.substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    // A header sent twice (x-goog-hash: crc32c=..., x-goog-hash: md5=...)
    // keeps both values, comma-joined as HTTP allows.
    auto [it, inserted] = t->rep->headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  } else if (line.rfind("HTTP/", 0) == 0) {
    t->rep->headers.clear();  // a new response (after 100-continue)
    const size_t sp = line.find(' ');
    t->status = sp == std::string::npos ? 0 : std::atol(line.c_str() + sp + 1);
  }
  return len;
}

}  // namespace

std::string_view MethodName(HttpMethod m) {
  switch (m) {
    case HttpMethod::kGet:
      return "GET";
    case HttpMethod::kHead:
      return "HEAD";
    case HttpMethod::kPut:
      return "PUT";
    case HttpMethod::kPost:
      return "POST";
    case HttpMethod::kDelete:
      return "DELETE";
  }
  return "GET";
}

HttpClient::HttpClient(HttpOptions options, ObjectStoreCounters* counters)
    : options_(std::move(options)), counters_(counters) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  curl_ = curl_easy_init();
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
  curl_global_cleanup();
}

namespace {

// The transfer's settings that do not depend on the request: timeouts,
// TLS, buffers and the callbacks on `t`.
void SetTransfer(CURL* c, const HttpOptions& options, Transfer* t) {
  curl_easy_setopt(c, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options.connect_seconds * 1000));
  // The stall timeout is Progress's; libcurl's low-speed check stays as a
  // backstop (it fires later) and wakes the transfer once a second.
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(c, CURLOPT_LOW_SPEED_TIME,
                   std::max(1L, static_cast<long>(options.stall_seconds)));
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, Progress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, t);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETFUNCTION, OpenSocket);
  curl_easy_setopt(c, CURLOPT_OPENSOCKETDATA, t);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, options.verify_tls ? 1L : 0L);
  curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, options.verify_tls ? 2L : 0L);
  if (!options.ca_bundle.empty()) {
    curl_easy_setopt(c, CURLOPT_CAINFO, options.ca_bundle.c_str());
  }
  // Larger transfer buffers than libcurl's 16 KiB download / 64 KiB
  // upload defaults: a fourth of the callbacks and socket calls per byte
  // (objects here are MiB to GiB).
  curl_easy_setopt(c, CURLOPT_BUFFERSIZE, 256L << 10);
  curl_easy_setopt(c, CURLOPT_UPLOAD_BUFFERSIZE, 256L << 10);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, Header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, t);
}

// The request's method, body and headers; the header list the caller
// frees once the transfer is done.
curl_slist* SetRequest(CURL* c, const HttpRequest& req, Transfer* t) {
  const bool sends_body =
      req.method == HttpMethod::kPut || req.method == HttpMethod::kPost;
  if (req.method == HttpMethod::kHead) {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (sends_body) {
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(c, CURLOPT_READDATA, t);
    curl_easy_setopt(
        c, CURLOPT_INFILESIZE_LARGE,
        static_cast<curl_off_t>(req.body_head.size() + req.body_len +
                                req.body_tail.size()));
  }
  // An upload is a PUT to libcurl: any other method is named.
  if (req.method == HttpMethod::kPost || req.method == HttpMethod::kDelete) {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST,
                     std::string(MethodName(req.method)).c_str());
  }
  curl_slist* headers = nullptr;
  for (const auto& [k, v] : req.headers) {
    headers = curl_slist_append(headers, absl::StrCat(k, ": ", v).c_str());
  }
  headers =
      curl_slist_append(headers, "Expect:");  // no 100-continue round trip
  if (sends_body) {
    headers = curl_slist_append(headers, "Transfer-Encoding:");
  }
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
  return headers;
}

// A failed transfer's cause: libcurl's, a stall, or this machine's
// shortage (descriptors, memory) when a socket could not be made.
void NoteFailure(CURL* c, CURLcode rc, const char* errbuf, const Transfer& t,
                 double stall_seconds, HttpResponse* rep) {
  rep->curl_error = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  rep->stalled = rc == CURLE_OPERATION_TIMEDOUT;
  if (t.too_large) {
    rep->body.clear();
    rep->body.shrink_to_fit();
    rep->curl_code = CURLE_FILESIZE_EXCEEDED;
    rep->curl_error = absl::StrFormat(
        "the response body passed %llu bytes, the most read into memory for "
        "this request (a hostile or broken server, or a listing page larger "
        "than dataset.list_max_page_bytes)",
        static_cast<unsigned long long>(t.req->max_body));
    return;
  }
  if (t.stalled && rc == CURLE_ABORTED_BY_CALLBACK) {
    rep->stalled = true;
    rep->curl_code = CURLE_OPERATION_TIMEDOUT;
    rep->curl_error =
        absl::StrFormat("no byte sent or received for %g s", stall_seconds);
  }
  long os_errno = 0;
  if (t.socket_errno != 0) {
    rep->local_errno = t.socket_errno;
    rep->local_call = "socket()";
  } else if (curl_easy_getinfo(c, CURLINFO_OS_ERRNO, &os_errno) == CURLE_OK &&
             (os_errno == EMFILE || os_errno == ENFILE || os_errno == ENOMEM ||
              os_errno == ENOBUFS)) {
    rep->local_errno = static_cast<int>(os_errno);
    rep->local_call = "connect()";
  }
}

}  // namespace

HttpResponse HttpClient::Do(const HttpRequest& req) {
  CURL* c = static_cast<CURL*>(curl_);
  HttpResponse rep;
  Transfer t{&req, &rep, c};
  t.stall_seconds = options_.stall_seconds;
  curl_easy_reset(c);  // keeps the connection cache
  curl_easy_setopt(c, CURLOPT_URL, req.url.c_str());
  SetTransfer(c, options_, &t);
  curl_slist* headers = SetRequest(c, req, &t);
  char errbuf[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
  CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(headers);
  rep.curl_code = rc;
  if (rc != CURLE_OK)
    NoteFailure(c, rc, errbuf, t, options_.stall_seconds, &rep);
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &rep.status);
  if (rc != CURLE_OK) rep.status = 0;
  long connects = 0;
  if (curl_easy_getinfo(c, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK &&
      connects > 0 && counters_ != nullptr) {
    counters_->new_connections += static_cast<uint64_t>(connects);
    curl_off_t tls_us = 0, tcp_us = 0;
    curl_easy_getinfo(c, CURLINFO_APPCONNECT_TIME_T, &tls_us);
    curl_easy_getinfo(c, CURLINFO_CONNECT_TIME_T, &tcp_us);
    const curl_off_t us = std::max(tls_us, tcp_us);
    if (us > 0) counters_->connect_ns += static_cast<uint64_t>(us) * 1000;
  }
  return rep;
}

HttpResponse FetchOnce(
    HttpMethod method, const std::string& url,
    const std::vector<std::pair<std::string, std::string>>& headers,
    const std::string& body) {
  HttpOptions o;
  o.connect_seconds = 2;
  o.stall_seconds = 5;
  HttpClient c(o);
  HttpRequest r;
  r.method = method;
  r.url = url;
  r.headers = headers;
  r.body = body.data();
  r.body_len = body.size();
  return c.Do(r);
}

HttpClientPool::HttpClientPool(HttpOptions options,
                               std::shared_ptr<ObjectStoreCounters> counters)
    : options_(std::move(options)),
      counters_(counters ? std::move(counters)
                         : std::make_shared<ObjectStoreCounters>()) {}

std::unique_ptr<HttpClient> HttpClientPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  return std::make_unique<HttpClient>(options_, counters_.get());
}

void HttpClientPool::Release(std::unique_ptr<HttpClient> c) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(c));
}

void HttpClientPool::DropIdle() {
  std::vector<std::unique_ptr<HttpClient>> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    drop.swap(idle_);
  }
}

}  // namespace ckpt
