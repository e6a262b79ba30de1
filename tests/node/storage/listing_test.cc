// Listings against hostile servers (issue: hostile datasets): a fake S3
// and a fake GCS on loopback that give the same token for ever, new tokens
// for ever, a page larger than memory should hold, prefixes without end,
// or keys outside the prefix asked for. Every listing ends, within its
// bounds, with an error naming the bound or the fault; the abort flag
// stops one between pages.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "node/storage/gcs_storage.h"
#include "node/storage/listing_pager.h"
#include "node/storage/s3_storage.h"
#include "tests/testing/stub_http_server.h"

namespace ckpt {
namespace {

// An S3 backend on the stub, with keys from the environment (this test
// process's own) and no metadata endpoint.
std::unique_ptr<Storage> FakeS3(const StubHttpServer& stub) {
  setenv("AWS_ACCESS_KEY_ID", "AKIDTEST", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "secret", 1);
  setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  S3Config cfg;
  cfg.endpoint = stub.url();
  cfg.addressing = S3Addressing::kPath;
  cfg.max_attempts = 1;
  return S3Storage::Make(cfg, nullptr).value();
}

std::unique_ptr<Storage> FakeGcs(const StubHttpServer& stub) {
  GcsConfig cfg;
  cfg.endpoint = stub.url();
  cfg.anonymous = true;
  cfg.max_attempts = 1;
  return GcsStorage::Make(cfg, nullptr).value();
}

std::string S3Page(const std::string& keys, const std::string& token) {
  return absl::StrCat("<ListBucketResult><IsTruncated>",
                      token.empty() ? "false" : "true", "</IsTruncated>", keys,
                      token.empty()
                          ? ""
                          : absl::StrCat("<NextContinuationToken>", token,
                                         "</NextContinuationToken>"),
                      "</ListBucketResult>");
}

std::string S3Key(const std::string& key) {
  return absl::StrCat("<Contents><Key>", key,
                      "</Key><Size>100</Size><ETag>\"e\"</ETag></Contents>");
}

TEST(ListingPager, RefusesARepeatedTokenATruncatedPageWithoutOneAndBounds) {
  ListingBounds b;
  {
    ListingPager p(b, "s3://b/p/", "NextContinuationToken");
    ASSERT_TRUE(p.BeforePage().ok());
    ASSERT_TRUE(p.AfterPage(10, 1, 5, true, "t1").ok());
    ASSERT_TRUE(p.BeforePage().ok());
    const absl::Status s = p.AfterPage(10, 1, 5, true, "t1");
    EXPECT_TRUE(absl::IsDataLoss(s)) << s;
    EXPECT_NE(s.message().find("NextContinuationToken 't1' a page before"),
              std::string::npos)
        << s;
  }
  {
    ListingPager p(b, "s3://b/p/", "NextContinuationToken");
    ASSERT_TRUE(p.BeforePage().ok());
    EXPECT_TRUE(absl::IsDataLoss(p.AfterPage(10, 1, 5, true, "")));
  }
  {
    b.max_pages = 3;
    b.keys = "dataset.list_max_";
    ListingPager p(b, "s3://b/p/", "t");
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(p.BeforePage().ok());
      ASSERT_TRUE(p.AfterPage(1, 1, 1, true, absl::StrCat("t", i)).ok());
    }
    const absl::Status s = p.BeforePage();
    EXPECT_TRUE(absl::IsResourceExhausted(s)) << s;
    EXPECT_NE(s.message().find("dataset.list_max_pages"), std::string::npos);
  }
  {
    ListingBounds e;
    ListingPager p(e, "s3://b/p/", "t");
    for (int i = 0; i <= kMaxEmptyListPages; ++i) {
      ASSERT_TRUE(p.BeforePage().ok());
      absl::Status s = p.AfterPage(1, 0, 0, true, absl::StrCat("t", i));
      if (i < kMaxEmptyListPages) {
        ASSERT_TRUE(s.ok()) << s;
      } else {
        EXPECT_TRUE(absl::IsDataLoss(s)) << s;
      }
    }
  }
}

TEST(HostileListing, AnS3ServerGivingTheSameTokenForEverIsRefusedAtOnce) {
  StubHttpServer s3([](const StubRequest&) {
    return StubResponse{200, S3Page(S3Key("ds/a.tar"), "again")};
  });
  auto st = FakeS3(s3);
  auto listed = st->ListTree("s3://b/ds", ListingBounds{});
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(absl::IsDataLoss(listed.status())) << listed.status();
  EXPECT_NE(listed.status().message().find("'again'"), std::string::npos)
      << listed.status();
  EXPECT_EQ(s3.requests().size(), 2u);
}

TEST(HostileListing, AnS3ServerWithNewTokensForEverStopsAtThePageBound) {
  std::atomic<int> n{0};
  StubHttpServer s3([&](const StubRequest&) {
    const int k = n++;
    return StubResponse{200, S3Page(S3Key(absl::StrCat("ds/", k, ".tar")),
                                    absl::StrCat("t", k))};
  });
  auto st = FakeS3(s3);
  ListingBounds b;
  b.keys = "dataset.list_max_";
  b.max_pages = 40;
  auto listed = st->ListTree("s3://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(listed.status())) << listed.status();
  EXPECT_NE(listed.status().message().find("dataset.list_max_pages"),
            std::string::npos)
      << listed.status();
  EXPECT_EQ(s3.requests().size(), 40u);
  // The objects bound the same way.
  b = ListingBounds{};
  b.keys = "dataset.list_max_";
  b.max_entries = 25;
  listed = st->ListTree("s3://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("dataset.list_max_objects"),
            std::string::npos)
      << listed.status();
}

TEST(HostileListing, AHugeS3PageEndsAtItsCeilingUnread) {
  // 40 MiB of keys in one page: past the default 16 MiB ceiling.
  std::string keys;
  while (keys.size() < (40u << 20)) {
    absl::StrAppend(&keys, S3Key(absl::StrCat("ds/", std::string(1000, 'k'),
                                              keys.size(), ".tar")));
  }
  const std::string page = S3Page(keys, "");
  keys.clear();
  StubHttpServer s3([&](const StubRequest&) {
    return StubResponse{200, page};
  });
  auto st = FakeS3(s3);
  auto listed = st->ListTree("s3://b/ds", ListingBounds{});
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("the response body passed 16777216 "
                                           "bytes"),
            std::string::npos)
      << listed.status();
  EXPECT_EQ(s3.requests().size(), 1u);  // not retried
  // A smaller ceiling (dataset.list_max_page_bytes) is the one named.
  ListingBounds b;
  b.max_page_bytes = 1 << 20;
  listed = st->ListTree("s3://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("passed 1048576 bytes"),
            std::string::npos)
      << listed.status();
}

TEST(HostileListing, AnS3KeyOutsideThePrefixAskedIsRefusedNotDropped) {
  StubHttpServer s3([](const StubRequest&) {
    return StubResponse{200,
                        S3Page(S3Key("ds/a.tar") + S3Key("other/x.tar"), "")};
  });
  auto st = FakeS3(s3);
  auto listed = st->ListTree("s3://b/ds", ListingBounds{});
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("other/x.tar, a key outside the "
                                           "prefix"),
            std::string::npos)
      << listed.status();
}

