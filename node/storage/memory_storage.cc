#include "node/storage/memory_storage.h"

#include <cstring>
#include <map>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "node/storage/paced_storage.h"

namespace ckpt {
namespace {

std::string Trim(std::string p) {
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

class MemoryWritableFile : public WritableFile {
 public:
  MemoryWritableFile(std::shared_ptr<MemoryStore> store, std::string path)
      : store_(std::move(store)), path_(std::move(path)) {}
  absl::Status Append(const void* data, size_t len) override {
    buf_.append(static_cast<const char*>(data), len);
    return absl::OkStatus();
  }
  absl::Status Sync() override { return Publish(); }
  absl::Status Close() override { return Publish(); }

 private:
  absl::Status Publish() {
    store_->Put(path_, buf_);
    return absl::OkStatus();
  }
  std::shared_ptr<MemoryStore> store_;
  std::string path_;
  std::string buf_;
};

class MemoryReadableFile : public ReadableFile {
 public:
  explicit MemoryReadableFile(std::shared_ptr<std::string> data)
      : data_(std::move(data)) {}
  uint64_t Size() const override { return data_->size(); }
  absl::StatusOr<size_t> Read(uint64_t offset, void* buf, size_t len) override {
    if (offset >= data_->size()) return 0;
    size_t n = std::min<size_t>(len, data_->size() - offset);
    std::memcpy(buf, data_->data() + offset, n);
    return n;
  }
  absl::Status Close() override { return absl::OkStatus(); }

 private:
  std::shared_ptr<std::string> data_;
};

}  // namespace

std::unique_ptr<Storage> MemoryStorage::Make(
    std::shared_ptr<MemoryStore> store) {
  return std::make_unique<MemoryStorage>(std::move(store));
}

void MemoryStore::SetRate(double bytes_per_second) {
  std::lock_guard<std::mutex> lock(mu_);
  pacer_ = bytes_per_second > 0 ? std::make_shared<Pacer>(bytes_per_second)
                                : nullptr;
}

std::shared_ptr<Pacer> MemoryStore::pacer() const {
  std::lock_guard<std::mutex> lock(mu_);
  return pacer_;
}

void MemoryStore::SetWrapper(Wrapper wrap) {
  std::lock_guard<std::mutex> lock(mu_);
  wrapper_ = std::move(wrap);
}

MemoryStore::Wrapper MemoryStore::wrapper() const {
  std::lock_guard<std::mutex> lock(mu_);
  return wrapper_;
}

void MemoryStore::Put(const std::string& path, const std::string& data) {
  std::lock_guard<std::mutex> lock(mu_);
  files_[path] = std::make_shared<std::string>(data);
}

void MemoryStore::Clear() {
  MemoryStore& s = *this;
  std::lock_guard<std::mutex> lock(s.mu_);
  s.files_.clear();
  s.dirs_.clear();
  s.synced_dirs_.clear();
}

std::vector<std::string> MemoryStore::SyncedDirs() const {
  const MemoryStore& s = *this;
  std::lock_guard<std::mutex> lock(s.mu_);
  return s.synced_dirs_;
}

bool MemoryStore::FlipByte(const std::string& path, uint64_t offset) {
  MemoryStore& s = *this;
  std::lock_guard<std::mutex> lock(s.mu_);
  auto it = s.files_.find(path);
  if (it == s.files_.end() || offset >= it->second->size()) return false;
  auto copy = std::make_shared<std::string>(*it->second);
  (*copy)[offset] = static_cast<char>((*copy)[offset] ^ 0x01);
  it->second = copy;
  return true;
}

void MemoryStore::MovePrefix(const std::string& from, const std::string& to,
                             bool keep) {
  MemoryStore& s = *this;
  std::lock_guard<std::mutex> lock(s.mu_);
  std::map<std::string, std::shared_ptr<std::string>> files;
  std::set<std::string> dirs;
  for (auto& [k, v] : s.files_) {
    if (k.rfind(from, 0) != 0) {
      files.emplace(k, v);
      continue;
    }
    files[to + k.substr(from.size())] = v;
    if (keep) files.emplace(k, v);
  }
  for (const auto& d : s.dirs_) {
    if (d.rfind(from, 0) != 0) {
      dirs.insert(d);
      continue;
    }
    dirs.insert(to + d.substr(from.size()));
    if (keep) dirs.insert(d);
  }
  s.files_ = std::move(files);
  s.dirs_ = std::move(dirs);
}

std::vector<std::string> MemoryStore::AllPaths() const {
  const MemoryStore& s = *this;
  std::lock_guard<std::mutex> lock(s.mu_);
  std::vector<std::string> out;
  for (const auto& [k, v] : s.files_) out.push_back(k);
  return out;
}

absl::StatusOr<std::unique_ptr<WritableFile>> MemoryStorage::OpenWrite(
    const std::string& path, const WriteOptions&) {
  return std::unique_ptr<WritableFile>(new MemoryWritableFile(store_, path));
}

absl::StatusOr<std::unique_ptr<ReadableFile>> MemoryStorage::OpenRead(
    const std::string& path, const ReadOptions&) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  auto it = s.files_.find(path);
  if (it == s.files_.end()) {
    return absl::NotFoundError(absl::StrCat("open ", path, ": no such file"));
  }
  return std::unique_ptr<ReadableFile>(new MemoryReadableFile(it->second));
}

absl::Status MemoryStorage::CreateDirs(const std::string& path) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  s.dirs_.insert(Trim(path));
  return absl::OkStatus();
}

