// The tar shards ckptbench writes, read by tools nobody here wrote (GNU tar,
// Python's tarfile, as WebDataset reads them), and the stream reader on
// archives those tools made and on hostile ones.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <vector>

#include "common/dataset/dataset_layout.h"
#include "gtest/gtest.h"
#include "node/dataset/dataset_bytes.h"
#include "node/dataset/tar_reader.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_dir.h"

namespace ckpt {
namespace {

DatasetSpec Spec() {
  DatasetSpec s;
  s.format = DatasetFormat::kTar;
  s.samples = 40;
  s.sample_bytes = 9000;
  s.sample_spread = 3000;
  s.shard_bytes = 200 * 1024;
  s.seed = 11;
  return s;
}

std::vector<unsigned char> Bytes(const ShardImage& img) {
  std::vector<unsigned char> b(img.size());
  img.Fill(0, b.data(), b.size());
  return b;
}

void WriteFile(const std::string& path, const std::vector<unsigned char>& b) {
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(b.data()), b.size());
}

std::vector<unsigned char> ReadBytes(const std::string& path) {
  std::string s = ReadFile(path);
  return std::vector<unsigned char>(s.begin(), s.end());
}

// Collects what the reader finds.
struct Collect : TarSink {
  struct Got {
    TarMember m;
    std::string data;
  };
  std::vector<Got> got;
  absl::Status OnMember(const TarMember& m) override {
    got.push_back({m, {}});
    return absl::OkStatus();
  }
  absl::Status OnData(const TarMember& m, uint64_t at, const unsigned char* p,
                      size_t n) override {
    EXPECT_EQ(m.name, got.back().m.name);
    EXPECT_EQ(at, got.back().data.size());
    got.back().data.append(reinterpret_cast<const char*>(p), n);
    return absl::OkStatus();
  }
};

// Feeds `b` in random pieces (1 byte to 3 blocks).
absl::Status FeedAll(const std::vector<unsigned char>& b, Collect& sink,
                     uint32_t seed = 1) {
  TarStreamReader reader("test.tar", b.size());
  std::mt19937 rng(seed);
  for (size_t at = 0; at < b.size();) {
    size_t n = std::min<size_t>(b.size() - at, 1 + rng() % 1536);
    absl::Status s = reader.Feed(b.data() + at, n, sink);
    if (!s.ok()) return s;
    at += n;
  }
  return reader.Finish();
}

TEST(TarShard, GnuTarAndPythonTarfileReadWhatWebDatasetExpects) {
  DatasetSpec spec = Spec();
  ShardTable table = BuildShardTable(spec);
  ASSERT_GE(table.shards(), 2u);
  ShardImage img(spec, table.first_sample[0], table.first_sample[1]);
  ASSERT_EQ(img.size(), table.bytes[0]);
  TempDir dir;
  const std::string path = dir.Sub("shard.tar");
  WriteFile(path, Bytes(img));

  ProcessResult tar = RunProcess({"/usr/bin/tar", "-tvf", path}, {});
  ASSERT_EQ(tar.exit_code, 0) << tar.err;
  EXPECT_EQ(tar.err, "");  // no warning (checksums, end blocks)
  EXPECT_NE(tar.out.find("s0000000000.jpg"), std::string::npos) << tar.out;

  // tarfile: members in WebDataset's order (key.jpg then key.cls, keys
  // without dots), .cls an ASCII decimal label, each .jpg's data offset and
  // size where ShardImage says; then the bytes themselves.
  std::string expect;
  for (uint64_t s = img.first(); s < img.end(); ++s) {
    ShardImage::Place p = img.PlaceOf(s);
    expect += SampleKey(s) + " " + std::to_string(p.data) + " " +
              std::to_string(p.size) + " " + LabelText(s) + "\n";
  }
  WriteFile(dir.Sub("expect.txt"),
            std::vector<unsigned char>(expect.begin(), expect.end()));
  const char* script = R"PY(
import sys, tarfile
path, expect = sys.argv[1], open(sys.argv[2]).read().split("\n")
with tarfile.open(path) as t:
    members = t.getmembers()
    assert len(members) == 2 * (len(expect) - 1), len(members)
    for i, line in enumerate(expect[:-1]):
        key, off, size, label = line.split()
        jpg, cls = members[2 * i], members[2 * i + 1]
        assert jpg.name == key + ".jpg" and cls.name == key + ".cls", (jpg.name, cls.name)
        assert jpg.isreg() and cls.isreg()
        assert "." not in key
        assert jpg.offset_data == int(off) and jpg.size == int(size), (jpg.offset_data, jpg.size)
        assert t.extractfile(cls).read() == label.encode("ascii")
        assert len(t.extractfile(jpg).read()) == int(size)
print("ok", len(members))
)PY";
  ProcessResult py = RunProcess(
      {"/usr/bin/python3", "-c", script, path, dir.Sub("expect.txt")}, {});
  ASSERT_EQ(py.exit_code, 0) << py.err;
  EXPECT_EQ(py.out,
            "ok " + std::to_string(2 * (img.end() - img.first())) + "\n");
}

