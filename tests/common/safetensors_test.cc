// The safetensors format: the writer byte for byte against the reference
// implementation's own test vectors, the reader on hostile headers, and
// the Hugging Face file split and index.
#include "common/serving/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/model_presets.h"
#include "common/serving/model_files.h"

namespace ckpt {
namespace {

using ::testing::HasSubstr;

StTensor T(std::string name, StDtype dtype, std::vector<uint64_t> shape) {
  StTensor t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

std::string Le64(uint64_t n) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i, n >>= 8) s[i] = static_cast<char>(n & 0xff);
  return s;
}

// A file of `json` as its header and `data` bytes after it.
struct File {
  std::string json;
  uint64_t data = 0;
  uint64_t Size() const { return 8 + json.size() + data; }
};

absl::Status Parse(const File& f) {
  return ParseStHeader(f.json, f.Size(), "m/model.safetensors").status();
}

TEST(Safetensors, DtypesAreTheSpecificationsNamesAndSizes) {
  EXPECT_EQ(StDtypeName(StDtype::kBf16), "BF16");
  EXPECT_EQ(StDtypeBits(StDtype::kBf16), 16);
  EXPECT_EQ(StDtypeName(StDtype::kF8E4M3), "F8_E4M3");
  EXPECT_EQ(StDtypeBits(StDtype::kF8E4M3), 8);
  EXPECT_EQ(StDtypeBits(StDtype::kU64), 64);
  EXPECT_EQ(StDtypeBits(StDtype::kF32), 32);
  EXPECT_EQ(StDtypeBits(StDtype::kF4), 4);
  EXPECT_EQ(StDtypeBits(StDtype::kF6E2M3), 6);
  EXPECT_EQ(StDtypeBits(StDtype::kC64), 64);
  EXPECT_EQ(StDtypeName(StDtype::kF8E4M3Fnuz), "F8_E4M3FNUZ");
  for (int i = 0; i <= static_cast<int>(StDtype::kU64); ++i) {
    const auto d = static_cast<StDtype>(i);
    EXPECT_EQ(StDtypeFromName(StDtypeName(d)), d);
  }
  EXPECT_FALSE(StDtypeFromName("bf16").has_value());
  EXPECT_FALSE(StDtypeFromName("F128").has_value());
  // Sub-byte elements: whole bytes only.
  EXPECT_EQ(StShapeBytes(StDtype::kF4, {2}).value(), 1u);
  EXPECT_EQ(StShapeBytes(StDtype::kF6E3M2, {4}).value(), 3u);
  EXPECT_FALSE(StShapeBytes(StDtype::kF4, {3}).ok());
  // The reference multiplies the elements first: [2^63, 0] is 0 bytes.
  EXPECT_EQ(StShapeBytes(StDtype::kF16, {1ull << 63, 0}).value(), 0u);
  EXPECT_FALSE(StShapeBytes(StDtype::kF16, {1ull << 63}).ok());
}

// safetensors/src/tensor.rs tests test_serialization, test_empty and
// test_serialization_forced_alignement: the bytes the reference writes.
TEST(Safetensors, TheWriterWritesTheReferencesBytes) {
  std::vector<StTensor> one = {T("attn.0", StDtype::kF32, {1, 2, 3})};
  const std::string json =
      R"({"attn.0":{"dtype":"F32","shape":[1,2,3],"data_offsets":[0,24]}})";
  EXPECT_EQ(StHeaderBytes(&one, {}), Le64(64) + json);
  EXPECT_EQ(one[0].begin, 0u);
  EXPECT_EQ(one[0].end, 24u);

  std::vector<StTensor> none;
  EXPECT_EQ(StHeaderBytes(&none, {}), Le64(8) + "{}      ");
  EXPECT_EQ(StHeaderBytes(&none, {{"framework", "pt"}}),
            Le64(40) + R"({"__metadata__":{"framework":"pt"}})" + "     ");

  std::vector<StTensor> padded = {T("attn0", StDtype::kF32, {1, 1, 2, 3})};
  EXPECT_EQ(
      StHeaderBytes(&padded, {}),
      Le64(72) +
          R"({"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}})" +
          "       ");
}

