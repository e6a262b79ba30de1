// Storage on Google Cloud Storage through its JSON API: paths are
// gs://bucket/name... Objects below gcs.single_threshold go up in one
// multipart request carrying their CRC32C; larger ones in a resumable
// session sent in gcs.chunk_size chunks (a failed chunk resumes from the
// offset the server says it committed), or with gcs.upload=composite as
// parts uploaded in parallel and then composed. Every upload's stored
// CRC32C and size are compared with what was sent; Sync() is the
// durability point. Reads are ranged alt=media GETs pinned to the
// object's generation, read ahead in parallel; a sequential read of a
// whole object is checked against its CRC32C (x-goog-hash). Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_GCS_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_GCS_STORAGE_H_

#include <algorithm>
#include <memory>

#include "node/storage/gcs_client.h"
#include "node/storage/storage.h"

namespace ckpt {

// Parsers of the JSON API's answers (a server's answer is input: wrong
// types are errors or ignored, never exceptions). `what` names the object
// or listing in errors.
struct GcsObjectInfo {
  uint64_t size = 0;
  std::string crc32c;  // base64, as the JSON API gives it
  std::string generation;
};
absl::StatusOr<GcsObjectInfo> ParseGcsObjectInfo(const std::string& body,
                                                 const std::string& what);
// One page of objects.list: item names and prefixes into *names; with
// `objects`, the items go there instead, each with its size (an item
// without a decimal size is DataLoss).
absl::Status ParseGcsListPage(const std::string& body, const std::string& what,
                              std::vector<std::string>* names,
                              std::string* next_page_token,
                              std::vector<ListedObject>* objects = nullptr);

class GcsStorage : public Storage {
 public:
  // Requests count into `counters` (a set of its own when null).
  static absl::StatusOr<std::unique_ptr<Storage>> Make(
      GcsConfig config, std::shared_ptr<ObjectStoreCounters> counters);
  // Credentials default to a chain of its own, from the environment
  // (gcs_credentials.h), held as long as the backend.
  explicit GcsStorage(GcsConfig config,
                      std::shared_ptr<GcsCredentials> credentials = nullptr,
                      std::shared_ptr<ObjectStoreCounters> counters = nullptr);
  const ObjectStoreCounters& counters() const { return client_->counters(); }

  StorageKind Kind() const override { return StorageKind::kGcs; }
  absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) override;
  absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) override;
  absl::Status CreateDirs(const std::string&) override {
    return absl::OkStatus();
  }
  absl::Status SyncDir(const std::string&) override { return absl::OkStatus(); }
  absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) override;
  absl::StatusOr<bool> Exists(const std::string& path) override;
  absl::StatusOr<std::vector<ListedObject>> ListTree(
      const std::string& dir, const ListingBounds& bounds) override;
  absl::Status RemoveTree(const std::string& path) override;
  absl::Status RemoveFiles(const std::string& dir,
                           const std::vector<std::string>& names) override;
  absl::StatusOr<std::string> ClaimDir(const std::string& dir,
                                       const std::string& owner) override;
  absl::StatusOr<int> AbortUploads(
      const std::string& dir, const std::vector<std::string>& names) override;
  absl::Status WriteAtomic(const std::string& path,
                           const std::string& data) override;
  absl::StatusOr<std::string> ReadSmall(const std::string& path) override;
  absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, CacheMode mode,
      DirectFallback direct) override;
  FilesystemInfo Filesystem(const std::string& path) override;
  BufferUse BufferPerFile(bool save) const override {
    const GcsConfig& c = client_->config();
    // gcs_upload.cc: the buffer up to the threshold (grown by doubling:
    // twice that with the smaller ones it grew from), then composite parts
    // in flight and one more copied out while it waits for a slot.
    if (save) {
      return {2 * std::max(c.single_threshold, c.chunk_size) +
                  (c.parts_in_flight + 1) * c.chunk_size,
              "2 x max(gcs.single_threshold, gcs.chunk_size) + "
              "gcs.chunk_size x (gcs.parts_in_flight + 1)"};
    }
    return {c.ranges_in_flight * c.range_size,
            "gcs.range_size x gcs.ranges_in_flight"};
  }
  size_t TrimBuffers() override { return client_->buffers().Trim(); }

  // Object names under dir/ (recursive), for cleanup and tests.
  absl::StatusOr<std::vector<std::string>> ListNames(const GcsObject& dir);

 private:
  // One page-walking listing (listing_pager.h's bounds): names (and with
  // a delimiter, prefixes), or objects with their sizes when `objects` is
  // given; max_results > 0 asks one page of at most that many.
  absl::Status List(const GcsObject& dir, bool shallow,
                    std::vector<std::string>* names, int max_results = 0,
                    std::vector<ListedObject>* objects = nullptr,
                    const ListingBounds& bounds = ListingBounds{});

  std::shared_ptr<GcsClient> client_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_GCS_STORAGE_H_