TEST(TarShard, StreamReaderFindsEveryMemberAndItsBytes) {
  DatasetSpec spec = Spec();
  ShardTable table = BuildShardTable(spec);
  ShardImage img(spec, table.first_sample[1], table.first_sample[2]);
  std::vector<unsigned char> bytes = Bytes(img);
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    Collect sink;
    ASSERT_TRUE(FeedAll(bytes, sink, seed).ok());
    ASSERT_EQ(sink.got.size(), 2 * (img.end() - img.first()));
    for (uint64_t s = img.first(); s < img.end(); ++s) {
      const auto& jpg = sink.got[2 * (s - img.first())];
      const auto& cls = sink.got[2 * (s - img.first()) + 1];
      ShardImage::Place p = img.PlaceOf(s);
      EXPECT_EQ(jpg.m.name, SampleKey(s) + ".jpg");
      EXPECT_EQ(jpg.m.offset, p.data);
      EXPECT_EQ(jpg.m.size, p.size);
      EXPECT_EQ(
          img.FirstMismatch(
              p.data, reinterpret_cast<const unsigned char*>(jpg.data.data()),
              jpg.data.size()),
          jpg.data.size());
      EXPECT_EQ(cls.data, LabelText(s));
    }
  }
}

TEST(TarShard, FirstMismatchFindsOneFlippedByteAnywhere) {
  DatasetSpec spec = Spec();
  ShardTable table = BuildShardTable(spec);
  ShardImage img(spec, 0, table.first_sample[1]);
  std::vector<unsigned char> bytes = Bytes(img);
  for (uint64_t at :
       {uint64_t{0}, uint64_t{100}, img.PlaceOf(1).data + 7, img.size() - 1}) {
    std::vector<unsigned char> b = bytes;
    b[at] ^= 1;
    EXPECT_EQ(img.FirstMismatch(0, b.data(), b.size()), at);
    EXPECT_EQ(img.SampleAtByte(at) < img.end(), at < img.size() - 1024);
  }
  EXPECT_EQ(img.FirstMismatch(0, bytes.data(), bytes.size()), bytes.size());
  // Filling from an offset gives the same bytes as the whole.
  std::vector<unsigned char> part(5000);
  img.Fill(777, part.data(), part.size());
  EXPECT_TRUE(std::equal(part.begin(), part.end(), bytes.begin() + 777));
}

