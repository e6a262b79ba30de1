// The serve workload through the coordinator and in-process nodes: a
// generated model made once (its files shared between nodes, its manifest
// last), reused when it matches and refused when another is there; every
// node one replica loading it whole-files or tensor-parallel at 2 and 4
// ranks, each rank its plan's bytes, every byte verified; a flipped byte
// caught; a removal that takes exactly what it made.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "common/cuda.h"
#include "common/serving/model_files.h"
#include "common/serving/model_manifest.h"
#include "common/serving/serve_job.h"
#include "common/serving/serve_options.h"
#include "coordinator/config_checks.h"
#include "coordinator/json_codec.h"
#include "coordinator/serving/serve_results.h"
#include "coordinator/serving/serve_run.h"
#include "coordinator/summary.h"
#include "node/storage/forwarding_storage.h"
#include "node/storage/memory_storage.h"
#include "node/storage/posix_cold_read.h"
#include "node/storage/storage_factory.h"
#include "tests/testing/inprocess_run.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

constexpr char kUri[] = "mem://bucket/models/tiny";

Config ServeConfig(int ranks, ServeSplit split) {
  Config c;
  c.run.workload = kServeWorkload;
  c.model.name = "llama-3-tiny";
  c.cluster.num_devices = std::to_string(ranks);
  ServeOf(c).path = kUri;
  ServeOf(c).file_bytes = 1 << 20;
  ServeOf(c).chunk_bytes = 64 << 10;
  ServeOf(c).concurrency = 3;
  ServeOf(c).split = split;
  ServeOf(c).loads = 2;
  return c;
}

// The file at `uri`, "" when it is not there.
std::string ReadStored(const std::shared_ptr<MemoryStore>& memory,
                       const std::string& uri) {
  StorageSet set(memory);
  auto loc = set.Open(uri);
  if (!loc.ok()) return "";
  auto data = loc->storage->ReadSmall(loc->path);
  return data.ok() ? *data : std::string();
}

GeneratedFiles Model(const Config& c) {
  GeneratedModel m;
  m.preset = c.model.name;
  m.num_layers = c.model.num_layers;
  m.dtype = ServeOf(c).dtype;
  m.file_bytes = ServeOf(c).file_bytes;
  m.seed = ServeOf(c).seed;
  return *GeneratedModelFiles(m);
}

// The run's load rounds: every replica read its share, each rank once.
void ExpectLoads(const RunResult& result, int nodes, uint32_t ranks,
                 uint64_t read_bytes) {
  int loads = 0;
  for (const RoundResult& r : result.rounds) {
    const ReplicaLoadResult* load = ReplicaLoadOf(r);
    if (load == nullptr) continue;
    ++loads;
    EXPECT_EQ(r.status, RunStatus::kOk) << r.error;
    EXPECT_TRUE(load->verified);
    EXPECT_TRUE(r.verified);
    // Cold: every file's pages evicted before the clock, and none found
    // resident (memory holds no page cache: its method says so).
    EXPECT_FALSE(r.cache.method.empty());
    EXPECT_EQ(load->ranks, ranks);
    EXPECT_EQ(load->read_bytes, read_bytes);
    ASSERT_EQ(load->replicas.size(), static_cast<size_t>(nodes));
    ASSERT_EQ(load->rank_loads.size(), static_cast<size_t>(nodes) * ranks);
    for (const ReplicaLoadResult::Replica& p : load->replicas) {
      EXPECT_EQ(p.bytes, read_bytes);
      // Every rank read every file's header: 8 bytes, then N.
      EXPECT_EQ(p.header_reads, 2 * 5 * ranks);
      EXPECT_GT(p.requests, 0u);
      EXPECT_GT(p.headers_seconds, 0);
      EXPECT_LE(p.headers_seconds, p.load_seconds);
      EXPECT_LE(p.first_byte_seconds, p.load_seconds);
    }
    uint64_t sum = 0;
    for (const ReplicaLoadResult::Rank& k : load->rank_loads) {
      EXPECT_GT(k.bytes, 0u) << "node " << k.node << " rank " << k.rank;
      EXPECT_LE(k.first_byte_seconds, k.last_byte_seconds);
      sum += k.bytes;
    }
    EXPECT_EQ(sum, read_bytes * nodes);
    EXPECT_EQ(r.bytes, read_bytes * nodes);
  }
  EXPECT_EQ(loads, 2);
}

