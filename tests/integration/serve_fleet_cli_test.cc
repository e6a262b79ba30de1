// Two serving replicas in one `ckptbench run` (NUM_NODES=2), staggered, on
// one host: the second finds the model in the page cache the first filled,
// and the summary and result.json say so. The page cache is the host's, so
// this runs alone (SERIAL): another test's drop_caches in the second between
// the replicas' starts would empty it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "tests/testing/serve_cli.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

TEST(ServeCli, TwoReplicasOnOneHostShowWhatItsPageCacheServed) {
  TempDir t;
  // fadvise: a test does not drop the host's caches.
  const std::map<std::string, std::string> fleet = {
      {"NUM_NODES", "2"},
      {"CKPT_SERVE_STAGGER", "1s"},
      {"CKPT_CACHE_MODE", "fadvise"}};
  ProcessResult run = RunServeCli(t, "r1", fleet);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("serve, 2 replica(s) of 2 rank(s)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("2 replicas share its page cache"), std::string::npos)
      << run.out;
  json j = json::parse(ReadFile(t.Sub("r1/result.json")));
  ASSERT_EQ(j["rounds"].size(), 2u);  // make, load 1
  const json& round = j["rounds"][1];
  const json& load = round["replica_load"];
  ASSERT_EQ(load["replicas"].size(), 2u);
  const json& first = load["replicas"][0];
  const json& second = load["replicas"][1];
  EXPECT_EQ(first["host"], second["host"]);
  EXPECT_GE(second["start_seconds"].get<double>(), 1.0);
  const uint64_t model = load["model_bytes"].get<uint64_t>();
  // The second starts after the first has loaded the whole model (well
  // under the second of stagger): all of it is in the host's cache, and
  // every read it makes is served there.
  EXPECT_EQ(second["page_cache_at_start_bytes"].get<uint64_t>(), model);
  EXPECT_EQ(second["page_cache_bytes"], second["bytes"]);
  // The first started cold, unless the file system could not evict (the
  // round then says so).
  const std::vector<std::string> flags = round.value("flags", json::array());
  if (std::find(flags.begin(), flags.end(), "page_cache_resident") ==
      flags.end()) {
    EXPECT_EQ(first["page_cache_at_start_bytes"], 0);
    EXPECT_LT(first["page_cache_bytes"].get<uint64_t>(),
              first["bytes"].get<uint64_t>());
  }

  // More replicas than one process holds, or several nodes of a workload
  // that has no meaning for them on one host: refused naming the key.
  std::map<std::string, std::string> many = fleet;
  many["NUM_NODES"] = "17";
  ProcessResult refused = RunServeCli(t, "r2", many);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("cluster.num_nodes (NUM_NODES) = 17"),
            std::string::npos)
      << refused.err;
  EXPECT_NE(refused.err.find("holds 1 to 16 nodes in one process"),
            std::string::npos)
      << refused.err;
  ProcessResult checkpoint =
      RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub("r3")},
                 {{"CKPT_DIR_PATH", t.Sub("ckpt")}, {"NUM_NODES", "2"}});
  EXPECT_EQ(checkpoint.exit_code, 2);
  EXPECT_NE(checkpoint.err.find("single-node for run.workload = checkpoint"),
            std::string::npos)
      << checkpoint.err;
}

}  // namespace
}  // namespace ckpt
