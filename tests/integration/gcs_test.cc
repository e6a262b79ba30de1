// The gs backend against the project's GCS test server: single-request,
// resumable and composite uploads, ranged loads, CRC32C mismatch on load,
// a chunk cut by a reset resumed from the committed offset, a dropped
// session, and whole runs of `ckptbench run` with CKPT_DIR_PATH=gs://
// (a 429 storm retried and counted, missing credentials refused up front).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "node/storage/gcs_storage.h"
#include "node/storage/gcs_upload.h"
#include "tests/testing/gcs_server.h"
#include "tests/testing/http_wire.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

using nlohmann::json;

std::string Bytes(size_t n, unsigned seed) {
  std::string s(n, '\0');
  uint32_t x = seed * 2654435761u + 1;
  for (auto& c : s) {
    x = x * 1664525u + 1013904223u;
    c = static_cast<char>(x >> 24);
  }
  return s;
}

class GcsTest : public ::testing::Test {
 protected:
  std::unique_ptr<GcsStorage> Storage(GcsConfig c = {}) {
    c.endpoint = server_.url();
    c.max_attempts = 4;
    auto creds =
        std::make_shared<GcsCredentials>([url = server_.url()](const char* n) {
          static std::string u;
          u = url;
          return std::string(n) == "STORAGE_EMULATOR_HOST" ? u.c_str()
                                                           : nullptr;
        });
    return std::make_unique<GcsStorage>(c, creds);
  }
  // Writes `data` in 100 KiB appends, then Sync.
  absl::Status Write(ckpt::Storage& s, const std::string& path,
                     const std::string& data) {
    auto f = s.OpenWrite(path, {});
    if (!f.ok()) return f.status();
    for (size_t at = 0; at < data.size(); at += 100 * 1024) {
      size_t n = std::min<size_t>(100 * 1024, data.size() - at);
      if (auto st = (*f)->Append(data.data() + at, n); !st.ok()) return st;
    }
    return (*f)->Sync();
  }
  absl::StatusOr<std::string> ReadAll(ckpt::Storage& s,
                                      const std::string& path) {
    auto f = s.OpenRead(path, {});
    if (!f.ok()) return f.status();
    std::string out((*f)->Size(), '\0');
    size_t at = 0;
    while (at < out.size()) {
      auto n = (*f)->Read(at, out.data() + at,
                          std::min<size_t>(1 << 20, out.size() - at));
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      at += *n;
    }
    return out;
  }
  // Reads `size` bytes of `path` opened with that size: the first error.
  absl::Status ReadSized(ckpt::Storage& s, const std::string& path,
                         uint64_t size) {
    ReadOptions o;
    o.size = size;
    auto f = s.OpenRead(path, o);
    if (!f.ok()) return f.status();
    std::string buf(size, '\0');
    for (size_t at = 0; at < buf.size();) {
      auto n = (*f)->Read(at, buf.data() + at, buf.size() - at);
      if (!n.ok()) return n.status();
      if (*n == 0) break;
      at += *n;
    }
    return absl::OkStatus();
  }
  int Count(const std::string& method, const std::string& needle) {
    int n = 0;
    for (const auto& r : server_.requests())
      if (r.method == method && r.target.find(needle) != std::string::npos) ++n;
    return n;
  }
  GcsTestServer server_;
};

TEST_F(GcsTest, SmallObjectsGoUpInOneRequestAndReadBack) {
  auto s = Storage();
  std::string data = Bytes(300 * 1024, 1);
  ASSERT_TRUE(Write(*s, "gs://bucket/run/step-1/__0_0.distcp", data).ok());
  EXPECT_EQ(Count("POST", "uploadType=multipart"), 1);
  EXPECT_EQ(Count("POST", "uploadType=resumable"), 0);
  EXPECT_EQ(server_.ObjectBytes("bucket", "run/step-1/__0_0.distcp"), data);
  auto back = ReadAll(*s, "gs://bucket/run/step-1/__0_0.distcp");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, data);
  auto names = s->ListDir("gs://bucket/run");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, std::vector<std::string>{"step-1"});
  ASSERT_TRUE(s->RemoveFiles("gs://bucket/run/step-1", {"__0_0.distcp"}).ok());
  EXPECT_TRUE(server_.ObjectNames("bucket").empty());
}