TEST(HostileListing, AGcsServerRepeatingItsPageTokenIsRefused) {
  StubHttpServer gcs([](const StubRequest&) {
    return StubResponse{200,
                        "{\"items\":[{\"name\":\"ds/a.tar\",\"size\":\"5\"}],"
                        "\"nextPageToken\":\"same\"}",
                        "Content-Type: application/json\r\n"};
  });
  auto st = FakeGcs(gcs);
  auto listed = st->ListTree("gs://b/ds", ListingBounds{});
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(absl::IsDataLoss(listed.status())) << listed.status();
  EXPECT_NE(listed.status().message().find("nextPageToken 'same'"),
            std::string::npos)
      << listed.status();
  EXPECT_EQ(gcs.requests().size(), 2u);
}

TEST(HostileListing, GcsPrefixesWithoutEndCountAgainstTheBounds) {
  // Each page: 1,000 prefixes of ~1 KiB, never an object, a new token.
  std::atomic<int> n{0};
  std::string prefixes;
  for (int i = 0; i < 1000; ++i) {
    absl::StrAppend(&prefixes, i ? "," : "", "\"ds/", std::string(1000, 'p'), i,
                    "/\"");
  }
  StubHttpServer gcs([&](const StubRequest&) {
    return StubResponse{200,
                        absl::StrCat("{\"prefixes\":[", prefixes,
                                     "],\"nextPageToken\":\"t", n++, "\"}"),
                        "Content-Type: application/json\r\n"};
  });
  auto st = FakeGcs(gcs);
  ListingBounds b;
  b.keys = "dataset.list_max_";
  b.max_name_bytes = 8 << 20;  // 8 pages' worth
  auto listed = st->ListTree("gs://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(listed.status())) << listed.status();
  EXPECT_NE(listed.status().message().find("dataset.list_max_key_bytes"),
            std::string::npos)
      << listed.status();
  EXPECT_LE(gcs.requests().size(), 9u);
  // Without that bound, the objects' bound counts prefixes too.
  n = 0;
  b = ListingBounds{};
  b.keys = "dataset.list_max_";
  b.max_entries = 5000;
  listed = st->ListTree("gs://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("dataset.list_max_objects"),
            std::string::npos)
      << listed.status();
}

TEST(HostileListing, AHugeGcsPageEndsAtItsCeilingUnread) {
  std::string items;
  while (items.size() < (20u << 20)) {
    absl::StrAppend(&items, items.empty() ? "" : ",", "{\"name\":\"ds/",
                    std::string(1000, 'g'), items.size(),
                    ".tar\",\"size\":\"5\"}");
  }
  const std::string page = absl::StrCat("{\"items\":[", items, "]}");
  items.clear();
  StubHttpServer gcs([&](const StubRequest&) {
    return StubResponse{200, page, "Content-Type: application/json\r\n"};
  });
  auto st = FakeGcs(gcs);
  auto listed = st->ListTree("gs://b/ds", ListingBounds{});
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.status().message().find("the response body passed "
                                           "16777216 bytes"),
            std::string::npos)
      << listed.status();
  EXPECT_EQ(gcs.requests().size(), 1u);
}

