// The GCS test server's JSON API: uploads, resumable sessions, reads,
// listing, delete, compose, buckets. Called with the server's lock held.
#include <algorithm>
#include <random>
#include <set>
#include <utility>

#include "common/checksum.h"
#include "nlohmann/json.hpp"
#include "node/storage/http_text.h"
#include "tests/testing/gcs_server.h"
#include "tests/testing/http_wire.h"

namespace ckpt {
namespace {

constexpr size_t kQuantum = 256 * 1024;

std::vector<std::string> Split(const std::string& path) {
  std::vector<std::string> out;
  size_t at = 1;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string::npos) slash = path.size();
    out.push_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

std::string Encode(const std::string& s) { return UriEncode(s, true); }

GcsTestServer::Reply Json(int status, const std::string& body) {
  GcsTestServer::Reply r;
  r.status = status;
  r.body = body;
  r.headers.push_back({"Content-Type", "application/json; charset=UTF-8"});
  return r;
}

std::string Now() { return "2026-11-22T00:00:00.000Z"; }

// A multipart/related body: JSON metadata, then the data.
bool ParseMultipart(const std::string& content_type, const std::string& body,
                    nlohmann::json* meta, std::string* data,
                    std::string* data_type) {
  size_t b = content_type.find("boundary=");
  if (b == std::string::npos) return false;
  std::string boundary = content_type.substr(b + 9);
  if (boundary.find(';') != std::string::npos)
    boundary = boundary.substr(0, boundary.find(';'));
  if (!boundary.empty() && boundary.front() == '"')
    boundary = boundary.substr(1, boundary.size() - 2);
  const std::string delim = "--" + boundary;
  size_t p1 = body.find(delim);
  if (p1 == std::string::npos) return false;
  size_t h1 = body.find("\r\n\r\n", p1);
  size_t p2 = body.find("\r\n" + delim, h1);
  if (h1 == std::string::npos || p2 == std::string::npos) return false;
  *meta =
      nlohmann::json::parse(body.substr(h1 + 4, p2 - h1 - 4), nullptr, false);
  size_t part2 = p2 + 2 + delim.size();
  size_t h2 = body.find("\r\n\r\n", part2);
  size_t end = body.rfind("\r\n" + delim + "--");
  if (h2 == std::string::npos || end == std::string::npos || end < h2 + 4)
    return false;
  std::string headers = body.substr(part2, h2 - part2);
  std::string ct = HeaderValue(headers + "\r\n", "content-type");
  if (!ct.empty()) *data_type = ct;
  *data = body.substr(h2 + 4, end - h2 - 4);
  return meta->is_object();
}

std::map<std::string, std::string> MetadataOf(const nlohmann::json& meta) {
  std::map<std::string, std::string> out;
  if (meta.is_object() && meta.contains("metadata") &&
      meta["metadata"].is_object()) {
    for (auto& [k, v] : meta["metadata"].items())
      out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  return out;
}

std::string Str(const nlohmann::json& j, const char* k) {
  return j.is_object() && j.contains(k) && j[k].is_string()
             ? j[k].get<std::string>()
             : "";
}

}  // namespace

std::string GcsTestServer::ObjectJson(const std::string& bucket,
                                      const std::string& name, const Object& o,
                                      const std::string& host) const {
  const std::string gen = std::to_string(o.generation);
  nlohmann::json j = {
      {"kind", "storage#object"},
      {"id", bucket + "/" + name + "/" + gen},
      {"selfLink",
       "http://" + host + "/storage/v1/b/" + bucket + "/o/" + Encode(name)},
      {"mediaLink", "http://" + host + "/download/storage/v1/b/" + bucket +
                        "/o/" + Encode(name) + "?generation=" + gen +
                        "&alt=media"},
      {"name", name},
      {"bucket", bucket},
      {"generation", gen},
      {"metageneration", "1"},
      {"contentType", o.content_type},
      {"storageClass", "STANDARD"},
      {"size", std::to_string(o.data.size())},
      {"crc32c", o.crc32c},
      {"etag", "CK" + gen},
      {"timeCreated", Now()},
      {"updated", Now()},
      {"timeStorageClassUpdated", Now()}};
  if (!o.md5.empty()) j["md5Hash"] = o.md5;
  if (o.component_count > 0) j["componentCount"] = o.component_count;
  if (!o.metadata.empty()) j["metadata"] = o.metadata;
  return j.dump();
}

GcsTestServer::Reply GcsTestServer::Store(
    const std::string& bucket, const std::string& name, std::string data,
    const std::string& content_type, const std::string& want_crc32c,
    const std::string& want_md5,
    const std::map<std::string, std::string>& metadata, const Request& r) {
  Object o;
  o.crc32c = Crc32cBase64(data.data(), data.size());
  o.md5 = Md5Base64(data);
  if (!want_crc32c.empty() && want_crc32c != o.crc32c) {
    return GcsError(400, "invalid",
                    "Provided CRC32C \"" + want_crc32c +
                        "\" doesn't match calculated CRC32C \"" + o.crc32c +
                        "\".");
  }
  if (!want_md5.empty() && want_md5 != o.md5) {
    return GcsError(400, "invalid",
                    "Provided MD5 hash \"" + want_md5 +
                        "\" doesn't match calculated MD5 hash \"" + o.md5 +
                        "\".");
  }
  auto& objects = buckets_[bucket];
  auto pre = r.query.find("ifGenerationMatch");
  if (pre != r.query.end()) {
    auto it = objects.find(name);
    int64_t current = it == objects.end() ? 0 : it->second.generation;
    if (std::to_string(current) != pre->second) {
      return GcsError(412, "conditionNotMet",
                      "At least one of the pre-conditions you specified did "
                      "not hold.");
    }
  }
  o.data = std::move(data);
  o.content_type =
      content_type.empty() ? "application/octet-stream" : content_type;
  o.metadata = metadata;
  o.generation = ++next_generation_;
  objects[name] = o;
  return Json(200, ObjectJson(bucket, name, o, r.host));
}

GcsTestServer::Reply GcsTestServer::Upload(const Request& r,
                                           const std::string& bucket) {
  const std::string type = r.query.count("uploadType")
                               ? r.query.at("uploadType")
                               : std::string("media");
  const std::string ct = HeaderValue(r.head, "content-type");
  if (type == "media") {
    auto name = r.query.find("name");
    if (name == r.query.end())
      return GcsError(400, "required", "Required parameter: name");
    return Store(bucket, name->second, r.body, ct, "", "", {}, r);
  }
  if (type == "multipart") {
    nlohmann::json meta;
    std::string data, data_type;
    if (!ParseMultipart(ct, r.body, &meta, &data, &data_type))
      return GcsError(400, "parseError", "Bad multipart body");
    std::string name = Str(meta, "name");
    if (name.empty() && r.query.count("name")) name = r.query.at("name");
    if (name.empty())
      return GcsError(400, "required", "Required parameter: name");
    std::string type_of = Str(meta, "contentType");
    return Store(bucket, name, std::move(data),
                 type_of.empty() ? data_type : type_of, Str(meta, "crc32c"),
                 Str(meta, "md5Hash"), MetadataOf(meta), r);
  }
  if (type == "resumable") {
    nlohmann::json meta = r.body.empty()
                              ? nlohmann::json::object()
                              : nlohmann::json::parse(r.body, nullptr, false);
    Session s;
    s.bucket = bucket;
    s.name = Str(meta, "name");
    if (s.name.empty() && r.query.count("name")) s.name = r.query.at("name");
    if (s.name.empty())
      return GcsError(400, "required", "Required parameter: name");
    s.content_type = Str(meta, "contentType");
    if (s.content_type.empty())
      s.content_type = HeaderValue(r.head, "x-upload-content-type");
    s.want_crc32c = Str(meta, "crc32c");
    s.want_md5 = Str(meta, "md5Hash");
    s.metadata = MetadataOf(meta);
    static std::mt19937_64 rng(std::random_device{}());
    std::string id = "ADPycd" + std::to_string(rng());
    sessions_[id] = s;
    Reply rep = Json(200, "");
    rep.headers.push_back(
        {"Location", "http://" + r.host + "/upload/storage/v1/b/" + bucket +
                         "/o?uploadType=resumable&name=" + Encode(s.name) +
                         "&upload_id=" + id});
    return rep;
  }
  return GcsError(400, "invalidParameter",
                  "Invalid value for uploadType: " + type);
}

void GcsTestServer::CommitPartial(const Request& r, size_t received) {
  auto id = r.query.find("upload_id");
  if (r.method != "PUT" || id == r.query.end()) return;
  auto s = sessions_.find(id->second);
  std::string range = HeaderValue(r.head, "content-range");
  size_t first = 0;
  if (s == sessions_.end() ||
      std::sscanf(range.c_str(), "bytes %zu-", &first) != 1 ||
      first != s->second.data.size())
    return;
  s->second.data.append(r.body, 0, received / kQuantum * kQuantum);
}

GcsTestServer::Reply GcsTestServer::ResumableChunk(const Request& r,
                                                   const std::string& id) {
  auto it = sessions_.find(id);
  if (it == sessions_.end()) {
    auto done = finished_.find(id);
    if (r.method == "PUT" && done != finished_.end()) return done->second;
    return GcsError(404, "notFound", "No such upload session");
  }
  Session& s = it->second;
  if (r.method == "DELETE") {
    sessions_.erase(it);
    return Json(499, "");
  }
  // Content-Range: "bytes a-b/T", "bytes a-b/*", "bytes */T", "bytes */*".
  std::string range = HeaderValue(r.head, "content-range");
  size_t first = 0, last = 0;
  long long total = -1;
  std::string spec = range.substr(range.find(' ') + 1);
  std::string span = spec.substr(0, spec.find('/'));
  std::string tot = spec.substr(spec.find('/') + 1);
  if (tot != "*") total = std::stoll(tot);
  if (span != "*") {
    if (std::sscanf(span.c_str(), "%zu-%zu", &first, &last) != 2 ||
        last + 1 - first != r.body.size())
      return GcsError(400, "invalid",
                      "Content-Range does not match the body: " + range);
    if (first > s.data.size())
      return GcsError(400, "invalid",
                      "Invalid request. There were " +
                          std::to_string(first - s.data.size()) +
                          " byte(s) missing before this chunk.");
    size_t skip = s.data.size() - first;  // re-sent bytes already held
    if (skip < r.body.size()) s.data.append(r.body, skip, std::string::npos);
    // Only whole 256 KiB units of a chunk that is not the last persist.
    if (total < 0 || static_cast<long long>(s.data.size()) < total)
      s.data.resize(s.data.size() / kQuantum * kQuantum);
  }
  if (total >= 0 && static_cast<long long>(s.data.size()) == total) {
    std::string hash = HeaderValue(r.head, "x-goog-hash");
    std::string want_crc = s.want_crc32c;
    if (hash.find("crc32c=") != std::string::npos) {
      want_crc = hash.substr(hash.find("crc32c=") + 7);
      want_crc = want_crc.substr(0, want_crc.find(','));
    }
    // Moved out, not copied: the session holds the whole object's bytes.
    Session done = std::move(s);
    sessions_.erase(it);
    Reply rep =
        Store(done.bucket, done.name, std::move(done.data), done.content_type,
              want_crc, done.want_md5, done.metadata, r);
    if (rep.status == 200 || rep.status == 201) finished_[id] = rep;
    return rep;
  }
  Reply rep = Json(308, "");
  if (!s.data.empty())
    rep.headers.push_back(
        {"Range", "bytes=0-" + std::to_string(s.data.size() - 1)});
  return rep;
}

GcsTestServer::Reply GcsTestServer::GetObject(const Request& r,
                                              const std::string& bucket,
                                              const std::string& name,
                                              bool media) {
  auto& objects = buckets_[bucket];
  auto it = objects.find(name);
  auto gen = r.query.find("generation");
  if (it == objects.end() ||
      (gen != r.query.end() &&
       gen->second != std::to_string(it->second.generation))) {
    return GcsError(404, "notFound", "No such object: " + bucket + "/" + name);
  }
  const Object& o = it->second;
  if (!media) return Json(200, ObjectJson(bucket, name, o, r.host));
  Reply rep;
  rep.headers = {
      {"Content-Type", o.content_type},
      {"x-goog-hash", "crc32c=" + o.crc32c},
      {"x-goog-generation", std::to_string(o.generation)},
      {"x-goog-metageneration", "1"},
      {"x-goog-stored-content-length", std::to_string(o.data.size())},
      {"x-goog-stored-content-encoding", "identity"},
      {"Accept-Ranges", "bytes"}};
  if (!o.md5.empty()) rep.headers.push_back({"x-goog-hash", "md5=" + o.md5});
  std::string range = HeaderValue(r.head, "range");
  if (range.empty()) {
    rep.body = o.data;
    return rep;
  }
  const size_t size = o.data.size();
  size_t a = 0, b = size == 0 ? 0 : size - 1;
  std::string spec = range.substr(range.find('=') + 1);
  if (spec.front() == '-') {
    size_t n = std::stoul(spec.substr(1));
    a = n >= size ? 0 : size - n;
  } else {
    a = std::stoul(spec.substr(0, spec.find('-')));
    std::string end = spec.substr(spec.find('-') + 1);
    if (!end.empty()) b = std::min(size - 1, std::stoul(end));
  }
  if (a >= size) {
    Reply bad = GcsError(416, "requestedRangeNotSatisfiable",
                         "The requested range cannot be satisfied.");
    bad.headers.push_back({"Content-Range", "bytes */" + std::to_string(size)});
    return bad;
  }
  rep.status = 206;
  rep.body = o.data.substr(a, b - a + 1);
  rep.headers.push_back({"Content-Range", "bytes " + std::to_string(a) + "-" +
                                              std::to_string(b) + "/" +
                                              std::to_string(size)});
  return rep;
}

GcsTestServer::Reply GcsTestServer::List(const Request& r,
                                         const std::string& bucket) {
  auto q = [&](const char* k) {
    return r.query.count(k) ? r.query.at(k) : std::string();
  };
  const std::string prefix = q("prefix"), delim = q("delimiter"),
                    token = q("pageToken");
  size_t max = q("maxResults").empty() ? 1000 : std::stoul(q("maxResults"));
  nlohmann::json items = nlohmann::json::array();
  std::set<std::string> prefixes;
  std::string last;
  bool more = false;
  size_t count = 0;
  for (const auto& [name, o] : buckets_[bucket]) {
    if (name.rfind(prefix, 0) != 0 || (!token.empty() && name <= token))
      continue;
    std::string rest = name.substr(prefix.size());
    size_t d = delim.empty() ? std::string::npos : rest.find(delim);
    std::string p =
        d == std::string::npos ? "" : prefix + rest.substr(0, d + delim.size());
    if (!p.empty() && prefixes.count(p)) {
      last = name;
      continue;
    }
    if (count == max) {
      more = true;
      break;
    }
    if (!p.empty()) {
      prefixes.insert(p);
    } else {
      items.push_back(
          nlohmann::json::parse(ObjectJson(bucket, name, o, r.host)));
    }
    ++count;
    last = name;
  }
  nlohmann::json j = {{"kind", "storage#objects"}};
  if (!items.empty()) j["items"] = items;
  if (!prefixes.empty()) j["prefixes"] = prefixes;
  if (more) j["nextPageToken"] = last;
  return Json(200, j.dump());
}

GcsTestServer::Reply GcsTestServer::Compose(const Request& r,
                                            const std::string& bucket,
                                            const std::string& name) {
  nlohmann::json req = nlohmann::json::parse(r.body, nullptr, false);
  if (!req.is_object() || !req.contains("sourceObjects") ||
      !req["sourceObjects"].is_array() || req["sourceObjects"].empty())
    return GcsError(400, "required", "Required field: sourceObjects");
  if (req["sourceObjects"].size() > 32)
    return GcsError(400, "invalid",
                    "The number of source components provided (" +
                        std::to_string(req["sourceObjects"].size()) +
                        ") exceeds the maximum (32)");
  auto& objects = buckets_[bucket];
  std::string data;
  int components = 0;
  for (const auto& src : req["sourceObjects"]) {
    auto it = objects.find(Str(src, "name"));
    if (it == objects.end())
      return GcsError(
          404, "notFound",
          "Object " + Str(src, "name") + " (generation: 0) not found.");
    data += it->second.data;
    components += std::max(1, it->second.component_count);
  }
  std::string ct = req.contains("destination")
                       ? Str(req["destination"], "contentType")
                       : std::string();
  Reply rep = Store(bucket, name, std::move(data), ct, "", "",
                    MetadataOf(req.value("destination", nlohmann::json())), r);
  if (rep.status == 200) {
    Object& o = objects[name];
    o.md5.clear();
    o.component_count = components;
    rep.body = ObjectJson(bucket, name, o, r.host);
  }
  return rep;
}

GcsTestServer::Reply GcsTestServer::Route(const Request& r) {
  std::vector<std::string> seg = Split(r.path);
  bool download = !seg.empty() && seg[0] == "download";
  if (download) seg.erase(seg.begin());
  bool upload = !seg.empty() && seg[0] == "upload";
  if (upload) seg.erase(seg.begin());
  if (seg.size() < 3 || seg[0] != "storage" || seg[1] != "v1" || seg[2] != "b")
    return GcsError(404, "notFound", "Not Found: " + r.path);
  if (seg.size() == 3 && r.method == "POST") {  // create a bucket
    nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
    std::string b = Str(j, "name");
    if (b.empty()) return GcsError(400, "required", "Required: name");
    if (buckets_.count(b))
      return GcsError(409, "conflict",
                      "Your previous request to create the "
                      "named bucket succeeded and you "
                      "already own it.");
    buckets_[b];
    return Json(200, nlohmann::json({{"kind", "storage#bucket"},
                                     {"name", b},
                                     {"id", b},
                                     {"location", "US"},
                                     {"storageClass", "STANDARD"}})
                         .dump());
  }
  if (seg.size() < 4) return GcsError(404, "notFound", "Not Found");
  const std::string bucket = PercentDecode(seg[3], false);
  if (!buckets_.count(bucket))
    return GcsError(404, "notFound", "The specified bucket does not exist.");
  if (seg.size() == 4 && r.method == "GET") {
    return Json(200, nlohmann::json({{"kind", "storage#bucket"},
                                     {"name", bucket},
                                     {"id", bucket},
                                     {"location", "US"},
                                     {"storageClass", "STANDARD"},
                                     {"timeCreated", Now()}})
                         .dump());
  }
  if (seg.size() < 5 || seg[4] != "o")
    return GcsError(404, "notFound", "Not Found: " + r.path);
  if (upload) {
    auto id = r.query.find("upload_id");
    if (id != r.query.end()) return ResumableChunk(r, id->second);
    if (r.method == "POST") return Upload(r, bucket);
    return GcsError(405, "methodNotAllowed", "Method not allowed");
  }
  if (seg.size() == 5) {
    if (r.method == "GET") return List(r, bucket);
    return GcsError(405, "methodNotAllowed", "Method not allowed");
  }
  const std::string name = PercentDecode(seg[5], false);
  if (seg.size() == 7 && seg[6] == "compose" && r.method == "POST")
    return Compose(r, bucket, name);
  if (seg.size() != 6) return GcsError(404, "notFound", "Not Found");
  if (r.method == "GET") {
    auto alt = r.query.find("alt");
    return GetObject(
        r, bucket, name,
        download || (alt != r.query.end() && alt->second == "media"));
  }
  if (r.method == "DELETE") {
    auto& objects = buckets_[bucket];
    if (!objects.erase(name))
      return GcsError(404, "notFound",
                      "No such object: " + bucket + "/" + name);
    return Json(204, "");
  }
  return GcsError(405, "methodNotAllowed", "Method not allowed");
}

}  // namespace ckpt
