// The Storage interface every backend implements (posix for boot disks and
// FUSE mounts, s3, gs, memory and null for tests), chosen by URI
// scheme in storage_factory.h only. Paths are full locations in the
// backend's namespace (a filesystem path for posix).
// Thread-safety: a Storage may be used from many threads at once; a
// WritableFile / ReadableFile belongs to one thread.
#ifndef CKPTBENCH_NODE_STORAGE_STORAGE_H_
#define CKPTBENCH_NODE_STORAGE_STORAGE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common/kinds.h"
#include "common/step_layout.h"
#include "common/storage_facts.h"
#include "node/storage/listing_pager.h"

namespace ckpt {

struct WriteOptions {
  bool direct = false;  // O_DIRECT: buffers and lengths 4 KiB aligned
};

struct ReadOptions {
  bool direct = false;
  // File systems: no read-ahead past what is read (POSIX_FADV_RANDOM), for
  // a reader of a few bytes that must not fill the page cache (a model's
  // headers read before a cold load's eviction, while another replica on
  // the host evicts).
  bool no_readahead = false;
  // [begin, end) byte extents the reader will read (sorted, disjoint);
  // empty: the whole file. A reader that reads ahead stays inside them.
  std::vector<std::pair<uint64_t, uint64_t>> extents;
  // File systems: the directory the file must resolve beneath (symbolic
  // links are followed only inside it); "" = the file's own directory.
  std::string beneath;
  // The file's size, when the caller already knows it (a load: the
  // checkpoint's .metadata). Object stores then send no HEAD (or metadata
  // GET) first: the reader has that size, and every ranged answer's total
  // (Content-Range) must be it, else the read fails naming both sizes.
  // File systems ignore it (their size costs nothing).
  std::optional<uint64_t> size;
  // What gave `size`, for the error when the object's is another: "the
  // checkpoint's .metadata", "the dataset's listing", ...
  std::string size_from = "the size the reader was given";
};

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  // Appends len bytes. With direct I/O, data and len must be 4 KiB aligned
  // except for the last call.
  virtual absl::Status Append(const void* data, size_t len) = 0;
  // Optional zero-copy path: where the next `len` bytes may be generated
  // so that Append(that pointer, len) takes them without a copy (the
  // backend's own part buffer); nullptr when the backend has none or they
  // would not fit. Valid until the next call on the file.
  virtual unsigned char* BorrowBuffer(size_t /*len*/) { return nullptr; }
  // Makes everything appended durable (fsync or the backend's equivalent).
  virtual absl::Status Sync() = 0;
  virtual absl::Status Close() = 0;
};

// An object found by Storage::ListTree: its name relative to the listed
// directory ('/' between components) and its size.
struct ListedObject {
  std::string name;
  uint64_t size = 0;
  // What changes when the object is rewritten, as the backend has it (S3:
  // the ETag; GCS: the generation; file systems: mtime and inode): a
  // dataset's index is kept only while every version is the same.
  std::string version;
};
// A listing's bound against a hostile server: a name (or version) longer
// than this is refused (listing_pager.h bounds the rest).
inline constexpr size_t kMaxListedName = 4096;

class ReadableFile {
 public:
  virtual ~ReadableFile() = default;
  virtual uint64_t Size() const = 0;
  // Reads up to len bytes at offset; returns the count, 0 at end of file.
  virtual absl::StatusOr<size_t> Read(uint64_t offset, void* buf,
                                      size_t len) = 0;
  virtual absl::Status Close() = 0;
  // Whether Read may be called from several threads at once (pread).
  // Object-store readers keep their own ranges in flight instead.
  virtual bool ConcurrentReads() const { return false; }
  // Bytes of [offset, offset + length) in the host's page cache now
  // (mincore), so a read about to be made can say what the cache served;
  // nullopt where no page cache is in the way (object stores) or it cannot
  // be told.
  virtual std::optional<uint64_t> CachedBytes(uint64_t /*offset*/,
                                              uint64_t /*length*/) {
    return std::nullopt;
  }
};

class Storage {
 public:
  virtual ~Storage() = default;
  virtual StorageKind Kind() const = 0;