TEST(Serve, TwoReplicasMakeTheModelOnceAndLoadItInEachSplit) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(2, ServeSplit::kFiles);
  const GeneratedFiles model = Model(c);
  ASSERT_GE(model.files.size(), 4u);
  {
    InProcessRun h(memory, c, 2);
    ASSERT_TRUE(h.Run().ok()) << h.result.errors.size();
    const ServingModelResult* m = ServingModelOf(h.result);
    ASSERT_NE(m, nullptr);
    EXPECT_FALSE(m->reused);
    EXPECT_EQ(m->written_files, model.files.size());
    EXPECT_EQ(m->written_bytes, model.bytes);
    EXPECT_EQ(m->files, model.files.size());
    ASSERT_EQ(h.result.rounds.size(), 3u);  // make, load 1, load 2
    const RoundResult& make = h.result.rounds[0];
    ASSERT_EQ(make.nodes.size(), 2u);
    EXPECT_GT(make.nodes[0].bytes, 0u);  // both wrote a share
    EXPECT_GT(make.nodes[1].bytes, 0u);
    EXPECT_EQ(make.nodes[0].bytes + make.nodes[1].bytes, model.bytes);
    // Whole files: each replica reads every byte of every file.
    ExpectLoads(h.result, 2, 2, model.bytes);
    const std::string table = SummaryTable(h.result);
    EXPECT_THAT(table, HasSubstr("serve, 2 replica(s) of 2 rank(s)"));
    EXPECT_THAT(table, HasSubstr("made by this run"));
    EXPECT_THAT(table, HasSubstr("stream, files x 2, verified"));
  }
  auto manifest = ModelManifestFromJson(
      ReadStored(memory, std::string(kUri) + "/" + kModelManifestName),
      "manifest");
  ASSERT_TRUE(manifest.ok()) << manifest.status();
  EXPECT_EQ(manifest->files, model.files.size());
  EXPECT_EQ(manifest->bytes, model.bytes);
  EXPECT_THAT(ReadStored(memory, std::string(kUri) + "/" + kModelIndexName),
              HasSubstr("weight_map"));
  EXPECT_THAT(ReadStored(memory, std::string(kUri) + "/" + kModelConfigName),
              HasSubstr("\"LlamaForCausalLM\""));
  // Tensor-parallel at 4 ranks: the model reused, each rank its slices
  // (the norms replicated: read by every rank; 2 KV heads over 4 ranks:
  // each head read by 2).
  c = ServeConfig(4, ServeSplit::kTp);
  InProcessRun h(memory, c, 2);
  ASSERT_TRUE(h.Run().ok());
  ASSERT_NE(ServingModelOf(h.result), nullptr);
  EXPECT_TRUE(ServingModelOf(h.result)->reused);
  uint64_t tensor_bytes = 0, norms = 0, kv = 0;
  for (const ModelFile& f : model.files) {
    for (const StTensor& t : f.tensors) {
      tensor_bytes += t.Bytes();
      if (t.shape.size() == 1) norms += t.Bytes();
      if (absl::StrContains(t.name, "k_proj") ||
          absl::StrContains(t.name, "v_proj")) {
        kv += t.Bytes();
      }
    }
  }
  ExpectLoads(h.result, 2, 4, tensor_bytes + 3 * norms + kv);
  EXPECT_THAT(SummaryTable(h.result), HasSubstr("stream, tp x 4, verified"));

  // Through result.json and back: the same sections, the same file.
  const std::string text = ResultToJson(h.result);
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ResultToJson(*back), text);
  ASSERT_NE(ServingModelOf(*back), nullptr);
  EXPECT_TRUE(ServingModelOf(*back)->reused);
  EXPECT_EQ(ServingModelOf(*back)->files, model.files.size());
  ASSERT_EQ(back->rounds.size(), 3u);
  const ReplicaLoadResult* load = ReplicaLoadOf(back->rounds[1]);
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->split, ServeSplit::kTp);
  EXPECT_EQ(load->rank_loads.size(), 8u);
  EXPECT_EQ(load->replicas[1].bytes, tensor_bytes + 3 * norms + kv);
  EXPECT_EQ(SummaryTable(*back), SummaryTable(h.result));

  // The report's section: every replica of both loads, and the first
  // load's 8 ranks on a timeline.
  ReportInput input;
  input.runs.push_back({"run-a", &h.result, "", {}});
  const std::string html = ReplicaLoadSection(input);
  EXPECT_THAT(html, HasSubstr("Serving replicas"));
  EXPECT_THAT(html, HasSubstr("stream, tp x 4, verified"));
  EXPECT_THAT(html, HasSubstr("node 1 rank 3"));
  EXPECT_THAT(html, HasSubstr("<svg"));
  EXPECT_EQ(ReplicaLoadSection(ReportInput{}), "");
}