TEST_F(GcsTest, LargeObjectsUseAResumableSessionInChunksAndRangedReads) {
  GcsConfig c;
  c.single_threshold = 256 * 1024;
  c.chunk_size = 512 * 1024;
  c.range_size = 128 * 1024;
  c.ranges_in_flight = 3;
  auto s = Storage(c);
  std::string data = Bytes(5 * 512 * 1024 + 12345, 2);
  ASSERT_TRUE(Write(*s, "gs://bucket/big", data).ok());
  EXPECT_EQ(Count("POST", "uploadType=resumable"), 1);
  std::vector<std::string> ranges;
  for (const auto& r : server_.requests())
    if (r.method == "PUT") ranges.push_back(r.content_range);
  ASSERT_EQ(ranges.size(), 6u);
  EXPECT_EQ(ranges[0], "bytes 0-524287/*");
  EXPECT_EQ(ranges[5], "bytes 2621440-2633784/2633785");
  EXPECT_EQ(server_.ObjectBytes("bucket", "big"), data);
  EXPECT_EQ(server_.open_sessions(), 0u);
  auto back = ReadAll(*s, "gs://bucket/big");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, data);
  EXPECT_EQ(Count("GET", "alt=media"),
            static_cast<int>((data.size() + c.range_size - 1) / c.range_size));
}

TEST_F(GcsTest, CompositeUploadsComposeMoreThan32PartsAndDeleteThem) {
  GcsConfig c;
  c.upload = GcsUpload::kComposite;
  c.single_threshold = 256 * 1024;
  c.chunk_size = 256 * 1024;
  c.parts_in_flight = 4;
  auto s = Storage(c);
  std::string data = Bytes(40 * 256 * 1024 + 7, 3);
  ASSERT_TRUE(Write(*s, "gs://bucket/comp", data).ok());
  EXPECT_EQ(Count("POST", "/compose"), 2);  // 32 parts, then it + 9
  EXPECT_EQ(server_.ObjectBytes("bucket", "comp"), data);
  EXPECT_EQ(server_.ObjectNames("bucket"), std::vector<std::string>{"comp"});
  auto back = ReadAll(*s, "gs://bucket/comp");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, data);
}

// Uploads take their buffers from the client's pool: objects written in
// turn (composite, resumable and one-request alike) reuse those of the
// ones before, and each arrives whole.
TEST_F(GcsTest, ObjectsWrittenInTurnReuseTheClientsBuffers) {
  for (GcsUpload kind : {GcsUpload::kComposite, GcsUpload::kResumable}) {
    GcsConfig c;
    c.endpoint = server_.url();
    c.upload = kind;
    c.single_threshold = c.chunk_size = BufferPool::kPooledFrom;
    c.parts_in_flight = 2;
    auto client = std::make_shared<GcsClient>(
        c,
        std::make_shared<GcsCredentials>([url = server_.url()](const char* n) {
          static std::string u;
          u = url;
          return std::string(n) == "STORAGE_EMULATOR_HOST" ? u.c_str()
                                                           : nullptr;
        }));
    for (int i = 0; i < 6; ++i) {
      const size_t size = i % 2 == 0 ? 3 * c.chunk_size + 4321 : 100 * 1024;
      const std::string name =
          absl::StrCat("reuse-", std::string(Name(kind)), "-", i);
      const std::string data = Bytes(size, static_cast<unsigned>(i + 7));
      auto f = NewGcsWritableFile(client, {"bucket", name});
      for (size_t at = 0; at < data.size(); at += 300 * 1024) {
        const size_t n = std::min<size_t>(300 * 1024, data.size() - at);
        ASSERT_TRUE(f->Append(data.data() + at, n).ok());
      }
      ASSERT_TRUE(f->Sync().ok()) << name;
      EXPECT_TRUE(server_.ObjectBytes("bucket", name) == data) << name;
    }
    // An object holds its buffer and parts_in_flight + 1 parts at most
    // (one copied out while it waits for a slot); in turn, the same ones.
    EXPECT_LE(client->buffers().made_count(),
              static_cast<size_t>(c.parts_in_flight) + 2)
        << Name(kind);
    EXPECT_EQ(client->buffers().lent_count(), 0u);
  }
}