TEST(Safetensors, WhatTheWriterWritesReadsBack) {
  std::vector<StTensor> ts = {T("b.weight", StDtype::kBf16, {4, 3}),
                              T("a.bias", StDtype::kF32, {5}),
                              T("scalar", StDtype::kI64, {})};
  const std::string head = StHeaderBytes(&ts, {{"format", "pt"}});
  const uint64_t size = head.size() + ts.back().end;
  auto n = StHeaderLength(head, size, "x.safetensors");
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n + 8, head.size());
  auto h =
      ParseStHeader(std::string_view(head).substr(8), size, "x.safetensors");
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->DataStart(), head.size());
  ASSERT_EQ(h->tensors.size(), 3u);
  EXPECT_EQ(h->tensors[0].name, "b.weight");
  EXPECT_EQ(h->tensors[0].Bytes(), 24u);
  EXPECT_EQ(h->tensors[1].name, "a.bias");
  EXPECT_EQ(h->tensors[1].begin, 24u);
  EXPECT_EQ(h->tensors[2].shape.size(), 0u);
  EXPECT_EQ(h->tensors[2].Bytes(), 8u);
  ASSERT_EQ(h->metadata.size(), 1u);
  EXPECT_EQ(h->metadata[0].second, "pt");
}

TEST(Safetensors, TheHeadersLengthIsCheckedAgainstTheLimitAndTheFile) {
  auto past = StHeaderLength(Le64(100), 50, "m/a.safetensors");
  ASSERT_FALSE(past.ok());
  EXPECT_THAT(past.status().message(), HasSubstr("m/a.safetensors"));
  EXPECT_THAT(past.status().message(), HasSubstr("at most 42"));
  auto huge = StHeaderLength(Le64(100'000'001), 200'000'000, "a.safetensors");
  ASSERT_FALSE(huge.ok());
  EXPECT_THAT(huge.status().message(), HasSubstr("at most 100000000"));
  EXPECT_TRUE(StHeaderLength(Le64(100'000'000), 200'000'000, "a").ok());
  EXPECT_FALSE(StHeaderLength(Le64(UINT64_MAX - 3), 100, "a").ok());
  auto one = StHeaderLength(Le64(1), 100, "a.safetensors");
  ASSERT_FALSE(one.ok());
  EXPECT_THAT(one.status().message(), HasSubstr("at least 2"));
  auto tiny = StHeaderLength("abc", 3, "a.safetensors");
  ASSERT_FALSE(tiny.ok());
  EXPECT_THAT(tiny.status().message(), HasSubstr("3 bytes"));
}

