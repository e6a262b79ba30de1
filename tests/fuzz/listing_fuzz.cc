// libFuzzer target: the paging loop every listing runs (PageThrough with a
// ListingPager), against any server. The input is a server: bounds, an
// abort after some pages, a kind (S3's ListObjectsV2 XML or GCS's JSON,
// read by the backends' own page parsers), and pages separated by
// "\n--\n"; the server answers page k (or, keyed by the token it was
// given, any page) for ever, so a server that never stops is among the
// inputs. Whatever it answers, the loop must end, within the bounds:
// never more pages asked than max_pages (+ none after the abort), never a
// body past the ceiling accepted, and on success entries and bytes within
// theirs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "node/storage/gcs_storage.h"
#include "node/storage/listing_pager.h"
#include "node/storage/s3_client.h"
#include "node/storage/s3_listing.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 6) return 0;
  ckpt::ListingBounds b;
  b.max_pages = 1 + data[0] % 64;
  b.max_entries = 1 + data[1] % 200;
  b.max_page_bytes = 64 + static_cast<uint64_t>(data[2]) * 64;
  b.max_bytes = 64 + static_cast<uint64_t>(data[3]) * 256;
  b.max_name_bytes = 16 + static_cast<uint64_t>(data[4]) * 16;
  const int abort_after = data[5] % 80;  // 0: never
  const bool gcs = (data[5] & 0x80) != 0;
  const bool by_token = (data[0] & 0x80) != 0;
  std::atomic<bool> abort{false};
  b.abort = &abort;

  std::vector<std::string> pages;
  const std::string text(reinterpret_cast<const char*>(data + 6), size - 6);
  for (size_t at = 0;;) {
    const size_t sep = text.find("\n--\n", at);
    pages.push_back(text.substr(at, sep == std::string::npos ? sep : sep - at));
    if (sep == std::string::npos) break;
    at = sep + 4;
  }

  uint64_t fetched = 0, accepted_bytes = 0;
  bool fetched_after_abort = false;
  const ckpt::PageFetch fetch =
      [&](const std::string& token,
          uint64_t ceiling) -> absl::StatusOr<std::string> {
    if (abort.load()) fetched_after_abort = true;
    const size_t k = by_token ? std::hash<std::string>{}(token) % pages.size()
                              : fetched % pages.size();
    ++fetched;
    if (abort_after > 0 && fetched == static_cast<uint64_t>(abort_after)) {
      abort = true;
    }
    // The HTTP client's ceiling: a longer body is an error, never kept.
    if (pages[k].size() > ceiling) {
      return absl::ResourceExhaustedError("body past its ceiling");
    }
    accepted_bytes += pages[k].size();
    return pages[k];
  };
  std::vector<std::string> names;
  std::vector<ckpt::ListedObject> objects;
  const ckpt::PageParser parse =
      gcs ? ckpt::PageParser([&](const std::string& body)
                                 -> absl::StatusOr<ckpt::PageTally> {
        ckpt::PageTally t;
        const size_t n0 = names.size(), o0 = objects.size();
        absl::Status s = ckpt::ParseGcsListPage(body, "gs://b/p/", &names,
                                                &t.token, &objects);
        if (!s.ok()) return s;
        t.truncated = !t.token.empty();
        t.entries = names.size() - n0 + objects.size() - o0;
        for (size_t i = n0; i < names.size(); ++i) {
          t.name_bytes += names[i].size();
        }
        for (size_t i = o0; i < objects.size(); ++i) {
          t.name_bytes += objects[i].name.size() + objects[i].version.size();
        }
        return t;
      })
          : ckpt::ObjectPageParser([&](const std::string& body)
                                       -> absl::StatusOr<ckpt::PageTally> {
              ckpt::PageTally t;
              for (auto& k : ckpt::XmlTexts(body, "Key")) {
                ++t.entries;
                t.name_bytes += k.size();
                names.push_back(std::move(k));
              }
              t.entries += ckpt::XmlValues(body, "CommonPrefixes").size();
              return t;
            });
  ckpt::ListingPager pager(b, "s3://b/p/", "token");
  const absl::Status s = ckpt::PageThrough(pager, fetch, parse);

  Check(fetched <= b.max_pages);
  Check(!fetched_after_abort);
  Check(pager.pages() == fetched || !s.ok());
  if (s.ok()) {
    Check(pager.entries() <= b.max_entries);
    Check(accepted_bytes <= b.max_bytes);
  }
  return 0;
}