// A file system whose eviction leaves pages resident (drop_caches or
// fadvise that cannot clear them), as the posix backend reports it: what
// the caller's reads can do decides whether O_DIRECT is promised.
// What the nodes asked (they prepare at once, each from its own thread).
struct AskedFallbacks {
  std::mutex mu;
  std::vector<DirectFallback> asked;  // guarded by mu
};

class ResidueStorage : public ForwardingStorage {
 public:
  ResidueStorage(std::shared_ptr<Storage> inner,
                 std::shared_ptr<AskedFallbacks> asked)
      : ForwardingStorage(std::move(inner)), asked_(std::move(asked)) {}
  absl::StatusOr<CacheReport> PrepareColdRead(const std::vector<std::string>&,
                                              CacheMode mode,
                                              DirectFallback direct) override {
    {
      std::lock_guard<std::mutex> lock(asked_->mu);
      asked_->asked.push_back(direct);
    }
    CacheReport r;
    r.method = CacheMethod::kDropCaches;
    r.resident_bytes = 4096;
    r.checked_bytes = 1 << 20;
    SettleResidue(mode, direct, &r);
    return r;
  }

 private:
  std::shared_ptr<AskedFallbacks> asked_;
};

// A serve load reads through the page cache in stream and download: where
// eviction left pages cached, the round keeps the method that evicted,
// says the reads may be served from the cache and is flagged, and is never
// labelled o_direct (which only serve.read_mode=direct reads with). Asking
// O_DIRECT of those read modes is refused before any round, naming keys.
TEST(Serve, PagesEvictionLeftAreFlaggedNotPromisedODirect) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(2, ServeSplit::kTp);
  c.io.cache_mode = CacheMode::kAuto;
  ServeOf(c).loads = 1;
  auto asked = std::make_shared<AskedFallbacks>();
  memory->SetWrapper([asked](std::shared_ptr<Storage> inner) {
    return std::shared_ptr<Storage>(
        std::make_shared<ResidueStorage>(std::move(inner), asked));
  });
  TempDir local;
  for (ServeReadMode mode :
       {ServeReadMode::kStream, ServeReadMode::kDownload}) {
    ServeOf(c).read_mode = mode;
    ServeOf(c).download_path = local.path();
    {
      std::lock_guard<std::mutex> lock(asked->mu);
      asked->asked.clear();
    }
    InProcessRun h(memory, c, 2);
    ASSERT_TRUE(h.Run().ok()) << Name(mode);
    ASSERT_EQ(h.result.rounds.size(), 2u);  // the make, one load
    const RoundResult& load = h.result.rounds[1];
    EXPECT_EQ(load.cache.method, "drop_caches") << Name(mode);
    EXPECT_EQ(load.cache.resident_bytes, 2u * 4096) << Name(mode);
    EXPECT_THAT(load.cache.note, HasSubstr("cannot use O_DIRECT"));
    EXPECT_THAT(load.flags, ::testing::Contains(RoundFlag::kPageCacheResident));
    std::lock_guard<std::mutex> lock(asked->mu);
    ASSERT_EQ(asked->asked.size(), 2u) << Name(mode);  // one per replica
    for (DirectFallback d : asked->asked) {
      EXPECT_EQ(d, DirectFallback::kUnavailable);
    }
  }
  memory->SetWrapper(nullptr);
  c.io.cache_mode = CacheMode::kDirect;
  EXPECT_THAT(CheckServeKeys(c, {}).message(),
              HasSubstr("io.cache_mode (CKPT_CACHE_MODE) = direct with "
                        "serve.read_mode (CKPT_SERVE_READ_MODE) = download"));
  c.io.cache_mode = CacheMode::kAuto;
  c.io.direct_read = true;
  ServeOf(c).read_mode = ServeReadMode::kStream;
  EXPECT_THAT(CheckServeKeys(c, {}).message(),
              HasSubstr("io.direct_read (CKPT_DIRECT_READ) = true"));
  ServeOf(c).read_mode = ServeReadMode::kDirect;
  ServeOf(c).path = "/var/tmp/ckptbench-models/tiny";
  EXPECT_TRUE(CheckServeKeys(c, {}).ok());
}

