// S3's listings, page by page through a ListingPager (listing_pager.h):
// ListObjectsV2 (with or without a delimiter) and ListMultipartUploads.
// Each page's body is read with the pager's ceiling, handed to the
// caller's parser, and counted; the loop ends at the last page, or at the
// first bound passed, repeated token or abort. Thread-safe as the client.
#ifndef CKPTBENCH_NODE_STORAGE_S3_LISTING_H_
#define CKPTBENCH_NODE_STORAGE_S3_LISTING_H_

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "node/storage/listing_pager.h"
#include "node/storage/s3_client.h"

namespace ckpt {

// The caller's parser of a page's body (the tally's entries and name
// bytes; truncated and token are the listing's own, filled here).
// Every page of ListObjectsV2 of `prefix` in `bucket` (delimited: with
// delimiter "/", so CommonPrefixes come back too).
absl::Status ListObjectPages(S3Client& client, const std::string& bucket,
                             const std::string& prefix, bool delimited,
                             const ListingBounds& bounds,
                             const PageParser& take);

// Every page of ListMultipartUploads of `prefix` in `bucket`.
absl::Status ListUploadPages(S3Client& client, const std::string& bucket,
                             const std::string& prefix,
                             const ListingBounds& bounds,
                             const PageParser& take);

// A listing page's <IsTruncated>true</IsTruncated>.
bool TruncatedPage(const std::string& body);

// `take` over a ListObjectsV2 page, with the page's IsTruncated and
// NextContinuationToken added: what ListObjectPages parses each page with.
PageParser ObjectPageParser(PageParser take);

}  // namespace ckpt

#endif  // CKPTBENCH_NODE_STORAGE_S3_LISTING_H_
