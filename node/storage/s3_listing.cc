#include "node/storage/s3_listing.h"

#include "absl/strings/str_cat.h"
#include "common/status_macros.h"

namespace ckpt {
namespace {

// One listing: `call` asked again with the token of the page before (added
// by `more`), each page read by `parse`, until the last page.
absl::Status Pages(S3Client& client, const S3Call& call, ListingPager& pager,
                   const std::function<void(S3Call&, const std::string&)>& more,
                   const PageParser& parse) {
  return PageThrough(
      pager,
      [&](const std::string& token,
          uint64_t ceiling) -> absl::StatusOr<std::string> {
        S3Call c = call;
        if (!token.empty()) more(c, token);
        c.max_body = ceiling;
        ASSIGN_OR_RETURN(HttpResponse rep, client.Do(c));
        return std::move(rep.body);
      },
      parse);
}

}  // namespace

bool TruncatedPage(const std::string& body) {
  return XmlValue(body, "IsTruncated") == "true";
}

PageParser ObjectPageParser(PageParser take) {
  return [take = std::move(take)](
             const std::string& body) -> absl::StatusOr<PageTally> {
    ASSIGN_OR_RETURN(PageTally t, take(body));
    t.truncated = TruncatedPage(body);
    t.token = t.truncated ? XmlValue(body, "NextContinuationToken") : "";
    return t;
  };
}

absl::Status ListObjectPages(S3Client& client, const std::string& bucket,
                             const std::string& prefix, bool delimited,
                             const ListingBounds& bounds,
                             const PageParser& take) {
  S3Call call = MakeS3Call(HttpMethod::kGet, bucket, "",
                           {{"list-type", "2"}, {"prefix", prefix}});
  if (delimited) call.query.push_back({"delimiter", "/"});
  ListingPager pager(bounds, absl::StrCat("s3://", bucket, "/", prefix),
                     "NextContinuationToken");
  return Pages(
      client, call, pager,
      [](S3Call& c, const std::string& token) {
        c.query.push_back({"continuation-token", token});
      },
      ObjectPageParser(take));
}

absl::Status ListUploadPages(S3Client& client, const std::string& bucket,
                             const std::string& prefix,
                             const ListingBounds& bounds,
                             const PageParser& take) {
  S3Call call = MakeS3Call(HttpMethod::kGet, bucket, "",
                           {{"uploads", ""}, {"prefix", prefix}});
  ListingPager pager(bounds,
                     absl::StrCat("uploads of s3://", bucket, "/", prefix),
                     "NextKeyMarker");
  // The two markers travel as one token ("key\nupload id"): a server that
  // gives the same pair again is caught as a repeated token.
  return Pages(
      client, call, pager,
      [](S3Call& c, const std::string& token) {
        const size_t nl = token.find('\n');
        c.query.push_back({"key-marker", token.substr(0, nl)});
        c.query.push_back({"upload-id-marker", token.substr(nl + 1)});
      },
      [&take](const std::string& body) -> absl::StatusOr<PageTally> {
        ASSIGN_OR_RETURN(PageTally t, take(body));
        t.truncated = TruncatedPage(body);
        const std::string key = XmlValue(body, "NextKeyMarker");
        t.token =
            !t.truncated || key.empty()
                ? ""
                : absl::StrCat(key, "\n", XmlValue(body, "NextUploadIdMarker"));
        return t;
      });
}

}  // namespace ckpt
