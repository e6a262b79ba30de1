#include "wire/backend_codec.h"

#include "common/status_macros.h"
#include "wire/kinds_codec.h"

namespace ckpt {
namespace {

v1::S3Options S3ToWire(const S3Config& c) {
  v1::S3Options w;
  w.set_endpoint(c.endpoint);
  w.set_region(c.region);
  w.set_addressing(ToWire(c.addressing));
  w.set_part_size(c.part_size);
  w.set_multipart_threshold(c.multipart_threshold);
  w.set_payload_signing(ToWire(c.payload_signing));
  w.set_ca_bundle(c.ca_bundle);
  w.set_skip_tls_verify(!c.verify_tls);
  w.set_stall_timeout(c.stall_timeout);
  w.set_max_attempts(c.max_attempts);
  w.set_parts_in_flight(c.parts_in_flight);
  w.set_range_size(c.range_size);
  w.set_ranges_in_flight(c.ranges_in_flight);
  w.set_spread_prefixes(c.spread_prefixes);
  w.set_checksum(ToWire(c.checksum));
  w.set_claim(ToWire(c.claim));
  w.set_keys_secret(c.keys_secret);
  return w;
}

absl::StatusOr<S3Config> S3FromWire(const v1::S3Options& w) {
  S3Config c;
  c.endpoint = w.endpoint();
  c.region = w.region();
  ASSIGN_OR_RETURN(c.addressing, FromWire(w.addressing(), "s3.addressing"));
  c.part_size = w.part_size();
  c.multipart_threshold = w.multipart_threshold();
  ASSIGN_OR_RETURN(c.payload_signing,
                   FromWire(w.payload_signing(), "s3.payload_signing"));
  c.ca_bundle = w.ca_bundle();
  c.verify_tls = !w.skip_tls_verify();
  c.stall_timeout = w.stall_timeout();
  c.max_attempts = w.max_attempts();
  c.parts_in_flight = w.parts_in_flight();
  c.range_size = w.range_size();
  c.ranges_in_flight = w.ranges_in_flight();
  c.spread_prefixes = w.spread_prefixes();
  ASSIGN_OR_RETURN(c.checksum, FromWire(w.checksum(), "s3.checksum"));
  ASSIGN_OR_RETURN(c.claim, FromWire(w.claim(), "s3.claim"));
  c.keys_secret = w.keys_secret();
  return c;
}

v1::GcsOptions GcsToWire(const GcsConfig& c) {
  v1::GcsOptions w;
  w.set_endpoint(c.endpoint);
  w.set_project(c.project);
  w.set_user_project(c.user_project);
  w.set_upload(ToWire(c.upload));
  w.set_single_threshold(c.single_threshold);
  w.set_chunk_size(c.chunk_size);
  w.set_parts_in_flight(c.parts_in_flight);
  w.set_range_size(c.range_size);
  w.set_ranges_in_flight(c.ranges_in_flight);
  w.set_max_attempts(c.max_attempts);
  w.set_stall_timeout(c.stall_timeout);
  w.set_ca_bundle(c.ca_bundle);
  w.set_skip_tls_verify(!c.verify_tls);
  w.set_anonymous(c.anonymous);
  return w;
}

absl::StatusOr<GcsConfig> GcsFromWire(const v1::GcsOptions& w) {
  GcsConfig c;
  c.endpoint = w.endpoint();
  c.project = w.project();
  c.user_project = w.user_project();
  ASSIGN_OR_RETURN(c.upload, FromWire(w.upload(), "gcs.upload"));
  c.single_threshold = w.single_threshold();
  c.chunk_size = w.chunk_size();
  c.parts_in_flight = w.parts_in_flight();
  c.range_size = w.range_size();
  c.ranges_in_flight = w.ranges_in_flight();
  c.max_attempts = w.max_attempts();
  c.stall_timeout = w.stall_timeout();
  c.ca_bundle = w.ca_bundle();
  c.verify_tls = !w.skip_tls_verify();
  c.anonymous = w.anonymous();
  return c;
}

}  // namespace

v1::BackendOptions ToWire(const BackendOptions& o) {
  v1::BackendOptions w;
  w.set_flavour(ToWire(o.flavour));
  *w.mutable_s3() = S3ToWire(o.s3);
  *w.mutable_gcs() = GcsToWire(o.gcs);
  return w;
}

absl::StatusOr<BackendOptions> FromWire(const v1::BackendOptions& w) {
  BackendOptions o;
  ASSIGN_OR_RETURN(o.flavour, FromWire(w.flavour(), "storage.flavour"));
  // A message left out (has_s3 false) reads as the defaults; one sent is
  // taken field by field, zeros included, and checked below.
  if (w.has_s3()) {
    ASSIGN_OR_RETURN(o.s3, S3FromWire(w.s3()));
  }
  if (w.has_gcs()) {
    ASSIGN_OR_RETURN(o.gcs, GcsFromWire(w.gcs()));
  }
  RETURN_IF_ERROR(CheckBackendOptions(o));
  return o;
}

}  // namespace ckpt