// A threshold far past the machine's memory (64 GiB here) holds no such
// buffer: it starts small and doubles as the object fills it, so small
// and middling objects still go up in one request each.
TEST_F(GcsTest, AHugeSingleThresholdBuffersOnlyWhatTheObjectHolds) {
  GcsConfig c;
  c.single_threshold = uint64_t{64} << 30;
  auto s = Storage(c);
  for (size_t size : {size_t{100} * 1024, size_t{20} << 20}) {
    const std::string name = "huge-threshold-" + std::to_string(size);
    const std::string data = Bytes(size, 9);
    ASSERT_TRUE(Write(*s, "gs://bucket/" + name, data).ok()) << size;
    EXPECT_TRUE(server_.ObjectBytes("bucket", name) == data) << size;
  }
  EXPECT_EQ(Count("POST", "uploadType=multipart"), 2);
  EXPECT_EQ(Count("POST", "uploadType=resumable"), 0);
}

// A composite upload whose process died before the compose leaves part
// objects: AbortUploads (run after a failed save) deletes those of the
// named files only.
TEST_F(GcsTest, PartsAKilledCompositeUploadLeftAreDeletedByName) {
  auto s = Storage();
  const std::string dir = "gs://bucket/ck/checkpoints/step-1";
  for (const char* part : {"__0_0.distcp.parts/0", "__0_0.distcp.parts/1",
                           "__1_0.distcp.parts/0", "theirs.parts/0"}) {
    ASSERT_TRUE(s->WriteAtomic(dir + "/" + part, "x").ok()) << part;
  }
  auto n = s->AbortUploads(dir, {"__0_0.distcp", "__1_0.distcp"});
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 3);
  EXPECT_EQ(server_.ObjectNames("bucket"),
            std::vector<std::string>{"ck/checkpoints/step-1/theirs.parts/0"});
}

TEST_F(GcsTest, CorruptedBytesFailTheLoadOnCrc32c) {
  GcsConfig c;
  c.range_size = 64 * 1024;
  auto s = Storage(c);
  std::string data = Bytes(700 * 1024, 4);
  ASSERT_TRUE(Write(*s, "gs://bucket/rot", data).ok());
  ASSERT_TRUE(server_.CorruptObject("bucket", "rot", 500 * 1024));
  auto back = ReadAll(*s, "gs://bucket/rot");
  ASSERT_FALSE(back.ok());
  EXPECT_TRUE(absl::IsDataLoss(back.status())) << back.status();
  EXPECT_NE(back.status().message().find("crc32c"), std::string::npos)
      << back.status();
  EXPECT_NE(back.status().message().find("gs://bucket/rot"), std::string::npos);
}