TEST(TarReader, ReadsWhatGnuTarAndPythonMakeWithLongNamesAndDirectories) {
  TempDir dir;
  const std::string long_dir(120, 'd');
  std::filesystem::create_directories(dir.Sub("src/" + long_dir));
  WriteFile(dir.Sub("src/" + long_dir + "/a.jpg"),
            std::vector<unsigned char>(1000, 'a'));
  WriteFile(dir.Sub("src/b.cls"), std::vector<unsigned char>{'7'});
  // GNU tar's default format (GNU long names, "./" names, directories),
  // then POSIX pax from both tools.
  for (const std::vector<std::string>& argv :
       std::vector<std::vector<std::string>>{
           {"/usr/bin/tar", "-C", dir.Sub("src"), "-cf", dir.Sub("gnu.tar"),
            "."},
           {"/usr/bin/tar", "--format=posix", "-C", dir.Sub("src"), "-cf",
            dir.Sub("pax.tar"), "."},
           {"/usr/bin/python3", "-c",
            "import sys, tarfile\n"
            "with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as "
            "t:\n"
            "    t.add(sys.argv[2], arcname='.')\n",
            dir.Sub("py.tar"), dir.Sub("src")}}) {
    ProcessResult r = RunProcess(argv, {});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  for (const char* name : {"gnu.tar", "pax.tar", "py.tar"}) {
    Collect sink;
    absl::Status s = FeedAll(ReadBytes(dir.Sub(name)), sink);
    ASSERT_TRUE(s.ok()) << name << ": " << s;
    std::map<std::string, std::string> got;
    for (const auto& g : sink.got) got[g.m.name] = g.data;
    ASSERT_EQ(got.size(), 2u) << name;
    EXPECT_EQ(got[long_dir + "/a.jpg"], std::string(1000, 'a')) << name;
    EXPECT_EQ(got["b.cls"], "7") << name;
  }
}

TEST(TarReader, RefusesLinksEscapesBadSumsAndSizesPastTheEnd) {
  TempDir dir;
  std::filesystem::create_directories(dir.Sub("src"));
  WriteFile(dir.Sub("src/a"), std::vector<unsigned char>(10, 'a'));
  std::filesystem::create_symlink("/etc/passwd", dir.Sub("src/link"));
  ASSERT_EQ(RunProcess({"/usr/bin/tar", "-C", dir.Sub("src"), "-cf",
                        dir.Sub("l.tar"), "a", "link"},
                       {})
                .exit_code,
            0);
  Collect sink;
  absl::Status s = FeedAll(ReadBytes(dir.Sub("l.tar")), sink);
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("member link (header at byte 1024) is a link"),
            std::string::npos)
      << s;

  auto one = [](const std::string& name, uint64_t size, uint64_t data) {
    TarBlock h = TarFileHeader(name, size);
    std::vector<unsigned char> b(h.begin(), h.end());
    b.resize(b.size() + data + 1024, 'x');
    std::fill(b.end() - 1024, b.end(), 0);
    return b;
  };
  for (const char* name : {"../escape", "/etc/passwd", "a/../../b"}) {
    Collect c;
    s = FeedAll(one(name, 10, 512), c);
    EXPECT_FALSE(s.ok()) << name;
    EXPECT_TRUE(c.got.empty()) << name;
  }
  Collect c;
  s = FeedAll(one("big", 1 << 20, 512), c);
  EXPECT_NE(s.message().find("member big (header at byte 0) claims 1048576 "
                             "bytes, past the archive's end"),
            std::string::npos)
      << s;
  std::vector<unsigned char> sum = one("a", 10, 512);
  sum[0] = 'b';
  s = FeedAll(sum, c);
  EXPECT_NE(s.message().find("tar header at byte 0 has a wrong checksum"),
            std::string::npos)
      << s;
  std::vector<unsigned char> whole = one("a", 600, 1024);
  {  // a stream that stops short of the size it was opened with
    TarStreamReader reader("test.tar", whole.size());
    ASSERT_TRUE(reader.Feed(whole.data(), 512 + 300, c).ok());
    s = reader.Finish();
  }
  EXPECT_NE(s.message().find("ends inside member a (300 of its 600 bytes "
                             "missing)"),
            std::string::npos)
      << s;
  // A pax header over the limit, and one that lies about its records.
  TarBlock x = TarFileHeader("pax", kMaxTarExtension + 1);
  x[156] = 'x';
  std::vector<unsigned char> px(x.begin(), x.end());
  // re-sum: the type changed
  TarBlock fixed = x;
  {
    uint64_t u = 0;
    for (size_t i = 0; i < 512; ++i) u += (i >= 148 && i < 156) ? ' ' : x[i];
    char buf[8];
    std::snprintf(buf, sizeof(buf), "%06llo",
                  static_cast<unsigned long long>(u));
    std::memcpy(fixed.data() + 148, buf, 6);
  }
  px.assign(fixed.begin(), fixed.end());
  px.resize(px.size() + kMaxTarExtension + 2048, 0);
  s = FeedAll(px, c);
  EXPECT_NE(s.message().find("over the 65536-byte limit"), std::string::npos)
      << s;
}

}  // namespace
}  // namespace ckpt
