#include <algorithm>

#include "common/config_keys.h"

namespace ckpt {

using namespace keydefs;  // NOLINT: the key-building helpers

namespace {

void AddGcsKeys(std::vector<KeyDef>* out) {
  std::vector<KeyDef>& keys = *out;
  keys.push_back(StringKey(
      "gcs.endpoint", "CKPT_GCS_ENDPOINT",
      "a URL such as https://storage.googleapis.com",
      [](auto& c) -> auto& { return c.gcs.endpoint; },
      "GCS JSON API endpoint (default https://storage.googleapis.com; "
      "STORAGE_EMULATOR_HOST sets it when empty)"));
  keys.push_back(BoolKey(
      "gcs.anonymous", "CKPT_GCS_ANONYMOUS",
      [](auto& c) -> auto& { return c.gcs.anonymous; },
      "send no credentials (a GCS emulator; STORAGE_EMULATOR_HOST sets it)"));
  keys.push_back(StringKey(
      "gcs.project", "PROJECT", "a Google Cloud project id",
      [](auto& c) -> auto& { return c.gcs.project; },
      "project of the bucket, as in the GCS checkpoint benchmark (recorded; "
      "sent as the quota project with gcs.user_project=true)"));
  keys.push_back(BoolKey(
      "gcs.user_project", "CKPT_GCS_USER_PROJECT",
      [](auto& c) -> auto& { return c.gcs.user_project; },
      "bill requests to gcs.project (userProject; requester-pays buckets)"));
  keys.push_back(KindKey<GcsUpload>(
      "gcs.upload", "CKPT_GCS_UPLOAD",
      [](auto& c) -> auto& { return c.gcs.upload; },
      "objects above gcs.single_threshold: one resumable session in chunks, "
      "or parallel composite (parts uploaded at once, then compose)"));
  keys.push_back(SizeKey(
      "gcs.single_threshold", "CKPT_GCS_SINGLE_THRESHOLD", 0, 5 * kTiB, 1,
      [](auto& c) -> auto& { return c.gcs.single_threshold; },
      "objects below this size go up in one request"));
  keys.push_back(SizeKey(
      "gcs.chunk_size", "CKPT_GCS_CHUNK_SIZE", 256 * kKiB, 5 * kGiB, 256 * kKiB,
      [](auto& c) -> auto& { return c.gcs.chunk_size; },
      "resumable chunk, or composite part, size"));
  keys.push_back(IntKey(
      "gcs.parts_in_flight", "CKPT_GCS_PARTS_IN_FLIGHT", 1,
      [](auto& c) -> auto& { return c.gcs.parts_in_flight; },
      "composite: concurrent part uploads per object (memory: +1 part each)"));
  keys.push_back(SizeKey(
      "gcs.range_size", "CKPT_GCS_RANGE_SIZE", 64 * kKiB, kGiB, 1,
      [](auto& c) -> auto& { return c.gcs.range_size; },
      "bytes per ranged alt=media GET"));
  keys.push_back(IntKey(
      "gcs.ranges_in_flight", "CKPT_GCS_RANGES_IN_FLIGHT", 1,
      [](auto& c) -> auto& { return c.gcs.ranges_in_flight; },
      "concurrent ranged GETs per object (read-ahead of a sequential load)"));
  keys.push_back(IntKey(
      "gcs.max_attempts", "CKPT_GCS_MAX_ATTEMPTS", 1,
      [](auto& c) -> auto& { return c.gcs.max_attempts; },
      "attempts per GCS request (retries 408, 429, 5xx and resets with "
      "jittered backoff)"));
  keys.push_back(SecondsKey(
      "gcs.stall_timeout", "CKPT_GCS_STALL_TIMEOUT",
      [](auto& c) -> auto& { return c.gcs.stall_timeout; },
      "a transfer that moves no byte this long is retried"));
  keys.push_back(StringKey(
      "gcs.ca_bundle", "CKPT_GCS_CA_BUNDLE", "a PEM file path",
      [](auto& c) -> auto& { return c.gcs.ca_bundle; },
      "CA bundle to verify the GCS endpoint's certificate"));
  keys.push_back(BoolKey(
      "gcs.verify_tls", "CKPT_GCS_VERIFY_TLS",
      [](auto& c) -> auto& { return c.gcs.verify_tls; },
      "verify the GCS endpoint's TLS certificate"));
}

}  // namespace

void AddObjectStoreKeys(std::vector<KeyDef>* out) {
  std::vector<KeyDef>& keys = *out;
  keys.push_back(StringKey(
      "s3.endpoint", "AWS_ENDPOINT_URL_S3",
      "a URL such as http://127.0.0.1:9000",
      [](auto& c) -> auto& { return c.s3.endpoint; },
      "S3 endpoint override (MinIO, Ceph, GCS XML); default AWS"));
  keys.push_back(StringKey(
      "s3.region", "AWS_REGION", "a region such as us-east-1",
      [](auto& c) -> auto& { return c.s3.region; }, "S3 signing region"));
  keys.push_back(KindKey<S3Addressing>(
      "s3.addressing", "CKPT_S3_ADDRESSING",
      [](auto& c) -> auto& { return c.s3.addressing; },
      "path-style or virtual-hosted URLs (auto: path for IPs and localhost)"));
  keys.push_back(SizeKey(
      "s3.part_size", "CKPT_S3_PART_SIZE", 5 * kMiB, 5 * kGiB, 1,
      [](auto& c) -> auto& { return c.s3.part_size; }, "multipart part size"));
  {
    KeyDef k;
    k.key = "s3.multipart_threshold";
    k.env = "CKPT_S3_MULTIPART_THRESHOLD";
    // S3's single PUT is at most 5 GiB (AWS: "Uploading objects").
    k.expected = "a byte size up to 5GiB (S3's largest single PUT)";
    k.description = "objects at least this large use multipart upload";
    k.set = [](Config& c, const std::string& v) -> absl::Status {
      auto s = ParseByteSize(v);
      if (!s.ok() || *s > 5 * kGiB) {
        return Expect("a byte size up to 5GiB (S3's largest single PUT)");
      }
      c.s3.multipart_threshold = *s;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) {
      return std::to_string(c.s3.multipart_threshold);
    };
    keys.push_back(k);
  }
  keys.push_back(KindKey<PayloadSigning>(
      "s3.payload_signing", "CKPT_S3_PAYLOAD_SIGNING",
      [](auto& c) -> auto& { return c.s3.payload_signing; },
      "UNSIGNED-PAYLOAD, or a SHA-256 of every body in the signature"));
  keys.push_back(StringKey(
      "s3.ca_bundle", "AWS_CA_BUNDLE", "a PEM file path",
      [](auto& c) -> auto& { return c.s3.ca_bundle; },
      "CA bundle to verify the S3 endpoint's certificate"));
  keys.push_back(BoolKey(
      "s3.verify_tls", "CKPT_S3_VERIFY_TLS",
      [](auto& c) -> auto& { return c.s3.verify_tls; },
      "verify the S3 endpoint's TLS certificate"));
  keys.push_back(SecondsKey(
      "s3.stall_timeout", "CKPT_S3_STALL_TIMEOUT",
      [](auto& c) -> auto& { return c.s3.stall_timeout; },
      "a transfer that moves no byte this long is retried"));
  keys.push_back(IntKey(
      "s3.max_attempts", "CKPT_S3_MAX_ATTEMPTS", 1,
      [](auto& c) -> auto& { return c.s3.max_attempts; },
      "attempts per S3 request (retries with jittered backoff)"));
  keys.push_back(IntKey(
      "s3.parts_in_flight", "CKPT_S3_PARTS_IN_FLIGHT", 1,
      [](auto& c) -> auto& { return c.s3.parts_in_flight; },
      "concurrent part uploads per object (memory: +1 part each)"));
  keys.push_back(SizeKey(
      "s3.range_size", "CKPT_S3_RANGE_SIZE", 64 * kKiB, kGiB, 1,
      [](auto& c) -> auto& { return c.s3.range_size; },
      "bytes per ranged GET"));
  keys.push_back(IntKey(
      "s3.ranges_in_flight", "CKPT_S3_RANGES_IN_FLIGHT", 1,
      [](auto& c) -> auto& { return c.s3.ranges_in_flight; },
      "concurrent ranged GETs per object (read-ahead of a sequential load)"));
  keys.push_back(IntKey(
      "s3.spread_prefixes", "CKPT_S3_SPREAD_PREFIXES", 0,
      [](auto& c) -> auto& { return c.s3.spread_prefixes; },
      "0 = shard keys follow the posix layout; N = under N hash prefixes "
      "(<hh>/<key>), since S3 throttles per prefix"));
  keys.push_back(KindKey<S3Checksum>(
      "s3.checksum", "CKPT_S3_CHECKSUM",
      [](auto& c) -> auto& { return c.s3.checksum; },
      "in-transit integrity the server checks: crc32c (x-amz-checksum-crc32c "
      "with every PUT and part; AWS, MinIO) or md5 (Content-MD5; also Swift); "
      "none relies on TLS and the load's own verification"));
  keys.push_back(KindKey<S3Claim>(
      "s3.claim", "CKPT_S3_CLAIM", [](auto& c) -> auto& { return c.s3.claim; },
      "how a run claims a step before writing it: if_none_match (a "
      "conditional PUT; AWS, MinIO), listing (a claim object per run, then a "
      "listing: any other entry loses; for stores that reject conditional "
      "PUTs, e.g. Swift), auto (the first, else the second)"));
  {
    // A Secret's name is a DNS subdomain (RFC 1123): lowercase letters,
    // digits, '-' and '.', starting and ending with a letter or digit.
    const std::string expected =
        "a Kubernetes Secret name (lowercase letters, digits, '-' and '.', "
        "at most 253) or empty";
    KeyDef k = NewKey(
        "s3.keys_secret", "CKPT_S3_KEYS_SECRET", expected,
        "the Kubernetes Secret the nodes' AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY come from (envFrom); set, a node without them "
        "fails before any round naming the Secret (exit 2), and no other "
        "credential source is tried");
    k.set = [expected](Config& c, const std::string& v) -> absl::Status {
      auto alnum = [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
      };
      const bool ok = v.empty() ||
                      (v.size() <= 253 && alnum(v.front()) && alnum(v.back()) &&
                       std::all_of(v.begin(), v.end(), [&](char ch) {
                         return alnum(ch) || ch == '-' || ch == '.';
                       }));
      if (!ok) return Expect(expected);
      c.s3.keys_secret = v;
      return absl::OkStatus();
    };
    k.get = [](const Config& c) { return c.s3.keys_secret; };
    keys.push_back(k);
  }
  AddGcsKeys(&keys);
}

}  // namespace ckpt