TEST(Serve, AMatchingModelIsReusedAndAnotherRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(2, ServeSplit::kTp);
  c.cluster.num_devices = "2";
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  const size_t paths = memory->AllPaths().size();
  Config other = c;
  ServeOf(other).seed = 99;
  InProcessRun h(memory, other);
  const absl::Status s = h.Run();
  ASSERT_FALSE(s.ok());
  ASSERT_FALSE(h.result.rounds.empty());
  EXPECT_THAT(h.result.rounds[0].error, HasSubstr("holds another model"));
  EXPECT_THAT(h.result.rounds[0].error, HasSubstr("seed 1"));
  EXPECT_EQ(memory->AllPaths().size(), paths);  // nothing written
}

TEST(Serve, AFlippedTensorByteFailsTheLoadNamingTheFile) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(2, ServeSplit::kTp);
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  const GeneratedFiles model = Model(c);
  const ModelFile& f = model.files[1];
  const std::string path = std::string(kUri) + "/" + f.name;
  ASSERT_TRUE(memory->FlipByte(path, f.header.size() + 100));
  InProcessRun h(memory, c);
  ASSERT_FALSE(h.Run().ok());
  ASSERT_EQ(h.result.rounds.size(), 2u);  // the make (reused), load 1
  EXPECT_EQ(h.result.rounds[1].status, RunStatus::kFailed);
  EXPECT_THAT(h.result.rounds[1].error, HasSubstr(f.name));
}

TEST(Serve, ARemovalTakesExactlyTheFilesItMade) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(1, ServeSplit::kFiles);
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  memory->Put(std::string(kUri) + "/README.md", "the user's own");
  memory->Put("mem://bucket/models/other/model.safetensors", "not ours");
  ServeOf(c).remove = true;
  InProcessRun h(memory, c);
  ASSERT_TRUE(h.Run().ok());
  ASSERT_NE(ServingModelOf(h.result), nullptr);
  EXPECT_TRUE(ServingModelOf(h.result)->removed);
  EXPECT_EQ(ServingModelOf(h.result)->files, Model(c).files.size());
  std::vector<std::string> left = memory->AllPaths();
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{
                      "mem://bucket/models/other/model.safetensors",
                      std::string(kUri) + "/README.md"}));
  // Nothing to remove now: said, naming the directory.
  InProcessRun again(memory, c);
  ASSERT_FALSE(again.Run().ok());
  ASSERT_FALSE(again.result.rounds.empty());
  EXPECT_THAT(again.result.rounds[0].error, HasSubstr("no model ckptbench"));
}

// A model made by a build that wrote no config.json gets it from the next
// run that reuses it; a config.json other than the one ckptbench writes (a
// user's) stays when the model is removed, with its directory.
TEST(Serve, AnOlderModelGetsItsConfigAndAUsersConfigStays) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(1, ServeSplit::kFiles);
  ServeOf(c).loads = 1;
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  const std::string config = std::string(kUri) + "/" + kModelConfigName;
  memory->MovePrefix(config, "mem://bucket/old/config.json");
  ASSERT_EQ(ReadStored(memory, config), "");
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
    ASSERT_NE(ServingModelOf(h.result), nullptr);
    EXPECT_TRUE(ServingModelOf(h.result)->reused);
  }
  EXPECT_EQ(ReadStored(memory, config), Model(c).config);
  memory->Put(config, "{\"the\": \"user's\"}");
  ServeOf(c).remove = true;
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  std::vector<std::string> left = memory->AllPaths();
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left,
            (std::vector<std::string>{"mem://bucket/models/tiny/config.json",
                                      "mem://bucket/old/config.json"}));
  EXPECT_EQ(ReadStored(memory, config), "{\"the\": \"user's\"}");
}

