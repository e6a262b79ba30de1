// The GCS test server shown faithful by a client nobody here wrote:
// Google's official Node client (@google-cloud/storage, tests/gcs_node)
// runs its uploads, validated downloads, ranged reads, listing, compose and
// delete against it, through an injected 503 and a chunk cut by a reset,
// and the objects cross between it and ckptbench's gs backend unchanged.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "node/storage/gcs_storage.h"
#include "tests/testing/gcs_server.h"
#include "tests/testing/source_dir.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

TEST(GcsNodeClient, OfficialClientPassesAgainstTheTestServer) {
  const std::string script = SourceDir() + "/tests/gcs_node/client_test.js";
  ASSERT_TRUE(std::filesystem::exists(SourceDir() +
                                      "/tests/gcs_node/node_modules/@google-"
                                      "cloud/storage/package.json"))
      << "run `npm ci --prefix tests/gcs_node` (scripts/test.sh does)";
  GcsTestServer server;
  TempDir t;

  GcsConfig c;
  c.endpoint = server.url();
  c.single_threshold = 256 * 1024;
  c.chunk_size = 256 * 1024;
  auto url = server.url();
  auto creds =
      std::make_shared<GcsCredentials>([](const char* n) -> const char* {
        return std::string(n) == "STORAGE_EMULATOR_HOST" ? "set" : nullptr;
      });
  GcsStorage ours(c, creds);
  std::string data(1024 * 1024 + 3, '\0');
  for (size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<char>((i * 7919) >> 3);
  {
    auto f = ours.OpenWrite("gs://bucket/ckpt/obj.bin", {});
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->Append(data.data(), data.size()).ok());
    ASSERT_TRUE((*f)->Sync().ok());
  }
  std::ofstream(t.Sub("ckpt.bin"), std::ios::binary) << data;

  // The first chunk of the client's resumable upload is cut after 300 KiB
  // (the server keeps 256 KiB of it); its first media download gets a 503.
  server.AddFault({"upload_id", 0, 300 * 1024, false, 1});
  server.AddFault({"alt=media", 503, SIZE_MAX, false, 1});

  auto r = RunProcess({"/usr/bin/node", script, t.path()},
                      {{"GCS_ENDPOINT", server.url()},
                       {"HOME", t.path()},
                       {"GCE_METADATA_HOST", "127.0.0.1:9"},
                       {"METADATA_SERVER_DETECTION", "none"}});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("all ok"), std::string::npos) << r.out;
  EXPECT_EQ(server.faults_injected(), 2);

  // After the cut the client asked what the server held and went on from
  // its committed 256 KiB.
  bool resumed = false;
  for (const auto& q : server.requests())
    if (q.method == "PUT" && q.content_range.rfind("bytes 262144-", 0) == 0)
      resumed = true;
  EXPECT_TRUE(resumed);

  EXPECT_EQ(ReadFile(t.Sub("ckpt-download.bin")), data);
  auto f = ours.OpenRead("gs://bucket/node/big.bin", {});
  ASSERT_TRUE(f.ok()) << f.status();
  std::string back((*f)->Size(), '\0');
  size_t at = 0;
  while (at < back.size()) {
    auto n = (*f)->Read(at, back.data() + at, back.size() - at);
    ASSERT_TRUE(n.ok()) << n.status();
    at += *n;
  }
  EXPECT_EQ(back, ReadFile(t.Sub("node-big.bin")));
}

}  // namespace
}  // namespace ckpt