  // Creates or truncates a file for writing.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> OpenWrite(
      const std::string& path, const WriteOptions& options) = 0;
  // NotFound if the file does not exist.
  virtual absl::StatusOr<std::unique_ptr<ReadableFile>> OpenRead(
      const std::string& path, const ReadOptions& options) = 0;

  virtual absl::Status CreateDirs(const std::string& path) = 0;
  // Makes the directory's entries durable.
  virtual absl::Status SyncDir(const std::string& path) = 0;
  // Entry names in a directory; NotFound if it does not exist.
  virtual absl::StatusOr<std::vector<std::string>> ListDir(
      const std::string& path) = 0;
  virtual absl::StatusOr<bool> Exists(const std::string& path) = 0;
  // Every object under `dir` at any depth with its size (a dataset
  // ckptbench did not make): object stores list the prefix "dir/" (no
  // delimiter, the sizes from the listing itself); file systems walk it
  // without following links, listing regular files only: a link, device,
  // FIFO or socket is FailedPrecondition naming it. Each name passes
  // CheckRelativeName. Past one of `bounds` (bounds.max_entries objects;
  // pages, names' and answers' bytes on object stores) is
  // ResourceExhausted naming it; a server that pages wrong is DataLoss; the
  // abort flag stops it (Aborted) between pages or directories; nothing
  // under `dir` is NotFound. Any order (the caller sorts).
  virtual absl::StatusOr<std::vector<ListedObject>> ListTree(
      const std::string& dir, const ListingBounds& bounds) {
    (void)bounds;
    return absl::UnimplementedError(
        absl::StrCat("listing ", dir, ": this backend lists no datasets"));
  }
  // Removes a directory and everything under it; OK if missing.
  virtual absl::Status RemoveTree(const std::string& path) = 0;
  // Removes the named entries of `dir` (missing ones are fine), then `dir`
  // itself if that left it empty. Entries not named are never touched.
  virtual absl::Status RemoveFiles(const std::string& dir,
                                   const std::vector<std::string>& names) = 0;

  // Claims the directory `dir` (a step) for `owner` (a run id) only if
  // nothing is there yet, atomically: two runs racing for one step never
  // both win. Returns the name of the claim entry it wrote in `dir` (it
  // holds `owner`; cleanup removes it); AlreadyExists when something is
  // there (another run's claim, or older files). File systems create `dir`
  // with an exclusive mkdir; object stores write the claim with a
  // conditional request (or, where the store has none, see s3_storage.h).
  virtual absl::StatusOr<std::string> ClaimDir(const std::string& dir,
                                               const std::string& owner) = 0;

  // Aborts the unfinished uploads (S3 multipart) of the named entries of
  // `dir`, e.g. those a node killed mid-save left; returns how many. Only
  // uploads of exactly these names are touched. Backends whose writes leave
  // nothing unfinished behind return 0.
  virtual absl::StatusOr<int> AbortUploads(
      const std::string& /*dir*/, const std::vector<std::string>& /*names*/) {
    return 0;
  }

  // Writes a small file so that it appears whole or not at all, durably.
  virtual absl::Status WriteAtomic(const std::string& path,
                                   const std::string& data) = 0;
  virtual absl::StatusOr<std::string> ReadSmall(const std::string& path) = 0;

  // Before a load: keeps the next reads of `paths` from being served by the
  // page cache per `mode` (io.cache_mode) and reports the method used and
  // what stayed resident. `direct` says whether the caller's reads can use
  // O_DIRECT where eviction cannot clear the cache; where they cannot, the
  // report says what stayed resident rather than promise O_DIRECT.
  virtual absl::StatusOr<CacheReport> PrepareColdRead(
      const std::vector<std::string>& paths, CacheMode mode,
      DirectFallback direct) = 0;

  virtual FilesystemInfo Filesystem(const std::string& path) = 0;

  // Bytes free to this process's writes on the file system holding `path`
  // (or its nearest existing parent), where the figure is real: a local
  // file system. nullopt where it is not (a FUSE mount's statfs answers
  // made-up figures; object stores have no such figure).
  virtual std::optional<uint64_t> FreeBytes(const std::string& /*path*/) {
    return std::nullopt;
  }

  // Memory the backend holds per open file beyond the caller's block
  // buffer, at most (part buffers of uploads in flight, read-ahead of
  // ranged reads; never more than the file itself), and the keys that set
  // it: for the estimate a node makes before a round.
  struct BufferUse {
    uint64_t bytes = 0;
    std::string keys;  // "s3.part_size x s3.parts_in_flight", ...
  };
  virtual BufferUse BufferPerFile(bool /*save*/) const { return {}; }
  // Frees the transfer buffers kept for reuse across files (object
  // stores: buffer_pool.h); the node calls it after each phase. How many.
  virtual size_t TrimBuffers() { return 0; }
};

// The claim entry ClaimDir writes (kClaimName, or kClaimName + "-" + owner
// on object stores without conditional writes).
inline constexpr char kClaimName[] = ".ckptbench-claim";

// `len` bytes at `offset` of `file` (read from `path`) into `buf`, however
// many reads that takes; DataLoss naming it and where it ended when it ends
// early.
absl::Status ReadFully(ReadableFile& file, uint64_t offset, void* buf,
                       size_t len, const std::string& path);

// All of `file` (its Size() bytes) from `path`; DataLoss naming it when it
// ends early.
absl::StatusOr<std::string> ReadWhole(ReadableFile& file,
                                      const std::string& path);
// `path` whole when it is at most `max_bytes` (a small file ckptbench did
// not write, such as another run's claim); FailedPrecondition naming it
// and the bound otherwise, without reading it.
absl::StatusOr<std::string> ReadAtMost(Storage& storage,
                                       const std::string& path,
                                       uint64_t max_bytes);

// An object store's listing of "key/" (full object names) as ListTree
// gives it: the names below `key` ("" = the bucket's root), each checked
// with CheckRelativeName; the error names `shown` (the listed URI).
// Objects ending in '/' (a console's folder markers) are left out; a key
// outside "key/" (a server that lists what it was not asked) is DataLoss.
absl::StatusOr<std::vector<ListedObject>> TreeUnder(
    std::vector<ListedObject> all, const std::string& key,
    const std::string& shown, uint64_t max_objects);
absl::Status TooManyListed(const std::string& shown, uint64_t max_objects);

// The entries of `dir` (Storage::ListDir on any backend) that may be used
// as names in it: CheckEntryName (no '/', not "." or "..", no control
// characters; on an object store a key such as "dir/../x" lists as "..").
// What it drops, it logs.
absl::StatusOr<std::vector<std::string>> ListEntries(Storage& storage,
                                                     const std::string& dir);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_STORAGE_H_