// mmap and direct read a file system: a model in memory (as an object
// store's) is refused at prepare naming the mode and where, and an object
// store's path with mmap before any node is asked; download reads any
// storage.
TEST(Serve, AReadModeTheStorageHasNotIsRefused) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(1, ServeSplit::kFiles);
  {
    InProcessRun h(memory, c);
    ASSERT_TRUE(h.Run().ok());
  }
  ServeOf(c).read_mode = ServeReadMode::kMmap;
  InProcessRun h(memory, c);
  ASSERT_FALSE(h.Run().ok());
  ASSERT_EQ(h.result.rounds.size(), 2u);  // the make (reused), load 1
  EXPECT_THAT(h.result.rounds[1].error,
              HasSubstr("serve.read_mode = mmap at mem://bucket/models/tiny"));
  ServeOf(c).path = "s3://bucket/models/tiny";
  absl::Status s = CheckServeKeys(c, {});
  EXPECT_THAT(s.message(),
              HasSubstr("expected stream or download for an object store"));
  ServeOf(c).read_mode = ServeReadMode::kDownload;
  EXPECT_TRUE(CheckServeKeys(c, {}).ok());
  ServeOf(c).read_mode = ServeReadMode::kStream;
  // Into GPU memory: on a node with none (this machine), refused before
  // any round (no model made first) naming the key; with one, the shares
  // held there.
  c.cluster.accelerator = Accelerator::kGpu;
  EXPECT_TRUE(CheckServeKeys(c, {}).ok());
  {
    Config g = ServeConfig(2, ServeSplit::kTp);
    g.cluster.accelerator = Accelerator::kGpu;
    InProcessRun gpu(memory, g);
    const absl::Status st = gpu.Run();
    if (!cuda::DeviceCount().ok()) {
      ASSERT_FALSE(st.ok());
      EXPECT_TRUE(gpu.result.rounds.empty());
      EXPECT_THAT(st.message(),
                  HasSubstr("cluster.accelerator (ACCELERATOR) = 'gpu'"));
    } else {
      ASSERT_TRUE(st.ok()) << st;
      const ReplicaLoadResult* load = ReplicaLoadOf(gpu.result.rounds[1]);
      ASSERT_NE(load, nullptr);
      EXPECT_TRUE(load->on_gpu);
      EXPECT_TRUE(load->verified);
      EXPECT_THAT(SummaryTable(gpu.result), HasSubstr("held on GPUs"));
    }
  }
  c.cluster.accelerator = Accelerator::kCpu;
  EXPECT_TRUE(CheckServeKeys(c, {}).ok());
  // serve.path alone places the model (no storage.path needed), and the
  // dataset workloads' checks leave a serve run alone.
  EXPECT_TRUE(c.storage.path.empty());
  ServeOf(c).path = "/var/tmp/ckptbench-models/tiny";
  EXPECT_TRUE(ValidateConfig(c, true).ok()) << ValidateConfig(c, true);
  ServeOf(c).path.clear();
  EXPECT_THAT(CheckServeKeys(c, {}).message(),
              HasSubstr("serve.path (CKPT_SERVE_PATH) is not set"));
}