// Issue 29: a reader given the object's size (a load: the checkpoint's
// .metadata) sends no metadata GET; each ranged answer's total is checked
// against it, and the first answer's x-goog-hash stands for the object's:
// a wrong size is named, rotten bytes still fail the whole-object CRC32C.
TEST_F(GcsTest, AGivenSizeSkipsTheMetadataGetAndIsChecked) {
  GcsConfig c;
  c.range_size = 64 * 1024;
  auto s = Storage(c);
  std::string data = Bytes(300 * 1024, 5);
  ASSERT_TRUE(Write(*s, "gs://bucket/sized", data).ok());
  const int media0 = Count("GET", "alt=media");
  const size_t all0 = server_.requests().size();
  ReadOptions sized;
  sized.size = data.size();
  {
    auto f = s->OpenRead("gs://bucket/sized", sized);
    ASSERT_TRUE(f.ok()) << f.status();
    std::string back(data.size(), '\0');
    size_t at = 0;
    while (at < back.size()) {
      auto n = (*f)->Read(at, back.data() + at, back.size() - at);
      ASSERT_TRUE(n.ok()) << n.status();
      ASSERT_GT(*n, 0u);
      at += *n;
    }
    EXPECT_EQ(back, data);
  }
  // Five 64 KiB ranges, nothing else.
  EXPECT_EQ(Count("GET", "alt=media") - media0, 5);
  EXPECT_EQ(server_.requests().size() - all0, 5u);
  for (uint64_t wrong : {uint64_t{200 * 1024}, uint64_t{400 * 1024}}) {
    const absl::Status st = ReadSized(*s, "gs://bucket/sized", wrong);
    ASSERT_FALSE(st.ok()) << wrong;
    EXPECT_TRUE(absl::IsDataLoss(st)) << st;
    EXPECT_NE(
        st.message().find(absl::StrCat(
            "gs://bucket/sized is 307200 bytes; the reader expected ", wrong)),
        std::string::npos)
        << st;
  }
  // A server that leaves out what shows the range, the size or the object
  // is not believed.
  for (const char* dropped : {"Content-Range", "x-goog-hash"}) {
    GcsServerFault strip;
    strip.match = "alt=media";
    strip.drop_headers = {dropped};
    server_.AddFault(strip);
    auto st = ReadSized(*s, "gs://bucket/sized", data.size());
    EXPECT_TRUE(absl::IsDataLoss(st)) << dropped << ": " << st;
    EXPECT_NE(st.message().find(std::string(dropped) == "Content-Range"
                                    ? "without the object's size"
                                    : "without an x-goog-hash crc32c"),
              std::string::npos)
        << st;
  }
  // An empty object read as a 300 KiB one: the range is refused (416), and
  // the metadata then names the size.
  ASSERT_TRUE(Write(*s, "gs://bucket/empty", "").ok());
  auto empty = ReadSized(*s, "gs://bucket/empty", data.size());
  EXPECT_TRUE(absl::IsDataLoss(empty)) << empty;
  EXPECT_NE(
      empty.message().find("gs://bucket/empty is 0 bytes; the reader expected "
                           "307200"),
      std::string::npos)
      << empty;
  ASSERT_TRUE(server_.CorruptObject("bucket", "sized", 200 * 1024));
  const absl::Status st = ReadSized(*s, "gs://bucket/sized", data.size());
  EXPECT_TRUE(absl::IsDataLoss(st)) << st;
  EXPECT_NE(st.message().find("crc32c"), std::string::npos) << st;
}

TEST_F(GcsTest, AChunkCutByAResetResumesFromTheCommittedOffset) {
  GcsConfig c;
  c.single_threshold = 256 * 1024;
  c.chunk_size = 1024 * 1024;
  auto s = Storage(c);
  // The first chunk (1 MiB) is cut after 600 KiB: the server keeps its 2
  // whole 256 KiB units.
  server_.AddFault({"PUT", 0, 600 * 1024, false, 1});
  std::string data = Bytes(3 * 1024 * 1024 + 99, 5);
  ASSERT_TRUE(Write(*s, "gs://bucket/resumed", data).ok());
  EXPECT_EQ(server_.ObjectBytes("bucket", "resumed"), data);
  std::vector<std::string> ranges;
  for (const auto& r : server_.requests())
    if (r.method == "PUT") ranges.push_back(r.content_range);
  ASSERT_GE(ranges.size(), 3u);
  EXPECT_EQ(ranges[0], "bytes 0-1048575/*");       // cut after 600 KiB
  EXPECT_EQ(ranges[1], "bytes */*");               // how much do you hold?
  EXPECT_EQ(ranges[2], "bytes 524288-1048575/*");  // from the committed end
  EXPECT_EQ(server_.faults_injected(), 1);
}

TEST_F(GcsTest, LoadsAreRetriedThrough408And503AndResets) {
  GcsConfig c;
  c.range_size = 64 * 1024;
  auto s = Storage(c);
  std::string data = Bytes(400 * 1024, 7);
  ASSERT_TRUE(Write(*s, "gs://bucket/retried", data).ok());
  server_.AddFault({"alt=media", 408, SIZE_MAX, false, 1});
  server_.AddFault({"alt=media", 503, SIZE_MAX, false, 1});
  GcsServerFault cut;
  cut.match = "alt=media";
  cut.cut_reply = true;  // a reset in the middle of a ranged GET's bytes
  server_.AddFault(cut);
  const ObjectStoreCounters& counters = s->counters();
  const uint64_t retries0 = counters.retries;
  auto back = ReadAll(*s, "gs://bucket/retried");
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, data);
  EXPECT_EQ(server_.faults_injected(), 3);
  EXPECT_EQ(counters.retries - retries0, 3u);
}

