// The paging loop of an object-store listing (S3 ListObjectsV2 and
// ListMultipartUploads, GCS objects.list), held against a hostile or
// broken server: a server that gives the same continuation token again, a
// truncated page without one, pages without end, a page (or all pages)
// larger than memory should hold, names without end. Every listing a
// backend makes goes through one ListingPager, which says after each page
// whether another may be asked, and checks the run's abort flag between
// pages (a signal during a listing stops it at the next page). Pure but
// for the flag; not thread-safe (one listing).
#ifndef CKPTBENCH_NODE_STORAGE_LISTING_PAGER_H_
#define CKPTBENCH_NODE_STORAGE_LISTING_PAGER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ckpt {

// A listing's bounds (dataset.list_* for a dataset's listing, these
// defaults for every other). Objects and prefixes both count as entries.
struct ListingBounds {
  uint64_t max_entries = 1ull << 25;      // 32 Mi objects and prefixes
  uint64_t max_pages = 1ull << 20;        // pages asked, in all
  uint64_t max_name_bytes = 2ull << 30;   // names and versions kept, summed
  uint64_t max_page_bytes = 16ull << 20;  // one page's response body
  uint64_t max_bytes = 32ull << 30;       // all pages' bodies, summed
  // What the listing may hold in memory (kListedEntryBytes per entry and
  // its names' bytes); 0: unchecked. A dataset's listing: 80% of what the
  // node has.
  uint64_t memory_bytes = 0;
  // The keys that set these bounds, named in errors ("dataset.list_max_");
  // "": the bounds every other listing has, which no key sets.
  std::string keys = "";
  // Set when the run is stopped (a signal, the coordinator's abort): the
  // listing ends before its next page. May be null.
  const std::atomic<bool>* abort = nullptr;
};

// What one listed entry holds beside its names (a ListedObject).
inline constexpr uint64_t kListedEntryBytes = 96;

// The default bounds with at most `entries` entries.
inline ListingBounds AtMost(uint64_t entries) {
  ListingBounds b;
  b.max_entries = entries;
  return b;
}

// The most consecutive pages that hold no entry but say more follows.
inline constexpr int kMaxEmptyListPages = 16;
// The longest continuation (or page) token a listing takes.
inline constexpr size_t kMaxListToken = 4096;

class ListingPager {
 public:
  // `shown` names the listing in errors (escaped here); `token_name` is
  // the server's name for its token ("NextContinuationToken",
  // "nextPageToken", "NextKeyMarker").
  ListingPager(const ListingBounds& bounds, std::string shown,
               std::string token_name);

  // Before each page is asked: Aborted once the abort flag is set, or
  // ResourceExhausted when max_pages were asked already.
  absl::Status BeforePage();
  // The most bytes the next page's body may have (the HTTP request's
  // ceiling): max_page_bytes, less when fewer are left of max_bytes.
  uint64_t PageCeiling() const;
  // After a page: its body's bytes, the entries it held and their names'
  // (and versions') bytes, whether it says more follows and the token it
  // gave ("" for none). DataLoss for a server that pages wrong (a token
  // given before, a truncated page without a token, a token on a last
  // page, too many empty pages, a token too long); ResourceExhausted for a
  // bound passed. OK: ask the next page when `truncated`.
  absl::Status AfterPage(uint64_t body_bytes, uint64_t entries,
                         uint64_t name_bytes, bool truncated,
                         const std::string& token);

  uint64_t pages() const { return pages_; }
  uint64_t entries() const { return entries_; }
  uint64_t bytes() const { return bytes_; }

 private:
  absl::Status Exceeded(const std::string& what, uint64_t bound,
                        const std::string& key) const;
  // "dataset.list_max_pages (CKPT_LIST_MAX_PAGES)", or "" (no key).
  std::string Key(const char* name, const char* env) const;

  const ListingBounds bounds_;
  const std::string shown_;
  const std::string token_name_;
  uint64_t pages_ = 0, entries_ = 0, name_bytes_ = 0, bytes_ = 0;
  int empty_in_a_row_ = 0;
  std::unordered_set<uint64_t> tokens_;  // hashes of the tokens given
};

// What a page held, as its parser read it: its entries (objects, prefixes,
// uploads) and their names' (and versions') bytes, whether it says more
// follows and the token it gave for that.
struct PageTally {
  uint64_t entries = 0;
  uint64_t name_bytes = 0;
  bool truncated = false;
  std::string token;
};
// Asks the page after `token` ("" for the first) with its body's ceiling
// (PageCeiling); returns the body.
using PageFetch = std::function<absl::StatusOr<std::string>(
    const std::string& token, uint64_t ceiling)>;
// Reads a page's body (keeping what the listing keeps).
using PageParser =
    std::function<absl::StatusOr<PageTally>(const std::string& body)>;

// The paging loop every listing runs: fetch, parse, count, until the last
// page or the first error (the fetch's, the parser's or the pager's).
absl::Status PageThrough(ListingPager& pager, const PageFetch& fetch,
                         const PageParser& parse);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_LISTING_PAGER_H_
