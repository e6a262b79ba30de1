// A dataset ckptbench did not make (dataset.source=listed), read as a user
// points ckptbench at their own data: a directory of files in nested
// directories, and WebDataset TAR shards Python's tarfile wrote (a writer
// nobody here wrote, with three members per sample and keys that hold a
// directory). Each is listed, the shards indexed, every sample read once
// per epoch, and the run says that the bytes were not verified. A link in
// the directory and a hostile member name are refused, naming them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "nlohmann/json.hpp"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using json = nlohmann::json;

ProcessResult Dataload(const TempDir& t, const std::string& dir,
                       const std::string& format, const std::string& res,
                       std::map<std::string, std::string> env = {}) {
  env["CKPT_DATASET_PATH"] = dir;
  env["CKPT_DATASET_SOURCE"] = "listed";
  env["CKPT_DATASET_FORMAT"] = format;
  env["CKPT_WORKLOAD"] = "dataload";
  env["CKPT_NUM_DEVICES"] = "2";
  env["CKPT_EPOCHS"] = "2";
  env["CKPT_BATCH_SIZE"] = "4";
  env["CKPT_NUM_WORKERS"] = "2";
  env["CKPT_CACHE_MODE"] = "fadvise";
  return RunProcess({CkptbenchBinary(), "run", "--results-dir", t.Sub(res)},
                    env);
}

// `count` files of 1000 + 37 i bytes, half of them a directory deeper.
uint64_t WriteFiles(const std::string& dir, int count) {
  std::filesystem::create_directories(dir + "/a/b");
  uint64_t total = 0;
  for (int i = 0; i < count; ++i) {
    const std::string path = dir + (i % 2 ? "/a/" : "/a/b/") + "img" +
                             std::to_string(1000 + i) + ".jpg";
    std::ofstream(path) << std::string(1000 + 37 * i, static_cast<char>(i));
    total += 1000 + 37 * i;
  }
  return total;
}

TEST(ListedDataset, ADirectoryOfFilesIsReadOnceAnEpochUnverified) {
  TempDir t;
  const uint64_t bytes = WriteFiles(t.Sub("ds"), 64);
  ProcessResult r = Dataload(t, t.Sub("ds"), "files", "res");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("listed files: 64 samples"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("its bytes were read, not verified"), std::string::npos)
      << r.out;
  json j = json::parse(ReadFile(t.Sub("res/result.json")));
  const json& d = j["dataset"];
  EXPECT_EQ(d["source"], "listed");
  EXPECT_EQ(d["verified"], false);
  EXPECT_EQ(d["samples"], 64);
  EXPECT_EQ(d["objects"], 64);
  EXPECT_EQ(d["bytes"], bytes);
  EXPECT_EQ(d["listing"]["ignored_objects"], 0);
  EXPECT_GE(d["listing"]["list_seconds"].get<double>(), 0.0);
  ASSERT_EQ(j["rounds"].size(), 2u);
  uint64_t digests[2] = {0, 0};
  for (int e = 0; e < 2; ++e) {
    const json& round = j["rounds"][e];
    EXPECT_EQ(round["verified"], false);
    EXPECT_EQ(round["page_cache"]["resident_bytes_at_start"], 0);
    EXPECT_EQ(round["epoch"]["samples"], 64);
    EXPECT_EQ(round["epoch"]["bytes"], bytes);
    EXPECT_EQ(round["epoch"]["each_sample_once"], true);
    digests[e] = round["epoch"]["ranks"][0]["order_digest"];
  }
  EXPECT_NE(digests[0], digests[1]);  // another order the next epoch
}

TEST(ListedDataset, WebDatasetShardsPythonWroteAreIndexedAndRead) {
  TempDir t;
  // 5 shards of 13 to 17 samples, each <key>.jpg, .cls and .json, keys
  // "sub/img_NNNNNN"; a README beside them is not a shard.
  ProcessResult py = RunProcess(
      {"/usr/bin/python3", "-c",
       "import io, os, random, sys, tarfile\n"
       "random.seed(3); k = 0; d = sys.argv[1]\n"
       "os.makedirs(d + '/train')\n"
       "for s in range(5):\n"
       "  with tarfile.open(f'{d}/train/part-{s:03d}.tar', 'w') as t:\n"
       "    for i in range(13 + s):\n"
       "      key = f'sub/img_{k:06d}'; k += 1\n"
       "      for ext, n in (('jpg', random.randint(500, 40000)),\n"
       "                     ('cls', 3), ('json', random.randint(10, 200))):\n"
       "        ti = tarfile.TarInfo(f'{key}.{ext}'); ti.size = n\n"
       "        t.addfile(ti, io.BytesIO(os.urandom(n)))\n"
       "open(d + '/README.txt', 'w').write('not a shard')\n",
       t.Sub("ds")},
      {});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  uint64_t shard_bytes = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.Sub("ds/train"))) {
    shard_bytes += e.file_size();
  }
  for (const std::string access : {"map", "iterable"}) {
    SCOPED_TRACE(access);
    ProcessResult r = Dataload(
        t, t.Sub("ds"), "tar", "res-" + access,
        {{"CKPT_DATALOAD_ACCESS", access}, {"CKPT_DROP_LAST", "false"}});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    json j = json::parse(ReadFile(t.Sub("res-" + access + "/result.json")));
    const json& d = j["dataset"];
    EXPECT_EQ(d["samples"], 75);  // the keys, 13 + 14 + ... + 17
    EXPECT_EQ(d["objects"], 5);
    EXPECT_EQ(d["bytes"], shard_bytes);
    EXPECT_EQ(d["listing"]["ignored_objects"], 1);  // the README
    EXPECT_EQ(d["listing"]["index_bytes"], shard_bytes);
    EXPECT_GT(d["listing"]["index_seconds"].get<double>(), 0.0);
    for (const json& round : j["rounds"]) {
      const json& ep = round["epoch"];
      EXPECT_EQ(round["verified"], false);
      if (access == "iterable") {
        EXPECT_EQ(ep["samples"], 75);
        EXPECT_EQ(ep["each_sample_once"], true);
        EXPECT_EQ(ep["bytes"], shard_bytes);  // every shard, streamed whole
      } else {
        // 75 over 2 ranks, padded by one: 76 reads, 75 samples.
        EXPECT_EQ(ep["samples"], 76);
        EXPECT_EQ(ep["padded"], 1);
        // A sample's read runs from its .jpg's data to its .json's end.
        EXPECT_LT(ep["bytes"].get<uint64_t>(), shard_bytes);
        EXPECT_GT(ep["bytes"].get<uint64_t>(), shard_bytes / 2);
      }
    }
  }
}