// Each hostile header: refused, the error names the file and the fault.
TEST(Safetensors, HostileHeadersAreRefusedSayingWhy) {
  const std::string ok1 =
      R"("a":{"dtype":"U8","shape":[4],"data_offsets":[0,4]})";
  struct Case {
    const char* what;
    File file;
    const char* says;
  } cases[] = {
      {"a gap",
       {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})", 6},
       "a gap"},
      {"an overlap",
       {"{" + ok1 + R"(,"b":{"dtype":"U8","shape":[4],"data_offsets":[2,6]}})",
        6},
       "an overlap"},
      {"offsets past the file", {"{" + ok1 + "}", 2}, "ends at byte 4"},
      {"bytes after the tensors", {"{" + ok1 + "}", 9}, "expected them to end"},
      {"an end before the begin",
       {R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[4,0]}})", 0},
       "ends before it begins"},
      {"an unknown dtype",
       {R"({"a":{"dtype":"F128","shape":[4],"data_offsets":[0,4]}})", 4},
       "unknown dtype 'F128'"},
      {"a negative dimension",
       {R"({"a":{"dtype":"U8","shape":[-4],"data_offsets":[0,4]}})", 4},
       "negative number -4"},
      {"a fractional dimension",
       {R"({"a":{"dtype":"U8","shape":[1.5],"data_offsets":[0,4]}})", 4},
       "not a whole number"},
      {"a dimension past 64 bits",
       {R"({"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,4]}})",
        4},
       "not a whole number"},
      {"an overflowing shape",
       {R"({"a":{"dtype":"BF16","shape":[4294967296,4294967296],"data_offsets":[0,4]}})",
        4},
       "overflows 64 bits"},
      {"a shape that is not the bytes",
       {R"({"a":{"dtype":"BF16","shape":[4],"data_offsets":[0,4]}})", 4},
       "shape needs 8"},
      {"a control character in a name",
       {R"({"a\u0001b":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4},
       "control character"},
      {"an escape sequence in a name",
       {R"({"\u001b[31m":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4},
       "\\x1B[31m"},
      {"an empty name",
       {R"({"":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4},
       "empty name"},
      {"a name twice", {"{" + ok1 + "," + ok1 + "}", 4}, "appears twice"},
      {"no offsets",
       {R"({"a":{"dtype":"U8","shape":[4]}})", 4},
       "no data_offsets"},
      {"three offsets",
       {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4,8]}})", 4},
       "more than two offsets"},
      {"an unknown member",
       {R"({"a":{"dtype":"U8","shape":[4],"data_offsets":[0,4],"x":1}})", 4},
       "unknown member 'x'"},
      {"nesting",
       {R"({"a":{"dtype":"U8","shape":[[4]],"data_offsets":[0,4]}})", 4},
       "found an array"},
      {"a top-level array", {"[1]", 4}, "found an array, expected an object"},
      {"metadata that is not strings",
       {R"({"__metadata__":{"k":1},)" + ok1 + "}", 4},
       "__metadata__"},
      {"not JSON", {R"({"a":{"dtype":"U8",)", 4}, "not valid JSON"},
      {"invalid UTF-8", {"{\"a\xff\":{}}", 4}, "not valid JSON"},
      {"padding that is not spaces",
       {"{" + ok1 + "}\x01\x01", 4},
       "not valid JSON"},
      {"a byte-order mark",
       {"\xEF\xBB\xBF{" + ok1 + "}", 4},
       "byte-order mark"},
      {"__metadata__ twice",
       {R"({"__metadata__":{},"__metadata__":{},)" + ok1 + "}", 4},
       "__metadata__ appears twice"},
      {"__metadata__ null",
       {R"({"__metadata__":null,)" + ok1 + "}", 4},
       "found null"},
      {"a name too long",
       {"{\"" + std::string(kMaxStName + 1, 'n') +
            R"(":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})",
        4},
       "more than 4096"},
      {"a metadata key too long",
       {R"({"__metadata__":{")" + std::string(kMaxStName + 1, 'k') +
            R"(":"v"},)" + ok1 + "}",
        4},
       "a key of 4097 bytes"},
      {"a member twice",
       {R"({"a":{"dtype":"U8","dtype":"U8","shape":[4],"data_offsets":[0,4]}})",
        4},
       "dtype appears twice"},
      {"too many dimensions",
       {R"({"a":{"dtype":"U8","shape":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,4],"data_offsets":[0,4]}})",
        4},
       "more than 32 dimensions"},
      {"an entry that is not an object",
       {R"({"a":5})", 4},
       "found the number 5, expected an object"},
      {"sub-byte elements that are not whole bytes",
       {R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2},
       "not a whole number of bytes"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    absl::Status st = Parse(c.file);
    ASSERT_FALSE(st.ok());
    EXPECT_THAT(st.message(), HasSubstr("m/model.safetensors"));
    EXPECT_THAT(st.message(), HasSubstr(c.says));
  }
  // The same shapes, honest, are read: padded or not, written as Python's
  // json.dumps writes (spaces after separators), __metadata__ last, no
  // tensor at all, sub-byte elements in whole bytes.
  EXPECT_TRUE(Parse({"{" + ok1 + "}  ", 4}).ok());
  EXPECT_TRUE(
      Parse(
          {R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}, "__metadata__": {"format": "pt"}})",
           4})
          .ok());
  EXPECT_TRUE(Parse({"{}", 0}).ok());
  EXPECT_TRUE(
      Parse({R"({"a":{"dtype":"F4","shape":[2,3],"data_offsets":[0,3]}})", 3})
          .ok());
  EXPECT_TRUE(
      Parse(
          {R"({"a\u00e9":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}})", 4})
          .ok());
}

