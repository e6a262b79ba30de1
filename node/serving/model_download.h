// serve.read_mode=download: a replica's model copied whole from its storage
// to a local directory before the replica reads it, as an init container
// (`aws s3 cp --recursive`, `gcloud storage cp`, `hf download`) does for a
// pod. The copy goes through StreamRanges (node/serving/range_stream.h):
// `concurrency` reads of at most `chunk_bytes` in flight, each chunk
// written where it belongs with pwrite(2); memory is concurrency x chunk,
// whatever the model's size. Nothing is synced: a downloader does not sync
// either, and the copy is read at once, through the page cache that holds
// it. The directory is the copy's alone: made fresh by mkdtemp(3) (a name
// of its own, mode 0700) inside the user's directory, its files created
// there (never an existing one), and removed with exactly them.
// Thread-compatible.
#ifndef CKPTBENCH_NODE_SERVING_MODEL_DOWNLOAD_H_
#define CKPTBENCH_NODE_SERVING_MODEL_DOWNLOAD_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "node/serving/range_stream.h"
#include "node/storage/storage.h"

namespace ckpt {

// A model's file as the copy sees it: its name in the model's directory
// (one path component) and its size from the listing.
struct DownloadedFile {
  std::string name;
  uint64_t size = 0;
};

class ModelDownload {
 public:
  // The copy goes to `parent`/`prefix`XXXXXX (the user's directory must
  // be there; the six characters make the name the copy's own).
  ModelDownload(std::string parent, std::string prefix);
  ~ModelDownload();  // removes what Copy wrote (Remove, errors dropped)
  ModelDownload(const ModelDownload&) = delete;
  ModelDownload& operator=(const ModelDownload&) = delete;

  // Before the clock: `parent` is a directory with room for `bytes`
  // (FailedPrecondition / ResourceExhausted naming serve.download_path).
  absl::Status Check(uint64_t bytes) const;
  // Makes the directory and copies `files` (under `from` on `storage`)
  // into it, each whole; errors name the file; `abort` stops it between
  // chunks. The tally's chunks are the reads.
  absl::StatusOr<StreamTally> Copy(Storage& storage, const std::string& from,
                                   const std::vector<DownloadedFile>& files,
                                   const StreamOptions& options,
                                   const std::atomic<bool>* abort);
  // Removes the files Copy created and the directory; nothing else.
  absl::Status Remove();
  // The copy's directory ("" before Copy made it).
  const std::string& dir() const { return dir_; }

 private:
  std::string parent_, prefix_, dir_;
  bool made_ = false;
  std::vector<std::string> created_;
};

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_SERVING_MODEL_DOWNLOAD_H_
