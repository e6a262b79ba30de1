// The storage conformance suite (tests/testing/storage_conformance.cc) on
// GCS: the project's JSON API test server (shown faithful by Google's own
// client in gcs_node_client_test.cc). Each case gets a prefix of its own.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "node/storage/gcs_storage.h"
#include "tests/testing/gcs_server.h"
#include "tests/testing/storage_conformance.h"

namespace ckpt {
namespace {

absl::StatusOr<StorageLocation> OpenGcs(TempDir&) {
  static GcsTestServer* server = new GcsTestServer({"conform"});
  static const std::string url = server->url();
  GcsConfig c;
  c.endpoint = url;
  // The emulator's way in: no token, no metadata server.
  auto creds = std::make_shared<GcsCredentials>([](const char* name) {
    return std::string(name) == "STORAGE_EMULATOR_HOST" ? url.c_str() : nullptr;
  });
  static int n = 0;
  StorageLocation loc;
  loc.storage = std::make_shared<GcsStorage>(c, creds);
  loc.path = absl::StrCat("gs://conform/root-", n++);
  return loc;
}

INSTANTIATE_TEST_SUITE_P(Gcs, StorageConformance,
                         ::testing::Values(ConformanceBackend{
                             "gcs_test_server", OpenGcs,
                             /*object_store=*/true}),
                         ConformanceName);

}  // namespace
}  // namespace ckpt