TEST(Safetensors, AHeaderLargerThanItsFileIsRefusedBeforeItIsRead) {
  absl::Status st = ParseStHeader("{}", 9, "a.safetensors").status();
  ASSERT_FALSE(st.ok());
  EXPECT_THAT(st.message(), HasSubstr("at most 1"));
}

std::vector<StTensor> Sized(const std::vector<uint64_t>& bytes) {
  std::vector<StTensor> ts;
  for (size_t i = 0; i < bytes.size(); ++i) {
    ts.push_back(T("t" + std::to_string(i), StDtype::kU8, {bytes[i]}));
  }
  return ts;
}

std::vector<std::vector<std::string>> Names(const std::vector<ModelFile>& fs) {
  std::vector<std::vector<std::string>> out;
  for (const auto& f : fs) {
    out.emplace_back();
    for (const auto& t : f.tensors) out.back().push_back(t.name);
  }
  return out;
}

// huggingface_hub's docstring: [6, 6, 2, 6, 2, 2] under 10 -> [6], [6+2],
// [6+2+2]; a tensor over the limit goes alone, ahead of the file being
// filled.
TEST(ModelFiles, FilesSplitAsHuggingFaceSplitsThem) {
  auto fs = ShardModel(Sized({6, 6, 2, 6, 2, 2}), 10);
  EXPECT_EQ(Names(fs), (std::vector<std::vector<std::string>>{
                           {"t0"}, {"t1", "t2"}, {"t3", "t4", "t5"}}));
  ASSERT_EQ(fs.size(), 3u);
  EXPECT_EQ(fs[0].name, "model-00001-of-00003.safetensors");
  EXPECT_EQ(fs[2].name, "model-00003-of-00003.safetensors");
  auto big = ShardModel(Sized({3, 20, 3}), 10);
  EXPECT_EQ(Names(big),
            (std::vector<std::vector<std::string>>{{"t1"}, {"t0", "t2"}}));
  auto one = ShardModel(Sized({3, 3}), 10);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].name, "model.safetensors");
}

// safetensors' prepare(): by dtype descending in its enum's order (F32,
// I32, BF16, F16: not by element size), then by name.
TEST(ModelFiles, AFileHoldsItsTensorsAsSafetensorsOrdersThem) {
  std::vector<StTensor> ts = {
      T("d", StDtype::kF16, {1}), T("c", StDtype::kBf16, {1}),
      T("b", StDtype::kF32, {2}), T("a", StDtype::kI32, {1}),
      T("e", StDtype::kI32, {1})};
  auto fs = ShardModel(ts, 100);
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(Names(fs)[0], (std::vector<std::string>{"b", "a", "e", "c", "d"}));
  EXPECT_EQ(fs[0].Size(), fs[0].header.size() + 8 + 4 + 4 + 2 + 2);
  auto h = ParseStHeader(std::string_view(fs[0].header).substr(8), fs[0].Size(),
                         fs[0].name);
  ASSERT_TRUE(h.ok()) << h.status();
  ASSERT_EQ(h->metadata.size(), 1u);
  EXPECT_EQ(h->metadata[0].first, "format");
}

TEST(ModelFiles, TheIndexNamesEveryTensorsFileAndReadsBack) {
  auto fs = ShardModel(Sized({6, 6, 2}), 10);
  const std::string text = ModelIndexJson(fs);
  auto index = ParseModelIndex(text, "m/model.safetensors.index.json");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->total_size, 14u);
  ASSERT_EQ(index->weight_map.size(), 3u);
  EXPECT_EQ(index->weight_map[2].first, "t2");
  EXPECT_EQ(index->weight_map[2].second, "model-00002-of-00002.safetensors");
  EXPECT_EQ(index->files.size(), 2u);
}

