// Storage on S3 or an S3-compatible store: paths are s3://bucket/key...
// Writes buffer one part: below the multipart threshold a single PUT,
// above it a multipart upload (ETags opaque; s3.checksum asks the server to
// check the bytes) which is aborted on any failure; uploads a killed
// process left are aborted by name (AbortUploads) or by prefix
// (ListUploads, `ckptbench uploads`). Sync() completes the upload (the
// durability point). Reads are ranged GETs straight into the caller's
// buffer. Steps are claimed with If-None-Match or, where the store has no
// conditional PUT, a claim object and a listing (ClaimDir). Thread-safe.
#ifndef CKPTBENCH_NODE_STORAGE_S3_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_S3_STORAGE_H_

#include <algorithm>
#include <memory>

#include "node/storage/s3_client.h"
#include "node/storage/storage.h"

namespace ckpt {

struct S3Upload {
  std::string key;
  std::string upload_id;
  std::string initiated;  // as the server gives it (ISO 8601)
};

class S3Storage : public Storage {
 public:
  // Requests count into `counters` (a set of its own when null).
  // Credentials come from a chain of its own (s3_credentials.h), held as
  // long as the backend; with s3.keys_secret set, keys that are not there
  // fail the open at once, naming the Secret.
  static absl::StatusOr<std::unique_ptr<Storage>> Make(
      S3Config config, std::shared_ptr<ObjectStoreCounters> counters);
  const ObjectStoreCounters& counters() const { return client_->counters(); }

  StorageKind Kind() const override { return StorageKind::kS3; }
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
    const S3Config& c = client_->config();
    if (save) {  // s3_upload.cc: the first buffer, then one per part
      return {std::max(c.multipart_threshold, c.part_size) +
                  c.parts_in_flight * c.part_size,
              "max(s3.multipart_threshold, s3.part_size) + s3.part_size x "
              "s3.parts_in_flight"};
    }
    return {c.ranges_in_flight * c.range_size,
            "s3.range_size x s3.ranges_in_flight"};
  }
  size_t TrimBuffers() override { return client_->buffers().Trim(); }

  // Unfinished multipart uploads of keys starting with `prefix` (all
  // pages), and the abort of one (`ckptbench uploads`, AbortUploads).
  absl::StatusOr<std::vector<S3Upload>> ListUploads(const std::string& bucket,
                                                    const std::string& prefix);
  absl::Status AbortUpload(const std::string& bucket, const S3Upload& upload);

  // Keys under prefix/ (recursive), for cleanup and tests.
  absl::StatusOr<std::vector<std::string>> ListKeys(const S3Location& dir);

  // Where a path's object lives: with s3.spread_prefixes = N, a shard file
  // (__<rank>_<k>.distcp) goes under "<hh>/" where hh = hash(rank) mod N, so
  // ranks spread over N key prefixes; everything else keeps its key.
  absl::StatusOr<S3Location> ObjectFor(const std::string& path) const;
  static std::string SpreadPrefix(uint32_t rank, int n);

 private:
  S3Storage(S3Config config, std::shared_ptr<AwsCredentialChain> credentials,
            std::shared_ptr<ObjectStoreCounters> counters);

  // s3.claim: true if this step was claimed with If-None-Match; false if
  // the store needs the listing method. AlreadyExists if another run won.
  absl::StatusOr<bool> PutClaim(const S3Location& claim,
                                const std::string& owner);

  std::shared_ptr<S3Client> client_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_STORAGE_H_
