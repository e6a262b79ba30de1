// Clean-up after a failure caused by descriptor exhaustion (issue 27, item
// 7): with every descriptor the process may open taken, a node's Cleanup
// of a failed S3 step still lists and aborts its uploads and deletes its
// objects, on the descriptors NodeAgent reserved at start.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "common/fd_reserve.h"
#include "node/node_agent.h"
#include "tests/testing/descriptors.h"
#include "tests/testing/stub_http_server.h"

namespace ckpt {
namespace {

TEST(NodeAgentCleanup, RunsOnTheReservedDescriptorsWhenNoneAreLeft) {
  // S3 for the clean-up's calls: one unfinished upload of the step's file.
  StubHttpServer s3([](const StubRequest& r) {
    if (r.method == "GET") {
      return StubResponse{
          200,
          "<ListMultipartUploadsResult><Upload>"
          "<Key>x/checkpoints/step-1/__0_0.distcp</Key>"
          "<UploadId>u1</UploadId></Upload></ListMultipartUploadsResult>"};
    }
    return StubResponse{204};
  });
  setenv("AWS_ACCESS_KEY_ID", "AKIDCLEANUPTEST", 1);
  setenv("AWS_SECRET_ACCESS_KEY", "cleanup-test-secret-key", 1);
  setenv("AWS_EC2_METADATA_DISABLED", "true", 1);
  BackendOptions options;
  options.s3.endpoint = s3.url();
  options.s3.region = "us-east-1";
  NodeAgent agent;
  ASSERT_EQ(ReservedDescriptors(), kCleanupDescriptors);
  absl::Status cleaned;
  int aborted = 0;
  {
    DescriptorsExhausted exhausted;
    ASSERT_GT(exhausted.held(), 0);
    cleaned = agent.Cleanup("s3://b/x/checkpoints", {1}, {"__0_0.distcp"},
                            options, /*abort_uploads=*/true, &aborted);
  }
  EXPECT_TRUE(cleaned.ok()) << cleaned;
  EXPECT_EQ(aborted, 1);
  std::vector<std::string> calls;
  for (const auto& r : s3.requests())
    calls.push_back(r.method + " " + r.target);
  ASSERT_EQ(calls.size(), 4u);
  EXPECT_EQ(calls[1],
            "DELETE /b/x/checkpoints/step-1/__0_0.distcp?uploadId=u1");
  EXPECT_EQ(calls[2], "DELETE /b/x/checkpoints/step-1/.metadata");
  EXPECT_EQ(calls[3], "DELETE /b/x/checkpoints/step-1/__0_0.distcp");
  // Taken again as far as the scarce descriptors allowed (the next round's
  // Prepare makes it whole).
  EXPECT_GT(ReservedDescriptors(), 0);
}

}  // namespace
}  // namespace ckpt