// download: each replica copies the model's files, index and config.json
// whole to serve.download_path (a directory of the run's in it), then reads the
// headers and its tensor-parallel slices from the copy, every byte
// verified; the copy is removed after each load, and what the user had in
// the directory stays. A flipped byte at the source is caught in the copy
// (which is removed all the same); a download_path that is not a
// directory is refused at prepare, naming the key.
TEST(Serve, DownloadCopiesTheModelToTheNodeAndLoadsTheCopy) {
  auto memory = std::make_shared<MemoryStore>();
  TempDir local;
  Config c = ServeConfig(2, ServeSplit::kTp);
  ServeOf(c).read_mode = ServeReadMode::kDownload;
  ServeOf(c).download_path = local.path();
  memory->Put("mem://bucket/models/tiny/notes.txt", "not the model's");
  {
    std::ofstream keep(local.Sub("keep.txt"));
    keep << "the user's";
  }
  const GeneratedFiles model = Model(c);
  InProcessRun h(memory, c, 2);
  const absl::Status run = h.Run();
  ASSERT_TRUE(run.ok()) << run;
  // The copy takes the index and config.json with the safetensors files.
  const std::string config =
      ReadStored(memory, std::string(kUri) + "/" + kModelConfigName);
  EXPECT_EQ(config, model.config);
  const uint64_t index =
      ReadStored(memory, std::string(kUri) + "/" + kModelIndexName).size() +
      config.size();
  ASSERT_GT(index, config.size());
  ASSERT_FALSE(config.empty());
  int loads = 0;
  for (const RoundResult& r : h.result.rounds) {
    const ReplicaLoadResult* load = ReplicaLoadOf(r);
    if (load == nullptr) continue;
    ++loads;
    EXPECT_EQ(r.status, RunStatus::kOk) << r.error;
    EXPECT_TRUE(load->verified);
    EXPECT_EQ(load->read_mode, ServeReadMode::kDownload);
    ASSERT_EQ(load->replicas.size(), 2u);
    for (const ReplicaLoadResult::Replica& p : load->replicas) {
      EXPECT_EQ(p.download_bytes, model.bytes + index);
      // 64 KiB reads: at least one per 64 KiB of each file.
      EXPECT_GE(p.download_requests, model.bytes / (64 << 10));
      EXPECT_GT(p.download_seconds, 0);
      // The copy first; then each rank its headers, then its tensors (the
      // slowest rank's headers may come after the fastest's first byte).
      EXPECT_LE(p.download_seconds, p.headers_seconds);
      EXPECT_LE(p.download_seconds, p.first_byte_seconds);
      EXPECT_LE(p.headers_seconds, p.load_seconds);
      EXPECT_LE(p.first_byte_seconds, p.load_seconds);
      EXPECT_EQ(p.bytes, load->read_bytes);
    }
  }
  EXPECT_EQ(loads, 2);
  EXPECT_EQ(CountFiles(local.path()), 1u);  // keep.txt; the copies gone
  EXPECT_THAT(SummaryTable(h.result), HasSubstr("download (copied in "));
  const std::string text = ResultToJson(h.result);
  EXPECT_THAT(text, HasSubstr("\"download_bytes\": " +
                              std::to_string(model.bytes + index)));
  auto back = ResultFromJson(text, "result.json");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(ResultToJson(*back), text);

  const ModelFile& f = model.files[1];
  ASSERT_TRUE(memory->FlipByte(std::string(kUri) + "/" + f.name,
                               f.header.size() + 100));
  InProcessRun bad(memory, c);
  ASSERT_FALSE(bad.Run().ok());
  ASSERT_EQ(bad.result.rounds.size(), 2u);
  EXPECT_THAT(bad.result.rounds[1].error, HasSubstr(f.name));
  EXPECT_THAT(bad.result.rounds[1].error, HasSubstr(".ckptbench-download-"));
  EXPECT_EQ(CountFiles(local.path()), 1u);

  ServeOf(c).download_path = local.Sub("keep.txt");
  InProcessRun refused(memory, c);
  ASSERT_FALSE(refused.Run().ok());
  ASSERT_EQ(refused.result.rounds.size(), 2u);
  EXPECT_THAT(
      refused.result.rounds[1].error,
      HasSubstr("serve.download_path (CKPT_SERVE_DOWNLOAD_PATH) = " +
                local.Sub("keep.txt") + ": expected a local directory"));
}

// serve.hold: every rank keeps its share in host memory, each chunk
// checked where it was put; said in the summary and result.json.
TEST(Serve, HeldSharesAreVerifiedWhereTheyLie) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(2, ServeSplit::kTp);
  ServeOf(c).hold = true;
  ServeOf(c).loads = 1;
  InProcessRun h(memory, c);
  ASSERT_TRUE(h.Run().ok());
  ASSERT_EQ(h.result.rounds.size(), 2u);
  const ReplicaLoadResult* load = ReplicaLoadOf(h.result.rounds[1]);
  ASSERT_NE(load, nullptr);
  EXPECT_TRUE(load->hold);
  EXPECT_TRUE(h.result.rounds[1].verified);
  EXPECT_EQ(load->replicas[0].bytes, load->read_bytes);
  EXPECT_THAT(SummaryTable(h.result), HasSubstr("verified, held in memory"));
  EXPECT_THAT(ResultToJson(h.result), HasSubstr("\"hold\": true"));
}

TEST(Serve, AClaimedDirectoryIsNotMadeOver) {
  auto memory = std::make_shared<MemoryStore>();
  Config c = ServeConfig(1, ServeSplit::kFiles);
  memory->Put(std::string(kUri) + "/.ckptbench-datagen/.ckptbench-claim",
              "another-run");
  InProcessRun h(memory, c);
  ASSERT_FALSE(h.Run().ok());
  ASSERT_FALSE(h.result.rounds.empty());
  EXPECT_THAT(h.result.rounds[0].error, HasSubstr("is claimed"));
  EXPECT_EQ(memory->AllPaths().size(), 1u);
}

}  // namespace
}  // namespace ckpt