// What a listing holds is bounded by the node's memory (a dataset's
// listing: 80% of it): here 1 MiB, reached within a few pages.
TEST(HostileListing, AListingPastTheMemoryItMayHoldIsRefused) {
  std::atomic<int> n{0};
  StubHttpServer s3([&](const StubRequest&) {
    std::string keys;
    const int k = n++;
    for (int i = 0; i < 1000; ++i) {
      absl::StrAppend(&keys, S3Key(absl::StrCat("ds/", k, "-", i, ".tar")));
    }
    return StubResponse{200, S3Page(keys, absl::StrCat("t", k))};
  });
  auto st = FakeS3(s3);
  ListingBounds b;
  b.memory_bytes = 1 << 20;
  auto listed = st->ListTree("s3://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(absl::IsResourceExhausted(listed.status())) << listed.status();
  EXPECT_NE(listed.status().message().find("of the memory available"),
            std::string::npos)
      << listed.status();
  EXPECT_LE(s3.requests().size(), 12u);
}

TEST(HostileListing, TheAbortFlagStopsAListingBetweenPages) {
  std::atomic<bool> abort{false};
  std::atomic<int> n{0};
  StubHttpServer s3([&](const StubRequest&) {
    const int k = n++;
    if (k == 2) abort = true;  // as a signal would, mid-listing
    return StubResponse{200, S3Page(S3Key(absl::StrCat("ds/", k, ".tar")),
                                    absl::StrCat("t", k))};
  });
  auto st = FakeS3(s3);
  ListingBounds b;
  b.abort = &abort;
  auto listed = st->ListTree("s3://b/ds", b);
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(absl::IsAborted(listed.status())) << listed.status();
  EXPECT_EQ(s3.requests().size(), 3u);
}

}  // namespace
}  // namespace ckpt