TEST_F(GcsTest, ADroppedSessionFailsTheUploadClearly) {
  GcsConfig c;
  c.single_threshold = 256 * 1024;
  c.chunk_size = 256 * 1024;
  auto s = Storage(c);
  server_.AddFault({"upload_id", 0, SIZE_MAX, true, 1});
  auto st = Write(*s, "gs://bucket/dropped", Bytes(1024 * 1024, 6));
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("resumable session is gone"), std::string::npos)
      << st;
  EXPECT_EQ(st.message().find("upload_id"), std::string::npos) << st;
}

// GCS answers a status query on a finished resumable upload with 200 or 201
// and the object's metadata (its docs, "Check the status of a resumable
// upload"): a client whose last chunk's reply was lost learns that its
// object is whole. The test server once forgot a session as it finished,
// and answered 404. curl, not ckptbench, makes the requests here.
TEST_F(GcsTest, AFinishedSessionAnswersAStatusQueryWithItsObject) {
  auto curl = [](std::vector<std::string> args) {
    std::vector<std::string> argv = {"/usr/bin/curl", "-sS"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunProcess(argv, {});
  };
  auto start = curl(
      {"-D", "-", "-o", "/dev/null", "-X", "POST", "-H", "Content-Length: 0",
       server_.url() +
           "/upload/storage/v1/b/bucket/o?uploadType=resumable&name=d"});
  ASSERT_EQ(start.exit_code, 0) << start.err;
  const std::string session = HeaderValue(start.out, "location");
  ASSERT_NE(session.find("upload_id="), std::string::npos) << start.out;
  auto last =
      curl({"-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "-H",
            "Content-Range: bytes 0-3/4", "--data-binary", "abcd", session});
  EXPECT_EQ(last.out, "200") << last.err;
  for (int i = 0; i < 2; ++i) {
    auto status =
        curl({"-w", "\n%{http_code}", "-X", "PUT", "-H",
              "Content-Range: bytes */4", "-H", "Content-Length: 0", session});
    const size_t nl = status.out.rfind('\n');
    ASSERT_NE(nl, std::string::npos) << status.out << status.err;
    EXPECT_EQ(status.out.substr(nl + 1), "200") << status.out;
    auto meta = nlohmann::json::parse(status.out.substr(0, nl), nullptr,
                                      /*allow_exceptions=*/false);
    ASSERT_TRUE(meta.is_object()) << status.out;
    EXPECT_EQ(meta.value("name", ""), "d");
    EXPECT_EQ(meta.value("size", ""), "4");
  }
  // A session never opened is still unknown.
  auto none = curl({"-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "-H",
                    "Content-Range: bytes */4", "-H", "Content-Length: 0",
                    server_.url() + "/upload/storage/v1/b/bucket/"
                                    "o?uploadType=resumable&upload_id=none"});
  EXPECT_EQ(none.out, "404");
  EXPECT_EQ(server_.ObjectBytes("bucket", "d"),
            std::optional<std::string>("abcd"));
}

TEST_F(GcsTest, AMismatchedCrc32cIsRefusedByTheServer) {
  // The server checks the crc32c an upload carries, as GCS does (shown
  // with curl sending a wrong one).
  auto rep = RunProcess(
      {"/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X",
       "POST", "-H", "Content-Type: multipart/related; boundary=b",
       "--data-binary",
       "--b\r\nContent-Type: application/json\r\n\r\n{\"name\":\"x\","
       "\"crc32c\":\"AAAAAA==\"}\r\n--b\r\nContent-Type: "
       "application/octet-stream\r\n\r\nhello\r\n--b--\r\n",
       server_.url() + "/upload/storage/v1/b/bucket/o?uploadType=multipart"},
      {});
  EXPECT_EQ(rep.out, "400");
  EXPECT_FALSE(server_.ObjectBytes("bucket", "x").has_value());
}

}  // namespace
}  // namespace ckpt