TEST(ListedDataset, ALinkAndAHostileMemberAreRefusedNamingThem) {
  TempDir t;
  WriteFiles(t.Sub("ds"), 8);
  ASSERT_EQ(symlink("/etc/passwd", t.Sub("ds/a/b/secret.jpg").c_str()), 0);
  ProcessResult r = Dataload(t, t.Sub("ds"), "files", "res");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("secret.jpg is a link, device, FIFO or socket"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(std::filesystem::exists(t.Sub("res/result.json")));
  std::filesystem::remove(t.Sub("ds/a/b/secret.jpg"));

  // Names a terminal would act on are refused, shown escaped: an escape
  // sequence, and a bidirectional override (printable to CheckRelativeName,
  // but it reorders what a reader sees).
  { std::ofstream(t.Sub("ds/a/\x1b[31mred.jpg")) << "x"; }
  r = Dataload(t, t.Sub("ds"), "files", "res1");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("a/\\x1B[31mred.jpg': holds a control character"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("\x1b"), std::string::npos);
  std::filesystem::remove(t.Sub("ds/a/\x1b[31mred.jpg"));
  {
    std::ofstream(
        t.Sub("ds/a/gpj.\xe2\x80\xae"
              "evil.jpg"))
        << "x";
  }
  r = Dataload(t, t.Sub("ds"), "files", "res3");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("a/gpj.\\u{202E}evil.jpg, holds control characters, "
                       "bidirectional overrides"),
            std::string::npos)
      << r.err;
  std::filesystem::remove(
      t.Sub("ds/a/gpj.\xe2\x80\xae"
            "evil.jpg"));

  ProcessResult py =
      RunProcess({"/usr/bin/python3", "-c",
                  "import io, os, sys, tarfile\n"
                  "os.makedirs(sys.argv[1])\n"
                  "with tarfile.open(sys.argv[1] + '/evil.tar', 'w') as t:\n"
                  "  ti = tarfile.TarInfo('../../escape.jpg'); ti.size = 5\n"
                  "  t.addfile(ti, io.BytesIO(b'12345'))\n",
                  t.Sub("evil")},
                 {});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  r = Dataload(t, t.Sub("evil"), "tar", "res2");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("evil.tar"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("../../escape.jpg"), std::string::npos) << r.err;
}

// A directory of plain files read as TAR shards says which format reads
// them; TAR shards read as files are read, with a word on the other way.
TEST(ListedDataset, TheOtherFormatIsNamedWhenTheFilesAreOfIt) {
  TempDir t;
  WriteFiles(t.Sub("jpegs"), 8);
  ProcessResult r = Dataload(t, t.Sub("jpegs"), "tar", "r1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("hold no TAR shard (*.tar); dataset.format=files reads "
                       "each of its 8 files as one sample"),
            std::string::npos)
      << r.err;
  std::filesystem::create_directories(t.Sub("tars"));
  for (int i = 0; i < 4; ++i) {
    std::ofstream(t.Sub("tars/" + std::to_string(i) + ".tar"))
        << std::string(2048, 'x');
  }
  r = Dataload(t, t.Sub("tars"), "files", "r2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("all 4 objects are TAR shards (*.tar), each read as one "
                       "sample; dataset.format=tar reads their members"),
            std::string::npos)
      << r.err;
}

TEST(ListedDataset, DatagenOfAListedDatasetIsRefused) {
  TempDir t;
  ProcessResult r = RunProcess(
      {CkptbenchBinary(), "datagen", "-q"},
      {{"CKPT_DATASET_PATH", t.Sub("ds")}, {"CKPT_DATASET_SOURCE", "listed"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("dataset.source (CKPT_DATASET_SOURCE) = listed"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace ckpt