TEST(ModelFiles, AHostileIndexIsRefusedSayingWhy) {
  const char* where = "m/model.safetensors.index.json";
  struct Case {
    std::string text;
    const char* says;
  } cases[] = {
      {R"({"weight_map":{"a":"../b.safetensors"}})", ".."},
      {R"({"weight_map":{"a":"x/b.safetensors"}})", "x/b.safetensors"},
      {R"({"weight_map":{"a":"/etc/passwd"}})", "/etc/passwd"},
      {R"({"weight_map":{"a":"b.bin"}})", "expected a .safetensors file"},
      {R"({"weight_map":{"a":7}})", "expected a file's name"},
      {R"({"weight_map":{"a\u0007":"b.safetensors"}})", "control characters"},
      {R"({"weight_map":{}})", "no weight_map"},
      {R"({"metadata":[[[[[[1]]]]]],"weight_map":{"a":"b.safetensors"}})",
       "nested deeper than an index is"},
      {"[]", "not a JSON object"},
      {std::string(kMaxModelIndexBytes + 1, ' '), "at most"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.says);
    auto index = ParseModelIndex(c.text, where);
    ASSERT_FALSE(index.ok());
    EXPECT_THAT(index.status().message(), HasSubstr(c.says));
    EXPECT_THAT(index.status().message(), HasSubstr("model.safetensors.index"));
  }
}

TEST(ModelFiles, ATotalSizeThatIsNotAWholeNumberIsUnknown) {
  auto index = ParseModelIndex(
      R"({"metadata":{"total_size":-1.5},"weight_map":{"a":"b.safetensors"}})",
      "i.json");
  ASSERT_TRUE(index.ok()) << index.status();
  EXPECT_EQ(index->total_size, 0u);
}

uint64_t Parameters(const std::string& preset) {
  auto p = MakePreset(preset, 0);
  EXPECT_TRUE(p.ok()) << p.status();
  uint64_t n = 0;
  for (const auto& t : p->weights) n += t.Elements();
  return n;
}

// The published parameter counts of Llama 3.1 8B and 70B.
TEST(ModelFiles, Llama31PresetsHaveThePublishedShapes) {
  EXPECT_EQ(Parameters("llama-3.1-8b"), 8'030'261'248u);
  EXPECT_EQ(Parameters("llama-3.1-70b"), 70'553'706'496u);
  auto p = MakePreset("llama-3.1-8b", 0);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->weights.front().name, "model.embed_tokens.weight");
  EXPECT_EQ(p->weights.front().shape, (std::vector<uint64_t>{128256, 4096}));
  EXPECT_EQ(p->weights[2].name, "model.layers.0.self_attn.k_proj.weight");
  EXPECT_EQ(p->weights[2].shape, (std::vector<uint64_t>{1024, 4096}));
}

// The files Hugging Face publishes for Llama 3.1 8B (meta-llama/
// Llama-3.1-8B-Instruct on the Hub: model-0000i-of-00004.safetensors of
// 4,976,698,672, 4,999,802,720, 4,915,916,176 and 1,168,138,808 bytes, the
// first's header 0x2528 bytes long): the same split, the same headers'
// lengths, from the preset's shapes in bf16.
TEST(ModelFiles, Llama31EightBSplitsIntoTheFilesHuggingFacePublishes) {
  auto p = MakePreset("llama-3.1-8b", 0);
  ASSERT_TRUE(p.ok()) << p.status();
  const std::vector<ModelFile> files =
      ShardModel(ModelTensors(p->weights, StDtype::kBf16));
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[0].name, "model-00001-of-00004.safetensors");
  EXPECT_EQ(files[0].Size(), 4'976'698'672u);
  EXPECT_EQ(files[1].Size(), 4'999'802'720u);
  EXPECT_EQ(files[2].Size(), 4'915'916'176u);
  EXPECT_EQ(files[3].Size(), 1'168'138'808u);
  EXPECT_EQ(files[0].header.size(), 8u + 0x2528);
  auto index = ParseModelIndex(ModelIndexJson(files), "index");
  ASSERT_TRUE(index.ok());
  EXPECT_EQ(index->total_size, 16'060'522'496u);  // 2 x 8,030,261,248
}

}  // namespace
}  // namespace ckpt