absl::Status MemoryStorage::SyncDir(const std::string& path) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  s.synced_dirs_.push_back(Trim(path));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<ListedObject>> MemoryStorage::ListTree(
    const std::string& dir, const ListingBounds& bounds) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  const std::string key = Trim(dir);
  std::vector<ListedObject> all;
  const std::string prefix = key.empty() ? "" : key + "/";
  for (const auto& [k, v] : s.files_) {
    if (k.rfind(prefix, 0) == 0) all.push_back({k, v->size(), ""});
  }
  return TreeUnder(std::move(all), key, dir, bounds.max_entries);
}

absl::StatusOr<std::vector<std::string>> MemoryStorage::ListDir(
    const std::string& path) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  std::string prefix = Trim(path) + "/";
  std::set<std::string> names;
  bool found = s.dirs_.count(Trim(path)) > 0;
  auto take = [&](const std::string& p) {
    if (p.rfind(prefix, 0) != 0) return;
    found = true;
    std::string rest = p.substr(prefix.size());
    names.insert(rest.substr(0, rest.find('/')));
  };
  for (const auto& [k, v] : s.files_) take(k);
  for (const auto& d : s.dirs_) take(d);
  if (!found) {
    return absl::NotFoundError(
        absl::StrCat("list ", path, ": no such directory"));
  }
  return std::vector<std::string>(names.begin(), names.end());
}

absl::StatusOr<bool> MemoryStorage::Exists(const std::string& path) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  return s.files_.count(path) > 0 || s.dirs_.count(Trim(path)) > 0;
}

absl::Status MemoryStorage::RemoveFiles(const std::string& dir,
                                        const std::vector<std::string>& names) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  std::string base = Trim(dir);
  for (const auto& n : names) s.files_.erase(base + "/" + n);
  std::string prefix = base + "/";
  for (const auto& [path, data] : s.files_) {
    if (path.rfind(prefix, 0) == 0) return absl::OkStatus();
  }
  for (const auto& d : s.dirs_) {
    if (d.rfind(prefix, 0) == 0) return absl::OkStatus();
  }
  s.dirs_.erase(base);
  return absl::OkStatus();
}

absl::Status MemoryStorage::RemoveTree(const std::string& path) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  std::string base = Trim(path);
  std::string prefix = base + "/";
  for (auto it = s.files_.begin(); it != s.files_.end();) {
    if (it->first == base || it->first.rfind(prefix, 0) == 0) {
      it = s.files_.erase(it);
    } else {
      ++it;
    }
  }
  for (auto it = s.dirs_.begin(); it != s.dirs_.end();) {
    if (*it == base || it->rfind(prefix, 0) == 0) {
      it = s.dirs_.erase(it);
    } else {
      ++it;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> MemoryStorage::ClaimDir(const std::string& dir,
                                                    const std::string& owner) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  const std::string base = Trim(dir), prefix = base + "/";
  bool taken = s.dirs_.count(base) > 0;
  for (const auto& [path, data] : s.files_) taken |= path.rfind(prefix, 0) == 0;
  if (taken) {
    return absl::AlreadyExistsError(
        absl::StrCat(base, " exists (another run's step)"));
  }
  s.dirs_.insert(base);
  s.files_[prefix + kClaimName] = std::make_shared<std::string>(owner);
  return std::string(kClaimName);
}

absl::Status MemoryStorage::WriteAtomic(const std::string& path,
                                        const std::string& data) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  s.files_[path] = std::make_shared<std::string>(data);
  return absl::OkStatus();
}

absl::StatusOr<std::string> MemoryStorage::ReadSmall(const std::string& path) {
  MemoryStore& s = *store_;
  std::lock_guard<std::mutex> lock(s.mu_);
  auto it = s.files_.find(path);
  if (it == s.files_.end()) {
    return absl::NotFoundError(absl::StrCat("open ", path, ": no such file"));
  }
  return *it->second;
}

absl::StatusOr<CacheReport> MemoryStorage::PrepareColdRead(
    const std::vector<std::string>&, CacheMode, DirectFallback) {
  CacheReport r;
  r.method = CacheMethod::kNone;
  r.note = "memory storage has no page cache";
  return r;
}

FilesystemInfo MemoryStorage::Filesystem(const std::string&) {
  return {"memory", "", ""};
}

}  // namespace ckpt
